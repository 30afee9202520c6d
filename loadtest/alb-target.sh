#!/usr/bin/env bash
# An application load balancer behind a network load balancer (target type alb), side by side with
# the same chain in HAProxy and NGINX: in each one process with one worker, an HTTP proxy in front of
# the NGINX backends of compare.sh and a TCP relay in front of that HTTP proxy, which passes the
# client's address along (Fulcrum in the process; HAProxy `send-proxy-v2` to a bind with
# `accept-proxy`; NGINX stream `proxy_protocol on` to a `listen ... proxy_protocol` with real_ip).
# wrk (HTTP/1.1 keep-alive, -c50) in interleaved rounds against each HTTP proxy alone and through
# its chain: what the TCP hop in front costs. Prints a table; see loadtest/README.md and RESULTS.md.
#
#   loadtest/alb-target.sh            # about 6 minutes with the defaults
#   loadtest/alb-target.sh --quick    # a few seconds per round, to try the script
#
# Needs NGINX's stream module (Debian: libnginx-mod-stream). Installs nothing. Starts only its own
# processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

QUICK=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,14p' "$0"; echo "Environment: ROUND_SECONDS [10] ROUNDS [3] WARMUP_SECONDS [15] CONNS [50] BASE_PORT [18000] CONTENDERS [all six: {fulcrum,haproxy,nginx}-{http,chain}]"; exit 0 ;;
    *) echo "alb-target.sh: unknown argument '$a'" >&2; exit 2 ;;
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
WITH_GRPC_BACKEND=0

# shellcheck source=loadtest/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
check_tools wrk haproxy nginx java curl ss || exit 2
STREAM_MODULE=${STREAM_MODULE:-/usr/lib/nginx/modules/ngx_stream_module.so}
[ -f "$STREAM_MODULE" ] || die "NGINX's stream module is missing ($STREAM_MODULE): apt-get install libnginx-mod-stream"
[ -f "$FULCRUM_JAR" ] || die "$FULCRUM_JAR not found: build it first (mvn -B -q package -DskipTests)"

# HTTP proxy alone, then the TCP relay in front of it, for each of the three.
PORT_FULCRUM_HTTP=$((BASE_PORT + 601))
PORT_FULCRUM_TCP=$((BASE_PORT + 602))
PORT_HAPROXY_HTTP=$((BASE_PORT + 611))
PORT_HAPROXY_TCP=$((BASE_PORT + 612))
PORT_HAPROXY_CHAINED=$((BASE_PORT + 613))
PORT_NGINX_HTTP=$((BASE_PORT + 621))
PORT_NGINX_TCP=$((BASE_PORT + 622))
PORT_NGINX_CHAINED=$((BASE_PORT + 623))
PORT_CONTROL=$((BASE_PORT + 690))
ports=("$PORT_FULCRUM_HTTP" "$PORT_FULCRUM_TCP" "$PORT_HAPROXY_HTTP" "$PORT_HAPROXY_TCP" "$PORT_HAPROXY_CHAINED"
  "$PORT_NGINX_HTTP" "$PORT_NGINX_TCP" "$PORT_NGINX_CHAINED" "$PORT_CONTROL")
for i in $(seq 1 "$BACKENDS"); do ports+=($((PORT_BACKEND0 + i))); done
check_ports_free "${ports[@]}"
WORKDIR=$(mktemp -d /tmp/fulcrum-alb.XXXXXX)
chmod 755 "$WORKDIR"
trap remove_workdir EXIT
trap 'exit 130' INT TERM

start_backends

haproxy_servers=""
nginx_servers=""
for i in $(seq 1 "$BACKENDS"); do
  haproxy_servers+="    server b$i 127.0.0.1:$((PORT_BACKEND0 + i))"$'\n'
  nginx_servers+="        server 127.0.0.1:$((PORT_BACKEND0 + i));"$'\n'
done

cat >"$WORKDIR/fulcrum.yaml" <<EOF
nodes:
  - {zone: zone-a, address: 127.0.0.1}
control: {address: 127.0.0.1, port: $PORT_CONTROL}
dns: {enabled: false}
reload: {enabled: false}
shutdown: {timeout-seconds: 1}
data-dir: $WORKDIR/fulcrum-data
load-balancers:
  - name: web
    listeners:
      - {protocol: HTTP, port: $PORT_FULCRUM_HTTP, default-actions: [{type: forward, target-group: web}]}
  - name: edge
    type: network
    listeners:
      - {protocol: TCP, port: $PORT_FULCRUM_TCP, default-actions: [{type: forward, target-group: to-web}]}
target-groups:
  - name: web
    target-type: ip
    protocol: HTTP
    port: 80
    health-check: {interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2}
    targets:
$(fulcrum_targets_yaml)
  - {name: to-web, target-type: alb, protocol: TCP, port: $PORT_FULCRUM_HTTP, targets: [{id: web}]}
EOF

cat >"$WORKDIR/haproxy.cfg" <<EOF
global
    nbthread 1
    maxconn 8192
defaults
    timeout connect 10s
    timeout client 60s
    timeout server 60s
    timeout http-keep-alive 60s
frontend http
    mode http
    bind 127.0.0.1:$PORT_HAPROXY_HTTP
    bind 127.0.0.1:$PORT_HAPROXY_CHAINED accept-proxy
    option http-keep-alive
    option forwardfor
    http-request set-header X-Forwarded-Proto http
    http-request set-header X-Forwarded-Port %[dst_port]
    default_backend web
backend web
    mode http
    balance roundrobin
    http-reuse always
${haproxy_servers%$'\n'}
frontend tcp
    mode tcp
    bind 127.0.0.1:$PORT_HAPROXY_TCP
    default_backend chained
