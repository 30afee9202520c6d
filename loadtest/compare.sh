#!/usr/bin/env bash
# Fulcrum side by side with HAProxy and NGINX: the same backends, the same load generators, on
# loopback, in interleaved rounds; writes loadtest/RESULTS.md. See loadtest/README.md.
#
#   loadtest/compare.sh            # the full run (about 25 minutes with the defaults)
#   loadtest/compare.sh --quick    # a few seconds per round, for developing the script itself
#
# Installs nothing. Starts only its own processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

usage() {
  cat <<'EOF'
usage: loadtest/compare.sh [--quick] [--help]

Environment (defaults in brackets):
  ROUND_SECONDS   length of one measured run [15]        ROUNDS          interleaved rounds [3]
  WARMUP_SECONDS  load on each proxy before measuring [15] (a fresh JVM needs about 10 s)
  CHURN_SECONDS   then new connections, one request each, on each protocol measured
                  [half of WARMUP_SECONDS]: each run opens its connections anew
  WORKERS         worker counts to compare ["1 2"]: Fulcrum --instances N, HAProxy nbthread N,
                  NGINX worker_processes N
  TESTS           ["h1-c50 h1-c200 h2 grpc"]               DIRECT          also measure the bare
                  backend as a ceiling [1]
                  more tests, not run unless named: h1close-cN (HTTP/1.1, a connection per
                  request: wrk -H 'Connection: close'), https-cN (HTTP/1.1 over TLS 1.3, keep-alive),
                  h2tls (HTTP/2 over TLS 1.3, ALPN h2); N = wrk's connections
  WRK_THREADS [1]  H2_CLIENTS [10]  H2_STREAMS [10]  BACKENDS [4]  BACKEND_WORKERS [1 on <=4 cores]
  FULCRUM_JAR [target/fulcrum.jar]  FULCRUM_JVM_OPTS [see common.sh]  BASE_PORT [18000]
  PROXY_CPUS, LOAD_CPUS, BACKEND_CPUS   optional taskset CPU lists (recommended on >= 8 cores)
  AFFINITY [0]  1: every proxy pins each of its threads to one CPU (of PROXY_CPUS, else of all):
                Fulcrum FULCRUM_CPU_AFFINITY=auto, HAProxy cpu-map, NGINX worker_cpu_affinity
  RESULTS_FILE [loadtest/RESULTS.md]    MACHINE_NOTE  a sentence printed above the figures
  KEEP_WORKDIR=1  keep the temp dir (configs, logs, raw outputs)
--quick sets ROUND_SECONDS=3 ROUNDS=1 WARMUP_SECONDS=5 unless they are set.
EOF
}

QUICK=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    -h|--help) usage; exit 0 ;;
    *) echo "compare.sh: unknown argument '$a'" >&2; usage >&2; exit 2 ;;
  esac
done
if [ "$QUICK" = 1 ]; then
  ROUND_SECONDS=${ROUND_SECONDS:-3}
  ROUNDS=${ROUNDS:-1}
  WARMUP_SECONDS=${WARMUP_SECONDS:-5}
fi
ROUND_SECONDS=${ROUND_SECONDS:-15}
ROUNDS=${ROUNDS:-3}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
CHURN_SECONDS=${CHURN_SECONDS:-$((WARMUP_SECONDS / 2))}
WORKERS=${WORKERS:-1 2}
TESTS=${TESTS:-h1-c50 h1-c200 h2 grpc}
DIRECT=${DIRECT:-1}
WRK_THREADS=${WRK_THREADS:-1}
H2_CLIENTS=${H2_CLIENTS:-10}
H2_STREAMS=${H2_STREAMS:-10}

# shellcheck source=loadtest/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
RESULTS_FILE=${RESULTS_FILE:-$LOADTEST_DIR/RESULTS.md}
MACHINE_NOTE=${MACHINE_NOTE:-}

for t in $TESTS; do
  case $t in
    h1-c[0-9]*|h1close-c[0-9]*|https-c[0-9]*|h2|h2tls|grpc) ;;
    *) die "TESTS: unknown test '$t' (h1-cN, h1close-cN, https-cN, h2, h2tls, grpc)" ;;
  esac
done
check_tools wrk h2load haproxy nginx java curl ss openssl || exit 2
ports=("$PORT_GRPC_BACKEND" "$PORT_HAPROXY_H1" "$PORT_HAPROXY_H2" "$PORT_HAPROXY_GRPC" "$PORT_HAPROXY_TLS"
  "$PORT_NGINX_H1" "$PORT_NGINX_H2" "$PORT_NGINX_GRPC" "$PORT_NGINX_TLS"
  "$PORT_FULCRUM_H1" "$PORT_FULCRUM_GRPC" "$PORT_FULCRUM_TLS" "$PORT_FULCRUM_CONTROL")
