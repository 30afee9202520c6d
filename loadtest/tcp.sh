#!/usr/bin/env bash
# A network load balancer's TCP listener side by side with HAProxy (mode tcp) and NGINX (stream):
# the same NGINX backends as compare.sh, HTTP/1.1 carried through each TCP relay by wrk, in
# interleaved rounds, one worker each. Two loads: keep-alive (-c50: fifty long flows, the relay's
# cost per byte) and a new connection per request (Connection: close: the cost of a flow's set-up
# and end). Two more loads, not run unless asked for: the same two over TLS (a TLS listener, HAProxy
# `bind ... ssl`, NGINX `listen ... ssl`, one self-signed ECDSA P-256 certificate for all three, TLS 1.3
# where the client has it: Fulcrum with ELBSecurityPolicy-TLS13-1-2-2021-06):
# `tls` (the cost of the records) and `tls-close` (a handshake per request). Prints a table; see
# loadtest/README.md and RESULTS.md.
#
#   loadtest/tcp.sh            # about 8 minutes with the defaults
#   loadtest/tcp.sh --quick    # a few seconds per round, to try the script
#   LOADS="tls tls-close" loadtest/tcp.sh   # TLS listeners
#
# Needs NGINX's stream module (Debian: libnginx-mod-stream). Installs nothing. Starts only its own
# processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

QUICK=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,17p' "$0"; echo "Environment: ROUND_SECONDS [10] ROUNDS [3] WARMUP_SECONDS [15] CONNS [50] LOADS [keepalive close] BASE_PORT [18000]"; exit 0 ;;
    *) echo "tcp.sh: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
if [ "$QUICK" = 1 ]; then
  ROUND_SECONDS=${ROUND_SECONDS:-3}
  ROUNDS=${ROUNDS:-1}
  WARMUP_SECONDS=${WARMUP_SECONDS:-5}
fi
ROUND_SECONDS=${ROUND_SECONDS:-10}
ROUNDS=${ROUNDS:-3}
WARMUP_SECONDS=${WARMUP_SECONDS:-15}
CONNS=${CONNS:-50}
LOADS=${LOADS:-keepalive close}
WITH_GRPC_BACKEND=0

# shellcheck source=loadtest/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
check_tools wrk haproxy nginx java curl ss || exit 2
TLS=0
for load in $LOADS; do
  case $load in
    keepalive|close) ;;
    tls|tls-close) TLS=1 ;;
    *) die "LOADS: '$load' is not keepalive, close, tls or tls-close" ;;
  esac
done
[ "$TLS" = 0 ] || check_tools openssl || exit 2
STREAM_MODULE=${STREAM_MODULE:-/usr/lib/nginx/modules/ngx_stream_module.so}
[ -f "$STREAM_MODULE" ] || die "NGINX's stream module is missing ($STREAM_MODULE): apt-get install libnginx-mod-stream"

PORT_FULCRUM_TCP=$((BASE_PORT + 501))
PORT_HAPROXY_TCP=$((BASE_PORT + 502))
PORT_NGINX_TCP=$((BASE_PORT + 503))
PORT_FULCRUM_TLS=$((BASE_PORT + 504))
PORT_HAPROXY_TLS=$((BASE_PORT + 505))
PORT_NGINX_TLS=$((BASE_PORT + 506))
PORT_CONTROL=$((BASE_PORT + 590))
ports=("$PORT_FULCRUM_TCP" "$PORT_HAPROXY_TCP" "$PORT_NGINX_TCP" "$PORT_CONTROL")
[ "$TLS" = 0 ] || ports+=("$PORT_FULCRUM_TLS" "$PORT_HAPROXY_TLS" "$PORT_NGINX_TLS")
for i in $(seq 1 "$BACKENDS"); do ports+=($((PORT_BACKEND0 + i))); done
check_ports_free "${ports[@]}"
WORKDIR=$(mktemp -d /tmp/fulcrum-tcp.XXXXXX)
chmod 755 "$WORKDIR"
trap remove_workdir EXIT
trap 'exit 130' INT TERM

start_backends