backend chained
    mode tcp
    server http 127.0.0.1:$PORT_HAPROXY_CHAINED send-proxy-v2
EOF

mkdir -p "$WORKDIR/nginx-tmp"
cat >"$WORKDIR/nginx.conf" <<EOF
load_module $STREAM_MODULE;
worker_processes 1;
pid $WORKDIR/nginx.pid;
error_log $WORKDIR/nginx-error.log warn;
events { worker_connections 16384; }
http {
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    client_body_temp_path $WORKDIR/nginx-tmp/body;
    proxy_temp_path $WORKDIR/nginx-tmp/proxy;
    fastcgi_temp_path $WORKDIR/nginx-tmp/fastcgi;
    uwsgi_temp_path $WORKDIR/nginx-tmp/uwsgi;
    scgi_temp_path $WORKDIR/nginx-tmp/scgi;
    upstream web {
${nginx_servers%$'\n'}
        keepalive $CONNS;
        keepalive_requests 10000000;
        keepalive_timeout 120s;
    }
    server {
        listen 127.0.0.1:$PORT_NGINX_HTTP;
        listen 127.0.0.1:$PORT_NGINX_CHAINED proxy_protocol;
        set_real_ip_from 127.0.0.1;
        real_ip_header proxy_protocol;
        location / {
            proxy_pass http://web;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host \$http_host;
            proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto \$scheme;
            proxy_set_header X-Forwarded-Port \$server_port;
        }
    }
}
stream {
    server {
        listen 127.0.0.1:$PORT_NGINX_TCP;
        proxy_pass 127.0.0.1:$PORT_NGINX_CHAINED;
        proxy_protocol on;
        proxy_connect_timeout 10s;
        proxy_timeout 350s;
    }
}
EOF

start_three "$PORT_CONTROL"
for p in "$PORT_FULCRUM_HTTP" "$PORT_FULCRUM_TCP" "$PORT_HAPROXY_HTTP" "$PORT_HAPROXY_TCP" "$PORT_NGINX_HTTP" \
  "$PORT_NGINX_TCP"; do
  wait_http "http://127.0.0.1:$p/" 20 || die "nothing answers through 127.0.0.1:$p"
done
log "Fulcrum ALB :$PORT_FULCRUM_HTTP, NLB in front :$PORT_FULCRUM_TCP; HAProxy http :$PORT_HAPROXY_HTTP, tcp in front :$PORT_HAPROXY_TCP; NGINX http :$PORT_NGINX_HTTP, stream in front :$PORT_NGINX_TCP; 1 worker each"

# Each contender is WHO-PATH: the process and whether the request goes through the TCP hop.
contenders=${CONTENDERS:-fulcrum-http fulcrum-chain haproxy-http haproxy-chain nginx-http nginx-chain}
pid_of() {
  case $1 in fulcrum-*) echo "$FULCRUM_PID" ;; haproxy-*) echo "$HAPROXY_PID" ;; nginx-*) echo "$NGINX_PID" ;; esac
}
url_of() {
  case $1 in
    fulcrum-http) echo "http://127.0.0.1:$PORT_FULCRUM_HTTP/" ;; fulcrum-chain) echo "http://127.0.0.1:$PORT_FULCRUM_TCP/" ;;
    haproxy-http) echo "http://127.0.0.1:$PORT_HAPROXY_HTTP/" ;; haproxy-chain) echo "http://127.0.0.1:$PORT_HAPROXY_TCP/" ;;
    nginx-http) echo "http://127.0.0.1:$PORT_NGINX_HTTP/" ;; nginx-chain) echo "http://127.0.0.1:$PORT_NGINX_TCP/" ;;
  esac
}
# run WHO SECONDS: one wrk run; prints "req/s p50_ms p99_ms cpu_us_per_request" (the process's CPU).
run() {
  wrk_round "$(pid_of "$1")" "$(url_of "$1")" "$2"
}

for who in $contenders; do
  log "warm-up: $who, ${WARMUP_SECONDS}s"
  run "$who" "$WARMUP_SECONDS" >/dev/null
done

declare -A results
for round in $(seq 1 "$ROUNDS"); do
  for who in $contenders; do
    r=$(run "$who" "$ROUND_SECONDS")
    results[$who]+="$r"$'\n'
    log "round $round $who: $r (req/s p50 p99 µs-CPU/req)"
  done
done

echo
echo "An HTTP proxy alone and behind a TCP relay of the same process that passes the client's address on:"
echo "wrk -t1 -c$CONNS (HTTP/1.1 keep-alive), $ROUNDS interleaved rounds of ${ROUND_SECONDS}s, 1 worker each"
echo "(medians; req/s with min-max; CPU: the process's user+system CPU per request, both hops when chained)"
echo
echo "| Contender | Path | req/s | (min-max) | p50 ms | p99 ms | CPU µs/req |"
echo "|---|---|---:|---|---:|---:|---:|"
for who in $contenders; do
  data=${results[$who]}
  case $who in *-http) path="HTTP proxy" ;; *) path="TCP relay, then HTTP proxy" ;; esac
  printf '| %s | %s | %s | %s | %s | %s | %s |\n' "${who%-*}" "$path" \
    "$(column_of 1 <<<"$data" | median_of)" "$(column_of 1 <<<"$data" | range_of)" \
    "$(column_of 2 <<<"$data" | median_of)" "$(column_of 3 <<<"$data" | median_of)" \
    "$(column_of 4 <<<"$data" | grep -v '^-$' | median_of)"
done
echo
echo "RSS after the runs (kB): Fulcrum $(memory_kb "$FULCRUM_PID" VmRSS), HAProxy $(memory_kb "$HAPROXY_PID" VmRSS), NGINX $(memory_kb "$NGINX_PID" VmRSS)"