for i in $(seq 1 "$BACKENDS"); do ports+=($((PORT_BACKEND0 + i))); done
check_ports_free "${ports[@]}"
[ -f "$FULCRUM_JAR" ] || die "$FULCRUM_JAR not found: build it first (mvn -B -q package -DskipTests)"

WORKDIR=$(mktemp -d /tmp/fulcrum-compare.XXXXXX)
chmod 755 "$WORKDIR"
RAW="$WORKDIR/raw"
mkdir -p "$RAW"
TSV="$WORKDIR/results.tsv"
: >"$TSV"

cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  stop_all
  if [ "${KEEP_WORKDIR:-0}" = 1 ]; then
    log "kept $WORKDIR"
  else
    rm -rf "$WORKDIR"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

GRPC_REQ="$WORKDIR/grpc-request.bin"
write_grpc_request "$GRPC_REQ"
GRPC_PATH=/grpc.testing.TestService/UnaryCall
# h2load's arguments for one unary call (its commands run through eval: the quotes hold)
GRPC_CALL="-d $GRPC_REQ -H 'content-type: application/grpc' -H 'te: trailers'"
LOADAVG_START=$(cut -d' ' -f1-3 /proc/loadavg)
STARTED_AT=$(date -u '+%Y-%m-%d %H:%M UTC')

# --- the load ---------------------------------------------------------------------------------

wrk_cmd() { # wrk_cmd CONNS SECONDS URL [close]: "close" asks for a new connection per request
  echo "wrk -t$WRK_THREADS -c$1 -d${2}s --latency${4:+ -H 'Connection: close'} $3"
}
h2_cmd() { # h2_cmd SECONDS URL [LOGFILE]
  echo "h2load -c$H2_CLIENTS -m$H2_STREAMS -t1 -D $1${3:+ --log-file=$3} $2"
}
grpc_cmd() { # grpc_cmd SECONDS URL [LOGFILE]
  echo "h2load -c$H2_CLIENTS -m$H2_STREAMS -t1 -D $1${3:+ --log-file=$3} $GRPC_CALL $2$GRPC_PATH"
}

# Runs a load command, bounded, under LOAD_CPUS; output to a file.
run_load() { # run_load SECONDS OUTFILE COMMAND
  local seconds=$1 out=$2
  shift 2
  # shellcheck disable=SC2046
  eval "pinned \"\$LOAD_CPUS\" timeout --kill-after=5 $((seconds + 30)) $*" >"$out" 2>&1 || true
}

url_of() { # url_of TEST CONTENDER
  local test=$1 who=$2
  case $test in
    h1-*|h1close-*)
      case $who in
        fulcrum) echo "http://127.0.0.1:$PORT_FULCRUM_H1/" ;;
        haproxy) echo "http://127.0.0.1:$PORT_HAPROXY_H1/" ;;
        nginx) echo "http://127.0.0.1:$PORT_NGINX_H1/" ;;
        direct) echo "http://127.0.0.1:$((PORT_BACKEND0 + 1))/" ;;
      esac ;;
    h2)
      case $who in
        fulcrum) echo "http://127.0.0.1:$PORT_FULCRUM_H1/" ;;
        haproxy) echo "http://127.0.0.1:$PORT_HAPROXY_H2/" ;;
        nginx) echo "http://127.0.0.1:$PORT_NGINX_H2/" ;;
      esac ;;
    https-*|h2tls)
      case $who in
        fulcrum) echo "https://127.0.0.1:$PORT_FULCRUM_TLS/" ;;
        haproxy) echo "https://127.0.0.1:$PORT_HAPROXY_TLS/" ;;
        nginx) echo "https://127.0.0.1:$PORT_NGINX_TLS/" ;;
      esac ;;
    grpc)
      case $who in
        fulcrum) echo "http://127.0.0.1:$PORT_FULCRUM_GRPC" ;;
        haproxy) echo "http://127.0.0.1:$PORT_HAPROXY_GRPC" ;;
        nginx) echo "http://127.0.0.1:$PORT_NGINX_GRPC" ;;
        direct) echo "http://127.0.0.1:$PORT_GRPC_BACKEND" ;;
      esac ;;
  esac
}

contenders_of() { # contenders_of TEST
  case $1 in
    h1-*|h1close-*) echo "fulcrum haproxy nginx$([ "$DIRECT" = 1 ] && echo ' direct')" ;;
    h2|h2tls|https-*) echo "fulcrum haproxy nginx" ;;
    grpc) echo "fulcrum haproxy nginx direct" ;;
  esac
}

pid_of() {
  case $1 in
    fulcrum) echo "$FULCRUM_PID" ;;
    haproxy) echo "$HAPROXY_PID" ;;
    nginx) echo "$NGINX_PID" ;;
    *) echo "" ;;
  esac
}

