#!/usr/bin/env bash
# Where each proxy's CPU goes, the kernel included: HTTP/1.1 load (wrk) or HTTP/2 load (h2load,
# h2c) through Fulcrum, HAProxy and NGINX in turn, on compare.sh's backends and configs, each proxy sampled by `perf record`
# (cpu-clock, every thread of its processes) while the load runs. Prints, per proxy and round:
# req/s, CPU per request (from /proc), its split into kernel and user space (from perf), system
# calls per request (reads, writes, polls, all; from the kernel's syscall tracepoints), context
# switches per 1,000 requests; then the top user-space symbols of each proxy (Fulcrum's compiled
# Java named through the JVM's perf map). JFR sees only Java frames and puts some of their time on
# the wrong line; this sees every cycle the process spends. perf costs the process it watches CPU
# (per sample, per system call counted, per context switch of a watched thread: 0.7-5.8 µs per
# HTTP/1.1 request here, most for the proxy with the most calls), so each proxy first runs a window
# without perf, which gives the CPU per request and context switches to compare, then one under
# perf for the split, the system calls and the symbols. Latency is not reported (perf lengthens the JVM's tail
# more than the others'): compare latency with compare.sh.
#
#   loadtest/perf.sh                          # HTTP/1.1, wrk -c50, one worker each
#   CONNS=200 WORKERS=2 ROUNDS=2 loadtest/perf.sh
#   TEST=h2 loadtest/perf.sh                  # HTTP/2, h2load -c10 -m10
#   TEST=h1close loadtest/perf.sh             # HTTP/1.1, a connection per request (Connection: close)
#
# Needs perf (Debian: linux-perf) and root, or kernel.perf_event_paranoid <= 1. Installs nothing.
# Starts only its own processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

TEST=${TEST:-h1}
CONNS=${CONNS:-50}       # wrk's connections (HTTP/1.1)
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
case $TEST in
  h1|h1close) check_tools wrk perf java curl nginx haproxy || exit 2 ;;
  h2) check_tools h2load perf java curl nginx haproxy || exit 2 ;;
  *) die "TEST must be h1, h1close or h2 (not '$TEST')" ;;
esac
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

load() { # load SECONDS URL [SUMMARY]: the load; with SUMMARY, prints "requests N seconds S"
  local seconds=$1 url=$2 out
  if [ "$TEST" != h2 ]; then
    local close=()
    [ "$TEST" = h1close ] && close=(-H 'Connection: close')
    out=$(pinned "$LOAD_CPUS" timeout --kill-after=5 $((seconds + 30)) \
      wrk -t1 "-c$CONNS" "-d${seconds}s" "${close[@]}" -s "$WORKDIR/summary.lua" "$url" 2>&1) || true
    tail -1 <<<"$out"
  else
    out=$(pinned "$LOAD_CPUS" timeout --kill-after=5 $((seconds + 30)) \
      h2load -c10 -m10 -t1 -D "$seconds" "$url" 2>&1) || true
    awk '/^finished in/ { s = $3 + 0 } /^requests:/ { n = $8 } END { printf "requests %d seconds %.3f\n", n, s }' <<<"$out"
  fi
}

field() { # field NAME LINE: the value after NAME in the load's summary line
  awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$2"
}

# System calls counted by kind (perf stat on the syscall tracepoints this kernel has).
TRACING=/sys/kernel/tracing/events/syscalls
[ -d "$TRACING" ] || TRACING=/sys/kernel/debug/tracing/events/syscalls
declare -A KIND=([read]=reads [recvfrom]=reads [readv]=reads [recvmsg]=reads
  [write]=writes [writev]=writes [sendto]=writes [sendmsg]=writes
  [epoll_wait]=polls [epoll_pwait]=polls [epoll_pwait2]=polls)
SYSCALL_EVENTS=raw_syscalls:sys_enter
for call in "${!KIND[@]}"; do
  [ -d "$TRACING/sys_enter_$call" ] && SYSCALL_EVENTS+=",syscalls:sys_enter_$call"
