#!/usr/bin/env bash
# A JFR profile of Fulcrum under load: the same backends and Fulcrum config as compare.sh, a
# warm-up, then a flight recording (settings=profile) while wrk or h2load drives one test, and a
# summary of where the time and the allocations go. See loadtest/README.md.
#
#   loadtest/profile.sh                 # HTTP/1.1, wrk -c50
#   TEST=h2 loadtest/profile.sh         # or h1-c200, grpc, h1close-c50 (a connection per request)
#
# Installs nothing. Starts only its own processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

TEST=${TEST:-h1-c50}
INSTANCES=${INSTANCES:-1}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
PROFILE_SECONDS=${PROFILE_SECONDS:-30}
TOP=${TOP:-25}

# shellcheck source=loadtest/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
OUT_DIR=${OUT_DIR:-$REPO_DIR/target/profile}

case $TEST in
  h1-c*|h1close-c*|h2|grpc) ;;
  *) die "TEST must be h1-c<N>, h1close-c<N>, h2 or grpc (not '$TEST')" ;;
esac
tools=(wrk java jfr curl ss)
[ "$TEST" = h2 ] || [ "$TEST" = grpc ] && tools+=(h2load)
check_tools "${tools[@]}" nginx || exit 2
own_workdir profile

mkdir -p "$OUT_DIR"
JFR_FILE="$OUT_DIR/fulcrum-$TEST.jfr"
rm -f "$JFR_FILE"
GRPC_REQ="$WORKDIR/grpc-request.bin"
write_grpc_request "$GRPC_REQ"

# JFR's profile settings, with Java stacks sampled every millisecond instead of every 10 (20 for
# native frames), so that 30 s give a few thousand samples. Allocations are read from every TLAB
# refill and every allocation outside a TLAB (a few thousand a second here): the allocation that
# opens a new TLAB stands for the TLAB's size, which is unbiased by object size and fine enough to
# rank allocation sites. jdk.ObjectAllocationSample, the profile settings' own, is throttled to 300
# a second and charges whatever was allocated since its last sample to one object, which here put
# 30 % of the bytes on a 64-byte object allocated once per request.
SAMPLE_PERIOD=${SAMPLE_PERIOD:-1ms}
jfr configure --input profile --output "$WORKDIR/fulcrum.jfc" "jdk.ExecutionSample#period=$SAMPLE_PERIOD" \
  "jdk.NativeMethodSample#period=$SAMPLE_PERIOD" \
  "jdk.ObjectAllocationInNewTLAB#enabled=true" "jdk.ObjectAllocationInNewTLAB#stackTrace=true" \
  "jdk.ObjectAllocationOutsideTLAB#enabled=true" "jdk.ObjectAllocationOutsideTLAB#stackTrace=true" >/dev/null
start_backends
# DebugNonSafepoints: samples are attributed to the line that ran, not to the nearest safepoint
# (without it JFR pins inlined code's time on a few frames that did little of the work).
start_fulcrum "$INSTANCES" -XX:+UnlockDiagnosticVMOptions -XX:+DebugNonSafepoints \
  "-XX:StartFlightRecording=delay=${WARMUP_SECONDS}s,duration=${PROFILE_SECONDS}s,settings=$WORKDIR/fulcrum.jfc,filename=$JFR_FILE"
total=$((WARMUP_SECONDS + PROFILE_SECONDS + 2))
case $TEST in
  h1-c*) cmd=(wrk -t1 "-c${TEST#h1-c}" "-d${total}s" --latency "http://127.0.0.1:$PORT_FULCRUM_H1/") ;;
  h1close-c*) cmd=(wrk -t1 "-c${TEST#h1close-c}" "-d${total}s" --latency -H 'Connection: close'
    "http://127.0.0.1:$PORT_FULCRUM_H1/") ;;
  h2) cmd=(h2load -c10 -m10 -t1 -D "$total" "http://127.0.0.1:$PORT_FULCRUM_H1/") ;;
  grpc) cmd=(h2load -c10 -m10 -t1 -D "$total" -d "$GRPC_REQ" -H 'content-type: application/grpc' -H 'te: trailers'
    "http://127.0.0.1:$PORT_FULCRUM_GRPC/grpc.testing.TestService/UnaryCall") ;;
esac
log "load: ${cmd[*]} (recording from ${WARMUP_SECONDS}s for ${PROFILE_SECONDS}s)"
c0=$(cpu_ticks "$FULCRUM_PID")
pinned "$LOAD_CPUS" timeout --kill-after=5 $((total + 30)) "${cmd[@]}" >"$OUT_DIR/load-$TEST.txt" 2>&1 || true
c1=$(cpu_ticks "$FULCRUM_PID")
for i in $(seq 1 100); do
  [ -s "$JFR_FILE" ] && break
  sleep 0.2
done
[ -s "$JFR_FILE" ] || die "no recording in $JFR_FILE"
rss=$(memory_kb "$FULCRUM_PID" VmRSS)
hwm=$(memory_kb "$FULCRUM_PID" VmHWM)
stop_pid "$FULCRUM_PID"
forget_pid "$FULCRUM_PID"