# percentiles LOGFILE: "p50_ms p99_ms max_ms" from h2load's per-request log (3rd column: microseconds).
percentiles() {
  local sorted="$1.sorted" n
  cut -f3 "$1" | sort -n >"$sorted"
  n=$(wc -l <"$sorted")
  if [ "$n" -eq 0 ]; then
    echo "- - -"
  else
    awk -v n="$n" 'function at(q,  i) { i = int(q * n + 0.999999); if (i < 1) i = 1; return i }
      BEGIN { a = at(0.50); b = at(0.99) }
      NR == a { p50 = $1 / 1000 } NR == b { p99 = $1 / 1000 }
      END { printf "%.3f %.3f %.3f\n", p50, p99, $1 / 1000 }' "$sorted"
  fi
  rm -f "$sorted"
}

# measure WORKERS TEST CONTENDER ROUND SECONDS: one run; appends a line to the TSV.
measure() {
  local w=$1 test=$2 who=$3 round=$4 seconds=$5
  local url out pid c0=0 c1=0 rss="-" hwm="-" rps requests p50 p99 slowest errors logf="" cmd
  url=$(url_of "$test" "$who")
  out="$RAW/w$w-$test-$who-r$round.txt"
  pid=$(pid_of "$who")
  case $test in
    h1-*|https-*) cmd=$(wrk_cmd "${test#*-c}" "$seconds" "$url") ;;
    h1close-*) cmd=$(wrk_cmd "${test#*-c}" "$seconds" "$url" close) ;;
    h2|h2tls) logf="$WORKDIR/h2.log"; cmd=$(h2_cmd "$seconds" "$url" "$logf") ;;
    grpc) logf="$WORKDIR/h2.log"; cmd=$(grpc_cmd "$seconds" "$url" "$logf") ;;
  esac
  [ -n "$pid" ] && c0=$(cpu_ticks "$pid")
  run_load "$seconds" "$out" "$cmd"
  if [ -n "$pid" ]; then
    c1=$(cpu_ticks "$pid")
    rss=$(memory_kb "$pid" VmRSS)
    hwm=$(memory_kb "$pid" VmHWM)
  fi
  case $test in
    h1-*|h1close-*|https-*)
      rps=$(awk '/^Requests\/sec:/ { print $2 }' "$out")
      requests=$(awk '/requests in/ { print $1 }' "$out")
      p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' "$out")")
      p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' "$out")")
      slowest=$(to_ms "$(awk '$1 == "Latency" { print $4; exit }' "$out")")
      errors=$(awk '/Non-2xx or 3xx responses:/ { n += $NF }
        /Socket errors:/ { gsub(/,/, ""); n += $4 + $6 + $8 + $10 } END { print n + 0 }' "$out")
      ;;
    *)
      rps=$(awk '/^finished in/ { print $4 }' "$out")
      requests=$(awk '/^requests:/ { print $8 }' "$out")
      errors=$(awk '/^requests:/ { n += $10 + $12 + $14 }
        /^status codes:/ { n += $5 + $7 + $9 } END { print n + 0 }' "$out")
      read -r p50 p99 slowest < <(percentiles "$logf")
      rm -f "$logf"
      ;;
  esac
  rps=${rps:-0}
  requests=${requests:-0}
  local cpu_us="-"
  if [ -n "$pid" ] && [ "$requests" -gt 0 ]; then
    cpu_us=$(awk -v t=$((c1 - c0)) -v hz="$CLK_TCK" -v n="$requests" 'BEGIN { printf "%.2f", t / hz * 1e6 / n }')
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$w" "$test" "$who" "$round" "$rps" "$requests" \
    "${p50:--}" "${p99:--}" "$errors" "$cpu_us" "$rss" "$hwm" "${slowest:--}" >>"$TSV"
  log "  w$w $test $who r$round: $rps req/s, p50 ${p50:--} ms, p99 ${p99:--} ms, max ${slowest:--} ms, errors $errors, cpu ${cpu_us} us/req, rss $rss kB"
  if [ "$rps" = 0 ]; then
    log "  (no figures: see output below)"
    sed 's/^/    /' "$out" | tail -15 >&2
  fi
}

check_grpc_status() { # the trailer grpc-status: 0 arrives through the path measured
  local url=$1 label=$2
  if command -v nghttp >/dev/null 2>&1; then
    if nghttp -v -d "$GRPC_REQ" -H 'content-type: application/grpc' -H 'te: trailers' "$url$GRPC_PATH" 2>&1 \
      | grep -aq 'grpc-status: 0'; then
      log "gRPC through $label: grpc-status 0 in the trailers"
    else
      log "warning: gRPC through $label: no grpc-status 0 trailer seen"
    fi
  fi
}