targets=""
haproxy_servers=""
nginx_servers=""
for i in $(seq 1 "$BACKENDS"); do
  targets+="      - {id: 127.0.0.1, port: $((PORT_BACKEND0 + i))}"$'\n'
  haproxy_servers+="    server b$i 127.0.0.1:$((PORT_BACKEND0 + i))"$'\n'
  nginx_servers+="        server 127.0.0.1:$((PORT_BACKEND0 + i));"$'\n'
done

fulcrum_tls=""
haproxy_tls=""
nginx_tls=""
if [ "$TLS" = 1 ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=bench.example \
    -keyout "$WORKDIR/key.pem" -out "$WORKDIR/cert.pem" 2>/dev/null || die "openssl could not make a certificate"
  cat "$WORKDIR/cert.pem" "$WORKDIR/key.pem" >"$WORKDIR/haproxy.pem"
  fulcrum_tls="      - {protocol: TLS, port: $PORT_FULCRUM_TLS, ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06, certificates: [{certificate: $WORKDIR/cert.pem, private-key: $WORKDIR/key.pem}], default-actions: [{type: forward, target-group: tcp}]}"
  haproxy_tls=$'frontend tls\n    bind 127.0.0.1:'"$PORT_HAPROXY_TLS"$' ssl crt '"$WORKDIR/haproxy.pem"$'\n    default_backend pool'
  nginx_tls="    server { listen 127.0.0.1:$PORT_NGINX_TLS ssl; ssl_certificate $WORKDIR/cert.pem; ssl_certificate_key $WORKDIR/key.pem; proxy_pass pool; proxy_connect_timeout 10s; proxy_timeout 350s; }"
fi

cat >"$WORKDIR/fulcrum.yaml" <<EOF
nodes:
  - {zone: zone-a, address: 127.0.0.1}
control: {address: 127.0.0.1, port: $PORT_CONTROL}
dns: {enabled: false}
reload: {enabled: false}
shutdown: {timeout-seconds: 1}
data-dir: $WORKDIR/fulcrum-data
load-balancers:
  - name: bench-tcp
    type: network
    listeners:
      - {protocol: TCP, port: $PORT_FULCRUM_TCP, default-actions: [{type: forward, target-group: tcp}]}
$fulcrum_tls
target-groups:
  - name: tcp
    target-type: ip
    protocol: TCP
    port: 80
    health-check: {interval-seconds: 5, timeout-seconds: 5, healthy-threshold-count: 2}
    targets:
${targets%$'\n'}
EOF

cat >"$WORKDIR/haproxy.cfg" <<EOF
global
    nbthread 1
    maxconn 8000
defaults
    mode tcp
    timeout connect 10s
    timeout client 350s
    timeout server 350s
frontend tcp
    bind 127.0.0.1:$PORT_HAPROXY_TCP
    default_backend pool
$haproxy_tls
backend pool
    balance roundrobin
${haproxy_servers%$'\n'}
EOF

mkdir -p "$WORKDIR/nginx-tmp"
cat >"$WORKDIR/nginx.conf" <<EOF
load_module $STREAM_MODULE;
worker_processes 1;
pid $WORKDIR/nginx.pid;
error_log $WORKDIR/nginx-error.log warn;
events { worker_connections 8192; }
stream {
    upstream pool {
${nginx_servers%$'\n'}
    }
    server {
        listen 127.0.0.1:$PORT_NGINX_TCP;
        proxy_pass pool;
        proxy_connect_timeout 10s;
        proxy_timeout 350s;
    }
$nginx_tls
}
EOF

start_three "$PORT_CONTROL"
for p in "$PORT_FULCRUM_TCP" "$PORT_HAPROXY_TCP" "$PORT_NGINX_TCP"; do
  wait_http "http://127.0.0.1:$p/" 20 || die "nothing answers through 127.0.0.1:$p"
done
if [ "$TLS" = 1 ]; then
  for p in "$PORT_FULCRUM_TLS" "$PORT_HAPROXY_TLS" "$PORT_NGINX_TLS"; do
    for i in $(seq 1 100); do
      curl -fsSk -o /dev/null --max-time 2 "https://127.0.0.1:$p/" 2>/dev/null && break
      [ "$i" = 100 ] && die "nothing answers through TLS on 127.0.0.1:$p"
      sleep 0.2
    done
  done
fi
log "Fulcrum (NLB TCP listener) :$PORT_FULCRUM_TCP, HAProxy (mode tcp) :$PORT_HAPROXY_TCP, NGINX (stream) :$PORT_NGINX_TCP, 1 worker each"

pid_of() {
  case $1 in fulcrum) echo "$FULCRUM_PID" ;; haproxy) echo "$HAPROXY_PID" ;; nginx) echo "$NGINX_PID" ;; *) echo "" ;; esac
}
# url_of WHO LOAD: where wrk sends that load.
url_of() {
  case $2 in
    tls|tls-close)
      case $1 in
        fulcrum) echo "https://127.0.0.1:$PORT_FULCRUM_TLS/" ;; haproxy) echo "https://127.0.0.1:$PORT_HAPROXY_TLS/" ;;
        nginx) echo "https://127.0.0.1:$PORT_NGINX_TLS/" ;;
      esac ;;
    *)
      case $1 in
        fulcrum) echo "http://127.0.0.1:$PORT_FULCRUM_TCP/" ;; haproxy) echo "http://127.0.0.1:$PORT_HAPROXY_TCP/" ;;
        nginx) echo "http://127.0.0.1:$PORT_NGINX_TCP/" ;; direct) echo "http://127.0.0.1:$((PORT_BACKEND0 + 1))/" ;;
      esac ;;
  esac
}
# contenders LOAD: who runs it (the backend alone has no TLS).
contenders() {
  case $1 in tls|tls-close) echo "fulcrum haproxy nginx" ;; *) echo "fulcrum haproxy nginx direct" ;; esac
}
label() {
  case $1 in keepalive) echo "keep-alive" ;; close) echo "Connection: close" ;; tls) echo "TLS, keep-alive" ;; tls-close) echo "TLS, Connection: close" ;; esac
}
# run WHO LOAD SECONDS: one wrk run; prints "req/s p50_ms p99_ms cpu_us_per_request".
run() {
  local extra=()
  case $2 in close|tls-close) extra=(-H "Connection: close") ;; esac
  wrk_round "$(pid_of "$1")" "$(url_of "$1" "$2")" "$3" "${extra[@]}"
}