SUMMARY="$OUT_DIR/summary-$TEST.txt"
# Report pipelines end in head: their SIGPIPE upstream is expected.
set +o pipefail
{
  echo "# JFR profile of Fulcrum: $TEST, --instances $INSTANCES, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# JVM: $FULCRUM_JVM_OPTS; JFR settings=profile with jdk.ExecutionSample#period=$SAMPLE_PERIOD"
  echo "# load: ${cmd[*]}"
  grep -E 'Requests/sec|requests in|^finished in|^requests:|99%|50%' "$OUT_DIR/load-$TEST.txt" | sed 's/^/#   /' || true
  echo "# Fulcrum CPU over the whole run: $(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" 'BEGIN { printf "%.1f s", t / hz }'); RSS $((rss / 1024)) MB, peak $((hwm / 1024)) MB"
  echo
  echo "## Execution samples by thread"
  jfr print --events jdk.ExecutionSample "$JFR_FILE" \
    | awk -F'"' '/sampledThread = / { n[$2]++; t++ } END { for (k in n) printf "%7d %5.1f%%  %s\n", n[k], 100 * n[k] / t, k }' \
    | sort -rn | head -15
  echo
  echo "## Top $TOP frames where samples were taken (self time), all threads"
  jfr print --events jdk.ExecutionSample --stack-depth 1 "$JFR_FILE" \
    | awk '/stackTrace = \[/ { getline; sub(/^ +/, ""); sub(/ +line:.*/, ""); n[$0]++; t++ }
      END { for (k in n) printf "%7d %5.1f%%  %s\n", n[k], 100 * n[k] / t, k }' | sort -rn | head -"$TOP"
  echo
  echo "## Self time by package (first three name parts), all threads"
  jfr print --events jdk.ExecutionSample --stack-depth 1 "$JFR_FILE" \
    | awk '/stackTrace = \[/ { getline; sub(/^ +/, ""); split($0, p, "."); k = p[1] "." p[2] "." p[3]; n[k]++; t++ }
      END { for (k in n) printf "%7d %5.1f%%  %s\n", n[k], 100 * n[k] / t, k }' | sort -rn | head -15
  echo
  echo "## Top $TOP io.fulcrum methods on the stack (inclusive time), all threads"
  jfr print --events jdk.ExecutionSample --stack-depth 64 "$JFR_FILE" \
    | awk '/stackTrace = \[/ { in_st = 1; delete seen; t++; next }
      in_st && /^ *\]/ { in_st = 0; next }
      in_st { f = $0; sub(/^ +/, "", f); sub(/ +line:.*/, "", f)
              if (f ~ /^io\.fulcrum\./ && !(f in seen)) { seen[f] = 1; n[f]++ } }
      END { for (k in n) printf "%7d %5.1f%%  %s\n", n[k], 100 * n[k] / t, k }' | sort -rn | head -"$TOP"
  echo
  # Each refill event weighs its TLAB's size; each allocation outside one, its own size.
  alloc_events() {
    jfr print --events jdk.ObjectAllocationInNewTLAB,jdk.ObjectAllocationOutsideTLAB --stack-depth "$1" "$JFR_FILE"
  }
  weigh='function bytes(v, u) { if (u ~ /^kB/) return v * 1024; if (u ~ /^MB/) return v * 1048576; if (u ~ /^GB/) return v * 1073741824; return v }
    /^jdk\.ObjectAllocationInNewTLAB/ { tlab = 1 } /^jdk\.ObjectAllocationOutsideTLAB/ { tlab = 0 }
    /objectClass = / { c = $3 } /allocationSize = / { if (!tlab) w = bytes($3, $4) } /tlabSize = / { w = bytes($3, $4) }'
  echo "## Allocation by class (TLAB refills and allocations outside TLABs)"
  alloc_events 1 | awk "$weigh"'
      /stackTrace = \[/ { n[c] += w; t += w }
      END { for (k in n) printf "%9.1f MB %5.1f%%  %s\n", n[k] / 1048576, 100 * n[k] / t, k }' | sort -rn | head -20
  echo
  echo "## Allocation by the allocating frame"
  alloc_events 1 | awk "$weigh"'
      /stackTrace = \[/ { getline; f = $0; sub(/^ +/, "", f); sub(/ +line:.*/, "", f); n[f] += w; t += w }
      END { for (k in n) printf "%9.1f MB %5.1f%%  %s\n", n[k] / 1048576, 100 * n[k] / t, k }' | sort -rn | head -"$TOP"
  echo
  echo "## Allocation by the first io.fulcrum frame on the allocating stack"
  alloc_events 64 | awk "$weigh"'
      /stackTrace = \[/ { in_st = 1; site = ""; next }
      in_st && /^ *\]/ { in_st = 0; if (site == "") site = "(no io.fulcrum frame)"; n[site] += w; t += w; next }
      in_st && site == "" { f = $0; sub(/^ +/, "", f); sub(/ +line:.*/, "", f); if (f ~ /^io\.fulcrum\./) site = f }
      END { for (k in n) printf "%9.1f MB %5.1f%%  %s\n", n[k] / 1048576, 100 * n[k] / t, k }' | sort -rn | head -"$TOP"
  echo
  echo "## Garbage collections"
  jfr print --events jdk.GarbageCollection "$JFR_FILE" \
    | awk '/ name = / { gsub(/"/, "", $3); name = $3 } /sumOfPauses = / { v = $3; u = $4; if (u ~ /^s/) v *= 1000; else if (u ~ /^us/) v /= 1000; else if (u ~ /^ns/) v /= 1e6
        n[name]++; p[name] += v }
      END { for (k in n) printf "%6d collections, %8.1f ms of pauses  %s\n", n[k], p[k], k }'
} >"$SUMMARY"
cat "$SUMMARY"
log "recording: $JFR_FILE; summary: $SUMMARY (open the recording in JDK Mission Control for flame graphs)"