# New connections, one request each, for SECONDS: h2load runs of 100 connections again and again.
h2_churn() { # h2_churn SECONDS OUTFILE URL [grpc]
  local end=$((SECONDS + $1)) out=$2 cmd="h2load -c100 -n100 -m1 -t1 $3"
  [ -n "${4:-}" ] && cmd="h2load -c100 -n100 -m1 -t1 $GRPC_CALL $3$GRPC_PATH"
  while [ "$SECONDS" -lt "$end" ]; do
    run_load 10 "$out" "$cmd"
  done
}

# warm_up CONTENDER: WARMUP_SECONDS of each kind of load measured, then CHURN_SECONDS of new
# connections on each protocol measured: every measured run opens its connections anew, and a JVM
# that has set up only the warm-up's few dozen connections has not compiled that path yet (tens
# of ms for a run's first 50, in every run's maximum and 99.9th percentile).
warm_up() {
  local who=$1
  if [[ " $TESTS " == *" h1-"* ]]; then
    run_load "$WARMUP_SECONDS" "$RAW/warmup-$who-h1.txt" "$(wrk_cmd 50 "$WARMUP_SECONDS" "$(url_of h1-c50 "$who")")"
  fi
  if [[ " $TESTS " == *" h1close-"* ]]; then
    run_load "$WARMUP_SECONDS" "$RAW/warmup-$who-h1close.txt" \
      "$(wrk_cmd 50 "$WARMUP_SECONDS" "$(url_of h1close-c50 "$who")" close)"
  fi
  if [[ " $TESTS " == *" https-"* ]]; then
    run_load "$WARMUP_SECONDS" "$RAW/warmup-$who-https.txt" "$(wrk_cmd 50 "$WARMUP_SECONDS" "$(url_of https-c50 "$who")")"
  fi
  if [[ " $TESTS " == *" h2 "* ]]; then
    run_load "$WARMUP_SECONDS" "$RAW/warmup-$who-h2.txt" "$(h2_cmd "$WARMUP_SECONDS" "$(url_of h2 "$who")")"
  fi
  if [[ " $TESTS " == *" h2tls "* ]]; then
    run_load "$WARMUP_SECONDS" "$RAW/warmup-$who-h2tls.txt" "$(h2_cmd "$WARMUP_SECONDS" "$(url_of h2tls "$who")")"
  fi
  if [[ " $TESTS " == *" grpc "* ]]; then
    run_load "$WARMUP_SECONDS" "$RAW/warmup-$who-grpc.txt" "$(grpc_cmd "$WARMUP_SECONDS" "$(url_of grpc "$who")")"
  fi
  [ "$CHURN_SECONDS" -gt 0 ] || return 0
  if [[ " $TESTS " == *" h1-"* || " $TESTS " == *" h1close-"* ]]; then
    run_load "$CHURN_SECONDS" "$RAW/warmup-$who-h1-connections.txt" \
      "$(wrk_cmd 50 "$CHURN_SECONDS" "$(url_of h1close-c50 "$who")" close)"
  fi
  if [[ " $TESTS " == *" https-"* ]]; then
    run_load "$CHURN_SECONDS" "$RAW/warmup-$who-https-connections.txt" \
      "$(wrk_cmd 50 "$CHURN_SECONDS" "$(url_of https-c50 "$who")" close)"
  fi
  if [[ " $TESTS " == *" h2 "* ]]; then
    h2_churn "$CHURN_SECONDS" "$RAW/warmup-$who-h2-connections.txt" "$(url_of h2 "$who")"
  fi
  if [[ " $TESTS " == *" h2tls "* ]]; then
    h2_churn "$CHURN_SECONDS" "$RAW/warmup-$who-h2tls-connections.txt" "$(url_of h2tls "$who")"
  fi
  if [[ " $TESTS " == *" grpc "* ]]; then
    h2_churn "$CHURN_SECONDS" "$RAW/warmup-$who-grpc-connections.txt" "$(url_of grpc "$who")" grpc
  fi
}

# --- the run ------------------------------------------------------------------------------------

log "workdir $WORKDIR; rounds $ROUNDS x ${ROUND_SECONDS}s, warm-up ${WARMUP_SECONDS}s + ${CHURN_SECONDS}s of new connections, workers: $WORKERS, tests: $TESTS"
[ "$WARMUP_SECONDS" -ge 10 ] || log "warning: a warm-up under 10 s leaves Fulcrum's JIT cold (fine for --quick only)"
start_backends
check_grpc_status "http://127.0.0.1:$PORT_GRPC_BACKEND" "the backend"