for who in fulcrum haproxy nginx; do
  log "warm-up: $who, ${WARMUP_SECONDS}s of each load"
  for load in $LOADS; do run "$who" "$load" "$WARMUP_SECONDS" >/dev/null; done
done

declare -A results
for load in $LOADS; do
  for round in $(seq 1 "$ROUNDS"); do
    for who in $(contenders "$load"); do
      r=$(run "$who" "$load" "$ROUND_SECONDS")
      results[$load,$who]+="$r"$'\n'
      log "$load round $round $who: $r (req/s p50 p99 µs-CPU/req)"
    done
  done
done

echo
echo "TCP listener, wrk -t1 -c$CONNS through each relay, $ROUNDS interleaved rounds of ${ROUND_SECONDS}s, 1 worker each"
echo "(medians; req/s with min-max; CPU: the relay's user+system CPU per request)"
echo
echo "| Load | Contender | req/s | (min-max) | p50 ms | p99 ms | CPU µs/req |"
echo "|---|---|---:|---|---:|---:|---:|"
for load in $LOADS; do
  for who in $(contenders "$load"); do
    data=${results[$load,$who]}
    printf '| %s | %s | %s | %s | %s | %s | %s |\n' \
      "$(label "$load")" "$who" \
      "$(column_of 1 <<<"$data" | median_of)" "$(column_of 1 <<<"$data" | range_of)" \
      "$(column_of 2 <<<"$data" | median_of)" "$(column_of 3 <<<"$data" | median_of)" \
      "$(column_of 4 <<<"$data" | grep -v '^-$' | median_of)"
  done
done
echo
echo "RSS after the runs (kB): Fulcrum $(memory_kb "$FULCRUM_PID" VmRSS), HAProxy $(memory_kb "$HAPROXY_PID" VmRSS), NGINX $(memory_kb "$NGINX_PID" VmRSS)"