done

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
      haproxy)
        start_haproxy "$WORKERS"; pid=$HAPROXY_PID port=$PORT_HAPROXY_H1
        [ "$TEST" = h2 ] && port=$PORT_HAPROXY_H2 ;;
      nginx)
        start_nginx "$WORKERS" "$CONNS"; pid=$NGINX_PID port=$PORT_NGINX_H1
        [ "$TEST" = h2 ] && port=$PORT_NGINX_H2 ;;
    esac
    url="http://127.0.0.1:$port/"
    load "$WARMUP_SECONDS" "$url" >/dev/null
    mapfile -t pids < <(process_tree "$pid")
    data="$OUT_DIR/perf-$proxy-$round.data"
    # First a window without perf: the CPU and context switches per request perf does not inflate.
    read -r v0 n0 <<<"$(switches "${pids[@]}")"
    c0=$(cpu_ticks "$pid")
    plain=$(load "$RUN_SECONDS" "$url")
    c1=$(cpu_ticks "$pid")
    read -r v1 n1 <<<"$(switches "${pids[@]}")"
    # Then the same window sampled and counted.
    m0=$(cpu_ticks "$pid")
    perf record -q -e cpu-clock -F 999 -p "$(IFS=,; echo "${pids[*]}")" -o "$data" -- sleep "$RUN_SECONDS" \
      >/dev/null 2>&1 &
    perf_pid=$!
    perf stat -x, -e "$SYSCALL_EVENTS" -p "$(IFS=,; echo "${pids[*]}")" -o "$WORKDIR/syscalls.csv" \
      -- sleep "$RUN_SECONDS" >/dev/null 2>&1 &
    stat_pid=$!
    summary=$(load "$RUN_SECONDS" "$url")
    wait "$perf_pid" || true
    wait "$stat_pid" || true
    # reads writes polls all, summed from perf stat's CSV (value,unit,event,...)
    calls=$(awk -F, -v kinds="$(for c in "${!KIND[@]}"; do printf '%s=%s ' "$c" "${KIND[$c]}"; done)" '
      BEGIN { n = split(kinds, kv, " "); for (i = 1; i <= n; i++) { split(kv[i], p, "="); kind[p[1]] = p[2] } }
      $3 == "raw_syscalls:sys_enter" { sum["all"] += $1 }
      $3 ~ /^syscalls:sys_enter_/ { c = $3; sub("syscalls:sys_enter_", "", c); sum[kind[c]] += $1 }
      END { printf "%d %d %d %d", sum["reads"], sum["writes"], sum["polls"], sum["all"] }' "$WORKDIR/syscalls.csv")
    read -r sr sw sp sa <<<"$calls"
    m1=$(cpu_ticks "$pid")
    stop_pid "$pid" "$proxy" # the JVM writes /tmp/perf-PID.map as it exits
    forget_pid "$pid"
    requests=$(field requests "$plain")
    monitored=$(field requests "$summary")
    [ -n "$requests" ] && [ "$requests" -gt 0 ] && [ -n "$monitored" ] && [ "$monitored" -gt 0 ] \
      || die "$proxy: no requests completed ($plain; $summary)"
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
    awk -v p="$proxy" -v r="$round" -v n="$requests" -v s="$(field seconds "$plain")" -v m="$monitored" \
      -v c=$((c1 - c0)) -v mc=$((m1 - m0)) -v hz="$CLK_TCK" -v k="${kernel:-0}" -v dv=$((v1 - v0)) \
      -v dn=$((n1 - n0)) -v sr="$sr" -v sw="$sw" -v sp="$sp" -v sa="$sa" 'BEGIN {
        us = c / hz * 1e6 / n
        mus = mc / hz * 1e6 / m
        printf "%s\t%d\t%.0f\t%.1f\t%.1f\t%.1f\t%.1f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.1f\n", p, r, n / s,
          us, mus, mus * k / 100, mus * (100 - k) / 100, sr / m, sw / m, sp / m, sa / m, dv * 1000 / n, dn * 1000 / n }' \
      >> "$TABLE"
    log "$proxy, round $round: $(tail -1 "$TABLE" | cut -f3) req/s, $(tail -1 "$TABLE" | cut -f4) us CPU per request"
  done
done

{
  what="HTTP/1.1, wrk -t1 -c$CONNS"
  [ "$TEST" = h1close ] && what="HTTP/1.1, a connection per request, wrk -t1 -c$CONNS -H 'Connection: close'"
  [ "$TEST" = h2 ] && what="HTTP/2 (h2c), h2load -c10 -m10 -t1"
  echo "# perf.sh: $what, $WORKERS worker(s) each, $ROUNDS round(s) of ${RUN_SECONDS} s after ${WARMUP_SECONDS} s of warm-up, $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "# req/s, CPU us/req (user+system of the proxy's processes from /proc) and context switches: a window without perf;"
  echo "# then a window under perf: its CPU us/req (perf's own cost included), split into kernel and user space by"
  echo "# perf's cpu-clock samples, and system calls per request from the syscall tracepoints"
  echo
  {
    printf 'proxy\tround\treq/s\tCPU us/req\tunder perf\tkernel us\tuser us\treads/req\twrites/req\tpolls/req\tsyscalls/req\tvoluntary sw/1k req\tinvoluntary sw/1k req\n'
    cat "$TABLE"
  } | column -t -s $'\t'
} | tee "$OUT_DIR/summary.txt"
echo
cat "$SYMBOLS"
log "perf data: $OUT_DIR/perf-*.data (perf report -i FILE; Fulcrum's Java symbols need the JVM's map, gone with the run)"