for w in $WORKERS; do
  keepalive=200
  for t in $TESTS; do case $t in *-c[0-9]*) [ "${t#*-c}" -gt "$keepalive" ] && keepalive=${t#*-c} ;; esac; done
  start_haproxy "$w"
  start_nginx "$w" "$keepalive"
  start_fulcrum "$w"
  check_grpc_status "http://127.0.0.1:$PORT_FULCRUM_GRPC" "Fulcrum"
  check_grpc_status "http://127.0.0.1:$PORT_HAPROXY_GRPC" "HAProxy"
  check_grpc_status "http://127.0.0.1:$PORT_NGINX_GRPC" "NGINX"
  log "warming up (${WARMUP_SECONDS}s of each kind of load on each proxy, then ${CHURN_SECONDS}s of new connections on each protocol)"
  for who in fulcrum haproxy nginx; do warm_up "$who"; done
  for r in $(seq 1 "$ROUNDS"); do
    log "workers $w, round $r of $ROUNDS"
    for t in $TESTS; do
      for who in $(contenders_of "$t"); do
        measure "$w" "$t" "$who" "$r" "$ROUND_SECONDS"
        sleep 1
      done
    done
  done
  FULCRUM_LAST_CMD=$FULCRUM_CMD
  FULCRUM_LAST_TRANSPORT=$FULCRUM_TRANSPORT_USED
  for p in "$FULCRUM_PID" "$HAPROXY_PID" "$NGINX_PID"; do
    stop_pid "$p"
    forget_pid "$p"
  done
done
LOADAVG_END=$(cut -d' ' -f1-3 /proc/loadavg)

# --- the report ---------------------------------------------------------------------------------

# stats W TEST WHO COLUMN: "median min max" of a TSV column ("- - -" when none).
stats() {
  awk -F'\t' -v w="$1" -v t="$2" -v c="$3" -v k="$4" '$1 == w && $2 == t && $3 == c && $k != "-" { print $k }' "$TSV" \
    | sort -g | awk '{ a[NR] = $1 }
      END { if (NR == 0) { print "- - -"; exit }
            m = (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2; print m, a[1], a[NR] }'
}
sum_col() {
  awk -F'\t' -v w="$1" -v t="$2" -v c="$3" -v k="$4" '$1 == w && $2 == t && $3 == c && $k != "-" { n += $k } END { print n + 0 }' "$TSV"
}
max_col() {
  awk -F'\t' -v w="$1" -v t="$2" -v c="$3" -v k="$4" '$1 == w && $2 == t && $3 == c && $k != "-" && $k > m { m = $k } END { print m + 0 }' "$TSV"
}
ratio() { # ratio A B: A/B as 0.00x, or - when either is missing
  awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) print "-"; else printf "%.2f×", a / b }'
}
fmt() { awk -v v="$1" -v d="${2:-0}" 'BEGIN { if (v == "-") print "-"; else printf "%.*f", d, v }'; }
better_rps() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-") print b; else if (b == "-") print a; else print (a > b ? a : b) }'; }
better_lat() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-") print b; else if (b == "-") print a; else print (a < b ? a : b) }'; }

label() {
  case $1 in
    h1-c*) echo "HTTP/1.1, wrk -c${1#h1-c}" ;;
    h1close-c*) echo "HTTP/1.1, a connection per request, wrk -c${1#h1close-c} -H 'Connection: close'" ;;
    https-c*) echo "HTTPS (HTTP/1.1 over TLS 1.3), wrk -c${1#https-c}" ;;
    h2) echo "HTTP/2 (h2c), h2load -c$H2_CLIENTS -m$H2_STREAMS" ;;
    h2tls) echo "HTTP/2 over TLS 1.3, h2load -c$H2_CLIENTS -m$H2_STREAMS" ;;
    grpc) echo "gRPC unary (h2c), h2load -c$H2_CLIENTS -m$H2_STREAMS" ;;
  esac
}
name() {
  case $1 in
    fulcrum) echo "Fulcrum" ;; haproxy) echo "HAProxy" ;; nginx) echo "NGINX" ;;
    direct) echo "direct (no proxy)" ;;
  esac
}

GOALS=""
goal() { # goal TEXT MEASURED MET
  GOALS+="| $1 | $2 | $3 |"$'\n'
}
cmp_goal() { # cmp_goal VALUE OP LIMIT → yes/no/-
  awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN { if (v == "-" || v == "") { print "-"; exit }
    v += 0; ok = (op == ">=") ? (v >= l) : (v <= l); print ok ? "yes" : "**no**" }'
}
strip_x() { echo "${1%×}"; }

