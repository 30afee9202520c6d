#!/usr/bin/env bash
# Where each proxy's CPU goes, the kernel included: HTTP/1.1 load (wrk) through Fulcrum, HAProxy
# and NGINX in turn, on compare.sh's backends and configs, each proxy sampled by `perf record`
# (cpu-clock, every thread of its processes) while the load runs. Prints, per proxy and round:
# req/s, CPU per request (from /proc) split into kernel and user space (from perf), context
# switches per 1,000 requests; then the top user-space symbols of each proxy (Fulcrum's compiled
# Java named through the JVM's perf map). JFR sees only Java frames and puts some of their time on
# the wrong line; this sees every cycle the process spends. Latency is not reported: sampling a
# JVM's many threads lengthens its tail more than the others' (p99.9 about 10 ms under perf, 3.5-6
# without), so compare latency with compare.sh.
#
#   loadtest/perf.sh                          # wrk -c50, one worker each
#   CONNS=200 WORKERS=2 ROUNDS=2 loadtest/perf.sh
#
# Needs perf (Debian: linux-perf) and root, or kernel.perf_event_paranoid <= 1. Installs nothing.
# Starts only its own processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

CONNS=${CONNS:-50}
WORKERS=${WORKERS:-1}
ROUNDS=${ROUNDS:-1}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
RUN_SECONDS=${RUN_SECONDS:-10}
PROXIES=${PROXIES:-fulcrum haproxy nginx}
TOP=${TOP:-12}

# shellcheck source=loadtest/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
OUT_DIR=${OUT_DIR:-$REPO_DIR/target/perf}
for p in $PROXIES; do
  case $p in fulcrum|haproxy|nginx) ;; *) die "PROXIES: '$p' is not fulcrum, haproxy or nginx" ;; esac
done
check_tools wrk perf java curl nginx haproxy || exit 2
WITH_GRPC_BACKEND=0
own_workdir perf
mkdir -p "$OUT_DIR"

# wrk's summary in one parseable line.
cat > "$WORKDIR/summary.lua" <<'EOF'
done = function(summary, latency, requests)
  io.write(string.format("requests %d seconds %.3f\n", summary.requests, summary.duration / 1e6))
end
EOF

# switches PID...: voluntary and involuntary context switches summed over every thread.
switches() {
  local p
  for p in "$@"; do
    cat /proc/"$p"/task/*/status 2>/dev/null
  done | awk '/^voluntary_ctxt_switches/ { v += $2 } /^nonvoluntary_ctxt_switches/ { n += $2 } END { print v + 0, n + 0 }'
}

field() { # field NAME LINE: the value after NAME in wrk's summary line
  awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$2"
}

TABLE="$WORKDIR/table.tsv"
SYMBOLS="$OUT_DIR/symbols.txt"
: > "$TABLE"
: > "$SYMBOLS"
start_backends
for round in $(seq 1 "$ROUNDS"); do
  for proxy in $PROXIES; do
    case $proxy in
      fulcrum)
        start_fulcrum "$WORKERS" -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit
        pid=$FULCRUM_PID port=$PORT_FULCRUM_H1 ;;
      haproxy) start_haproxy "$WORKERS"; pid=$HAPROXY_PID port=$PORT_HAPROXY_H1 ;;
      nginx) start_nginx "$WORKERS" "$CONNS"; pid=$NGINX_PID port=$PORT_NGINX_H1 ;;
    esac
    url="http://127.0.0.1:$port/"
    pinned "$LOAD_CPUS" timeout --kill-after=5 $((WARMUP_SECONDS + 30)) \
      wrk -t1 "-c$CONNS" "-d${WARMUP_SECONDS}s" "$url" >/dev/null 2>&1 || true
    mapfile -t pids < <(process_tree "$pid")
    data="$OUT_DIR/perf-$proxy-$round.data"
    read -r v0 n0 <<<"$(switches "${pids[@]}")"
    c0=$(cpu_ticks "$pid")
    perf record -q -e cpu-clock -F 999 -p "$(IFS=,; echo "${pids[*]}")" -o "$data" -- sleep "$RUN_SECONDS" \
      >/dev/null 2>&1 &
    perf_pid=$!
    summary=$(pinned "$LOAD_CPUS" timeout --kill-after=5 $((RUN_SECONDS + 30)) \
      wrk -t1 "-c$CONNS" "-d${RUN_SECONDS}s" -s "$WORKDIR/summary.lua" "$url" 2>&1 | tail -1) || true
    wait "$perf_pid" || true
    c1=$(cpu_ticks "$pid")
    read -r v1 n1 <<<"$(switches "${pids[@]}")"
    stop_pid "$pid" "$proxy" # the JVM writes /tmp/perf-PID.map as it exits
    forget_pid "$pid"
    requests=$(field requests "$summary")
    [ -n "$requests" ] && [ "$requests" -gt 0 ] || die "$proxy: no requests completed ($summary)"
    set +o pipefail
    kernel=$(perf report -i "$data" --no-children --sort dso --stdio 2>/dev/null \
      | awk '/\[kernel\.kallsyms\]/ { sub("%", "", $1); print $1; exit }')
    {
      echo "## $proxy, round $round: top user-space symbols (share of all its samples)"
      perf report -i "$data" --no-children --sort sym --stdio 2>/dev/null \
        | grep -F '[.]' | head -"$TOP" | sed -E 's/\(.*//; s/ +/ /g'
      echo
    } >> "$SYMBOLS"
    set -o pipefail
    rm -f "/tmp/perf-$pid.map"
    awk -v p="$proxy" -v r="$round" -v n="$requests" -v s="$(field seconds "$summary")" \
      -v c=$((c1 - c0)) -v hz="$CLK_TCK" -v k="${kernel:-0}" -v dv=$((v1 - v0)) -v dn=$((n1 - n0)) 'BEGIN {
        us = c / hz * 1e6 / n
        printf "%s\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.1f\n", p, r, n / s,
          us, us * k / 100, us * (100 - k) / 100, dv * 1000 / n, dn * 1000 / n }' >> "$TABLE"
    log "$proxy, round $round: $(tail -1 "$TABLE" | cut -f3) req/s, $(tail -1 "$TABLE" | cut -f4) us CPU per request"
  done
done

{
  echo "# perf.sh: HTTP/1.1, wrk -t1 -c$CONNS, $WORKERS worker(s) each, $ROUNDS round(s) of ${RUN_SECONDS} s after ${WARMUP_SECONDS} s of warm-up, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# CPU: user+system of the proxy's processes (/proc) per request; kernel/user: split by perf's cpu-clock samples"
  echo
  {
    printf 'proxy\tround\treq/s\tCPU us/req\tkernel us\tuser us\tvoluntary sw/1k req\tinvoluntary sw/1k req\n'
    cat "$TABLE"
  } | column -t -s $'\t'
} | tee "$OUT_DIR/summary.txt"
echo
cat "$SYMBOLS"
log "perf data: $OUT_DIR/perf-*.data (perf report -i FILE; Fulcrum's Java symbols need the JVM's map, gone with the run)"