tables() {
  local w t who
  for w in $WORKERS; do
    echo "### $w worker(s) each: Fulcrum \`--instances $w\`, HAProxy \`nbthread $w\`, NGINX \`worker_processes $w\`"
    echo
    for t in $TESTS; do
      echo "**$(label "$t")**"
      echo
      local ref
      if [ "$t" = grpc ]; then
        echo "| | req/s median (min-max) | vs direct | vs HAProxy | p50 ms | p99 ms median (min-max) | p99 vs direct | max ms median (min-max) | proxy CPU µs/req | proxy RSS MB (peak) | errors |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|"
      else
        echo "| | req/s median (min-max) | vs HAProxy | vs better of HAProxy/NGINX | p50 ms | p99 ms median (min-max) | p99 vs HAProxy | p99 vs better | max ms median (min-max) | proxy CPU µs/req | proxy RSS MB (peak) | errors |"
        echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
      fi
      local h_rps n_rps h_p99 n_p99 d_rps d_p99
      read -r h_rps _ _ < <(stats "$w" "$t" haproxy 5)
      read -r n_rps _ _ < <(stats "$w" "$t" nginx 5)
      read -r h_p99 _ _ < <(stats "$w" "$t" haproxy 8)
      read -r n_p99 _ _ < <(stats "$w" "$t" nginx 8)
      read -r d_rps _ _ < <(stats "$w" "$t" direct 5)
      read -r d_p99 _ _ < <(stats "$w" "$t" direct 8)
      local best_rps best_p99
      best_rps=$(better_rps "$h_rps" "$n_rps")
      best_p99=$(better_lat "$h_p99" "$n_p99")
      for who in $(contenders_of "$t"); do
        local rps rmin rmax p50 p99 pmin pmax slow smin smax cpu rss hwm errors
        read -r rps rmin rmax < <(stats "$w" "$t" "$who" 5)
        read -r p50 _ _ < <(stats "$w" "$t" "$who" 7)
        read -r p99 pmin pmax < <(stats "$w" "$t" "$who" 8)
        read -r slow smin smax < <(stats "$w" "$t" "$who" 13)
        read -r cpu _ _ < <(stats "$w" "$t" "$who" 10)
        read -r rss _ _ < <(stats "$w" "$t" "$who" 11)
        hwm=$(max_col "$w" "$t" "$who" 12)
        errors=$(sum_col "$w" "$t" "$who" 9)
        local mem="-"
        [ "$rss" != "-" ] && mem="$(fmt "$(awk -v k="$rss" 'BEGIN { print k / 1024 }')") ($(fmt "$(awk -v k="$hwm" 'BEGIN { print k / 1024 }')"))"
        if [ "$t" = grpc ]; then
          echo "| $(name "$who") | $(fmt "$rps") ($(fmt "$rmin")-$(fmt "$rmax")) | $(ratio "$rps" "$d_rps") | $(ratio "$rps" "$h_rps") | $(fmt "$p50" 2) | $(fmt "$p99" 2) ($(fmt "$pmin" 2)-$(fmt "$pmax" 2)) | $(ratio "$p99" "$d_p99") | $(fmt "$slow" 1) ($(fmt "$smin" 1)-$(fmt "$smax" 1)) | $(fmt "$cpu" 1) | $mem | $errors |"
        else
          echo "| $(name "$who") | $(fmt "$rps") ($(fmt "$rmin")-$(fmt "$rmax")) | $(ratio "$rps" "$h_rps") | $(ratio "$rps" "$best_rps") | $(fmt "$p50" 2) | $(fmt "$p99" 2) ($(fmt "$pmin" 2)-$(fmt "$pmax" 2)) | $(ratio "$p99" "$h_p99") | $(ratio "$p99" "$best_p99") | $(fmt "$slow" 1) ($(fmt "$smin" 1)-$(fmt "$smax" 1)) | $(fmt "$cpu" 1) | $mem | $errors |"
        fi
      done
      echo
      # The issue's goals, for this worker count.
      local f_rps f_p99
      read -r f_rps _ _ < <(stats "$w" "$t" fulcrum 5)
      read -r f_p99 _ _ < <(stats "$w" "$t" fulcrum 8)
      case $t in
        h1-*)
          local r p
          r=$(strip_x "$(ratio "$f_rps" "$best_rps")")
          p=$(strip_x "$(ratio "$f_p99" "$best_p99")")
          goal "$w worker(s), $(label "$t"): req/s ≥ 1.0× the better of HAProxy/NGINX" "$r×" "$(cmp_goal "$r" ">=" 1.0)"
          goal "$w worker(s), $(label "$t"): p99 ≤ 1.2× the better of HAProxy/NGINX" "$p×" "$(cmp_goal "$p" "<=" 1.2)"
          ;;
        h2)
          r=$(strip_x "$(ratio "$f_rps" "$h_rps")")
          goal "$w worker(s), $(label "$t"): req/s ≥ 1.0× HAProxy" "$r×" "$(cmp_goal "$r" ">=" 1.0)"
          ;;
        grpc)
          r=$(strip_x "$(ratio "$f_rps" "$d_rps")")
          # What the other proxies reach on the same load says how far the goal is reachable here.
          goal "$w worker(s), $(label "$t"): req/s ≥ 0.7× direct" \
            "$r× (HAProxy $(ratio "$h_rps" "$d_rps"), NGINX $(ratio "$n_rps" "$d_rps"))" "$(cmp_goal "$r" ">=" 0.7)"
          ;;
      esac
      if [ "$t" = h1-c50 ]; then
        local f_rss h_rss
        read -r f_rss _ _ < <(stats "$w" "$t" fulcrum 11)
        read -r h_rss _ _ < <(stats "$w" "$t" haproxy 11)
        r=$(strip_x "$(ratio "$f_rss" "$h_rss")")
        goal "$w worker(s): RSS under load (wrk -c50) ≤ 3× HAProxy's" "$r×" "$(cmp_goal "$r" "<=" 3.0)"
      fi
    done
  done
}

versions() {
  echo "| Tool | Version |"
  echo "|---|---|"
  echo "| wrk | $(wrk -v 2>&1 | head -1 | sed 's/ Copyright.*//') |"
  echo "| h2load | $(h2load --version 2>&1 | head -1) |"
  echo "| HAProxy | $(haproxy -v 2>&1 | head -1 | sed 's/ - https.*//') |"
  echo "| NGINX | $(nginx -v 2>&1 | head -1 | sed 's/^nginx version: //') |"
  echo "| Java | $(java -version 2>&1 | sed -n 2p) |"
  echo "| Fulcrum | $(git -C "$REPO_DIR" describe --always --dirty 2>/dev/null || echo unknown) ($(basename "$FULCRUM_JAR"), built $(date -u -r "$FULCRUM_JAR" '+%Y-%m-%d %H:%M UTC')) |"
}

machine() {
  local model mem
  model=$(awk -F': *' '/^model name/ { print $2; exit }' /proc/cpuinfo)
  mem=$(awk '/^MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo)
  echo "- CPU: $model, $NPROC logical CPUs; memory $mem; $(uname -sr)"
  echo "- load average at start: $LOADAVG_START; at end: $LOADAVG_END"
  if [ -n "$PROXY_CPUS$LOAD_CPUS$BACKEND_CPUS" ]; then
    echo "- pinning: proxies on CPUs ${PROXY_CPUS:-any}, load generators on ${LOAD_CPUS:-any}, backends on ${BACKEND_CPUS:-any}"
  else
    echo "- no taskset: proxies, load generators and backends share every CPU"
  fi
  if [ "$AFFINITY" = 1 ]; then
    echo "- each proxy's threads pinned one per CPU (AFFINITY=1): Fulcrum \`FULCRUM_CPU_AFFINITY=auto\` (its event loops), HAProxy \`cpu-map auto:1/1-N\` on the first N of CPUs $(proxy_cpu_list), NGINX \`worker_cpu_affinity auto $(cpu_mask_of "$(proxy_cpu_list)")\`"
  else
    echo "- proxies' threads placed by the kernel (AFFINITY=0: no FULCRUM_CPU_AFFINITY, cpu-map or worker_cpu_affinity)"
  fi
}

report() {
  echo "<!-- compare.sh: begin (this block is rewritten by loadtest/compare.sh; edit outside it) -->"
  echo "## Side by side: compare.sh, $STARTED_AT"
  echo
  if [ -n "$MACHINE_NOTE" ]; then
    echo "> **$MACHINE_NOTE**"
    echo
  fi
  if [ "$QUICK" = 1 ] || [ "$ROUND_SECONDS" -lt 10 ] || [ "$WARMUP_SECONDS" -lt 10 ]; then
    echo "> Short run (rounds of ${ROUND_SECONDS} s, warm-up ${WARMUP_SECONDS} s): indicative only."
    echo
  fi
  echo "Rounds: $ROUNDS interleaved (every proxy once per test per round, in the order listed), ${ROUND_SECONDS} s each, after a warm-up of ${WARMUP_SECONDS} s of each kind of load (HTTP/1.1, HTTP/2, and gRPC for Fulcrum) on each proxy, then ${CHURN_SECONDS} s of new connections with one request each on each protocol measured (each run opens its connections anew; without this, a JVM sets up a run's first connections before the JIT has compiled that path). Medians over rounds, min-max in brackets. Ratios: Fulcrum's median over the reference's median (req/s: higher is better; latency: lower is better). Max: each run's slowest request (wrk's latency maximum; h2load's per-request log), median over rounds. Proxy CPU: user+system time of the proxy's processes (/proc/PID/stat) over the run, divided by the requests completed; RSS: VmRSS after the run (VmHWM in brackets), summed over the proxy's processes."
  echo
  echo "**Machine**"
  echo
  machine
  echo
  versions
  echo
  tables
  echo "**Goals of the issue (this run)**"
  echo
  echo "| Goal | Measured | Met |"
  echo "|---|---|---|"
  printf '%s' "$GOALS"
  echo
  echo "**How it ran**"
  echo
  echo "- Backends: $BACKENDS NGINX servers (\`worker_processes $BACKEND_WORKERS\`, [backends.nginx.conf](backends.nginx.conf)) answering 200 with a 100-byte body; the gRPC backend [GrpcBackend.java](GrpcBackend.java) ($GRPC_BACKEND_LOOPS event loop(s)) echoing one framed message with \`grpc-status: 0\`."
  echo "- HAProxy: [haproxy.cfg](haproxy.cfg), \`haproxy -db -f haproxy.cfg\`. NGINX: [nginx.conf](nginx.conf), \`nginx -c nginx.conf -g 'daemon off;'\`, upstream \`keepalive\` = the largest client count. Fulcrum: [fulcrum.yaml.template](fulcrum.yaml.template), \`${FULCRUM_LAST_CMD:-java ... -jar target/fulcrum.jar --config fulcrum.yaml --instances N}\`."
  echo "- Fulcrum JVM: \`$FULCRUM_JVM_OPTS\` (serial GC, 64 MB fixed heap). \`$FULCRUM_BENCH_PROPS\`: ALB's GOAWAY after 10,000 requests per HTTP/2 connection is lifted, because h2load does not reconnect after a GOAWAY (NGINX's \`keepalive_requests\`, which also counts HTTP/2 requests, is raised to 10,000,000; HAProxy has no such limit). Network transport: ${FULCRUM_LAST_TRANSPORT:-?} (\`FULCRUM_TRANSPORT\`; HAProxy and NGINX use epoll).${FULCRUM_DIRECT_PATH:+ Environment: \`FULCRUM_DIRECT_PATH=$FULCRUM_DIRECT_PATH\`.}"
  echo "- HTTP/1.1: \`$(wrk_cmd N "$ROUND_SECONDS" URL)\` with N = 50 and 200; the direct row is one backend without a proxy."
  echo "- HTTP/2: \`$(h2_cmd "$ROUND_SECONDS" URL LOG)\`; p50/p99 from h2load's per-request log. HTTP/1.1 to the backends."
  echo "- gRPC: \`$(grpc_cmd "$ROUND_SECONDS" URL LOG)\` (one 17-byte framed message), through Fulcrum (target group protocol version GRPC, HTTP/2 to the backend) and straight to the backend."
  if [[ " $TESTS " == *" h1close-"* ]]; then
    echo "- A connection per request: \`$(wrk_cmd N "$ROUND_SECONDS" URL close)\`: each request on a new TCP connection, which the proxy closes after the response (keep-alive to the backends as before)."
  fi
  if [[ " $TESTS " == *" https-"* || " $TESTS " == *" h2tls "* ]]; then
    echo "- HTTPS: one self-signed ECDSA P-256 certificate on all three; TLS 1.3 negotiated by each (Fulcrum's listener on \`ELBSecurityPolicy-TLS13-1-2-2021-06\`, HAProxy and NGINX on their defaults, TLS 1.2-1.3), ALPN h2 and http/1.1; wrk and h2load over OpenSSL, one handshake per connection. HTTP/1.1 to the backends."
  fi
  echo
  echo "<details><summary>Every run (workers, test, proxy, round, req/s, requests, p50 ms, p99 ms, errors, CPU µs/req, RSS kB, HWM kB, max ms)</summary>"
  echo
  echo '```'
  cat "$TSV"
  echo '```'
  echo "</details>"
  echo "<!-- compare.sh: end -->"
}

BLOCK="$WORKDIR/block.md"
report >"$BLOCK"
if [ -f "$RESULTS_FILE" ] && grep -q '<!-- compare.sh: begin' "$RESULTS_FILE"; then
  awk -v blk="$BLOCK" '
    /<!-- compare.sh: begin/ { while ((getline l < blk) > 0) print l; skip = 1; next }
    /<!-- compare.sh: end/ { skip = 0; next }
    !skip { print }' "$RESULTS_FILE" >"$WORKDIR/results.new"
  cat "$WORKDIR/results.new" >"$RESULTS_FILE"
else
  {
    [ -f "$RESULTS_FILE" ] && cat "$RESULTS_FILE" && echo
    [ -f "$RESULTS_FILE" ] || printf '# Load test results\n\n'
    cat "$BLOCK"
  } >"$WORKDIR/results.new"
  cat "$WORKDIR/results.new" >"$RESULTS_FILE"
fi
log "wrote $RESULTS_FILE"
sed -n '/^### /,/^\*\*How it ran/p' "$BLOCK" >&2
