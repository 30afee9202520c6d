#!/usr/bin/env bash
# A network load balancer's UDP flows: iperf3's UDP test straight to an iperf3 server, through a
# TCP_UDP listener (iperf3 opens its control connection over TCP on the same port) and, where NGINX
# has its stream module, through NGINX's UDP proxy (`listen ... udp` beside a TCP `listen` on the
# same port, as many workers as Fulcrum has event loops), at fixed rates, in interleaved rounds.
# Prints, per rate, the datagrams the server received each second, the share lost, each proxy's CPU
# time per relayed datagram and its RSS. HAProxy has no UDP proxy.
#
#   loadtest/udp.sh            # about 3 minutes with the defaults
#   loadtest/udp.sh --quick    # a few seconds per round, to try the script
#
# Needs iperf3 (Debian: iperf3), java, curl and the fat jar; NGINX with its stream module (Debian:
# libnginx-mod-stream) for the third path. Installs nothing. Starts only its own processes, on
# 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

QUICK=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,14p' "$0"; echo "Environment: ROUND_SECONDS [5] ROUNDS [3] WARMUP_SECONDS [10] RATES [100M 200M 300M] LENGTH [1200] INSTANCES [1] BASE_PORT [18000]"; exit 0 ;;
    *) echo "udp.sh: unknown argument '$a'" >&2; exit 2 ;;
  esac
done
if [ "$QUICK" = 1 ]; then
  ROUND_SECONDS=${ROUND_SECONDS:-2}
  ROUNDS=${ROUNDS:-1}
  WARMUP_SECONDS=${WARMUP_SECONDS:-2}
fi
ROUND_SECONDS=${ROUND_SECONDS:-5}
ROUNDS=${ROUNDS:-3}
WARMUP_SECONDS=${WARMUP_SECONDS:-10}
RATES=${RATES:-100M 200M 300M}
LENGTH=${LENGTH:-1200}
INSTANCES=${INSTANCES:-1}

# shellcheck source=loadtest/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
check_tools iperf3 java curl ss python3 || exit 2
[ -f "$FULCRUM_JAR" ] || die "$FULCRUM_JAR not found: build it first (mvn -B -q package -DskipTests)"

STREAM_MODULE=${STREAM_MODULE:-/usr/lib/nginx/modules/ngx_stream_module.so}
PATHS="direct fulcrum"
if command -v nginx >/dev/null && [ -f "$STREAM_MODULE" ]; then
  PATHS="direct fulcrum nginx"
else
  log "no NGINX with its stream module ($STREAM_MODULE): Fulcrum and the direct path only"
fi

PORT_IPERF=$((BASE_PORT + 601))
PORT_LISTENER=$((BASE_PORT + 602))
PORT_NGINX=$((BASE_PORT + 603))
PORT_CONTROL=$((BASE_PORT + 690))
check_ports_free "$PORT_IPERF" "$PORT_LISTENER" "$PORT_NGINX" "$PORT_CONTROL"
WORKDIR=$(mktemp -d /tmp/fulcrum-udp.XXXXXX)
chmod 755 "$WORKDIR"
trap remove_workdir EXIT
trap 'exit 130' INT TERM

iperf3 -s -B 127.0.0.1 -p "$PORT_IPERF" >"$WORKDIR/iperf3-server.log" 2>&1 &
IPERF_PID=$!
STARTED_PIDS+=("$IPERF_PID")

cat >"$WORKDIR/fulcrum.yaml" <<EOF
nodes:
  - {zone: zone-a, address: 127.0.0.1}
control: {address: 127.0.0.1, port: $PORT_CONTROL}
dns: {enabled: false}
load-balancers:
  - name: udp
    type: network
    listeners:
      - {protocol: TCP_UDP, port: $PORT_LISTENER, default-actions: [{type: forward, target-group: iperf}]}
target-groups:
  - name: iperf
    target-type: ip
    protocol: TCP_UDP
    port: $PORT_IPERF
    health-check: {interval-seconds: 5, timeout-seconds: 5, healthy-threshold-count: 2}
    targets:
      - {id: 127.0.0.1, port: $PORT_IPERF}
EOF
mkdir -p "$WORKDIR/fulcrum-data"
# shellcheck disable=SC2086
(cd "$WORKDIR" && export FULCRUM_DATA_DIR="$WORKDIR/fulcrum-data" FULCRUM_CPU_AFFINITY=off && exec java $FULCRUM_JVM_OPTS \
  -jar "$FULCRUM_JAR" --config "$WORKDIR/fulcrum.yaml" --instances "$INSTANCES") >"$WORKDIR/fulcrum.log" 2>&1 &
FULCRUM_PID=$!
STARTED_PIDS+=("$FULCRUM_PID")
wait_http "http://127.0.0.1:$PORT_CONTROL/health/ready" 90 "$FULCRUM_PID" \
  || die "Fulcrum did not become ready: $(tail -20 "$WORKDIR/fulcrum.log")"
for i in $(seq 1 150); do
  grep -q -- '-> healthy' "$WORKDIR/fulcrum.log" && break
  sleep 0.2
done
log "Fulcrum: pid $FULCRUM_PID, --instances $INSTANCES, JVM: ${FULCRUM_JVM_OPTS:-defaults}"

NGINX_PID=""
if [[ " $PATHS " == *" nginx "* ]]; then
  # A session per client address and port, as Fulcrum's flows; forgotten after 120 s without a datagram.
  cat >"$WORKDIR/nginx.conf" <<EOF
load_module $STREAM_MODULE;
worker_processes $INSTANCES;
pid $WORKDIR/nginx.pid;
error_log $WORKDIR/nginx-error.log warn;
events { worker_connections 16384; }
stream {
    server {
        listen 127.0.0.1:$PORT_NGINX udp reuseport;
        proxy_pass 127.0.0.1:$PORT_IPERF;
        proxy_timeout 120s;
    }
    server {
        listen 127.0.0.1:$PORT_NGINX;
        proxy_pass 127.0.0.1:$PORT_IPERF;
    }
}
EOF
  nginx -p "$WORKDIR" -c "$WORKDIR/nginx.conf" -g 'daemon off;' >"$WORKDIR/nginx.log" 2>&1 &
  NGINX_PID=$!
  STARTED_PIDS+=("$NGINX_PID")
  for i in $(seq 1 50); do
    ss -ltn | grep -q "127.0.0.1:$PORT_NGINX " && break
    sleep 0.1
  done
  log "NGINX: pid $NGINX_PID, $INSTANCES worker(s), $(nginx -v 2>&1 | sed 's/^nginx version: //')"
fi

# run PORT RATE SECONDS: one iperf3 UDP test; prints "received lost" (datagrams).
run() {
  iperf3 -c 127.0.0.1 -p "$1" -u -b "$2" -l "$LENGTH" -t "$3" -J 2>/dev/null | python3 -c '
import json, sys
s = json.load(sys.stdin)["end"]["sum"]
print(s["packets"] - s["lost_packets"], s["lost_packets"])'
}

log "warm-up: ${WARMUP_SECONDS} s flat out through Fulcrum"
run "$PORT_LISTENER" 0 "$WARMUP_SECONDS" >/dev/null
RESULTS="$WORKDIR/results"
: >"$RESULTS"
for round in $(seq 1 "$ROUNDS"); do
  for rate in $RATES; do
    for via in $PATHS; do
      case $via in
        direct) port=$PORT_IPERF pid="" ;;
        fulcrum) port=$PORT_LISTENER pid=$FULCRUM_PID ;;
        nginx) port=$PORT_NGINX pid=$NGINX_PID ;;
      esac
      t0=$([ -n "$pid" ] && cpu_ticks "$pid" || echo 0)
      read -r received lost < <(run "$port" "$rate" "$ROUND_SECONDS")
      t1=$([ -n "$pid" ] && cpu_ticks "$pid" || echo 0)
      echo "$rate $via $round $received $lost $((t1 - t0)) $([ -n "$pid" ] && memory_kb "$pid" VmRSS || echo 0)" >>"$RESULTS"
      log "round $round, $rate, $via: $received received, $lost lost"
    done
  done
done

printf '\nUDP through a TCP_UDP listener (and NGINX where it runs): iperf3 -u -l %s, %s rounds of %s s, medians (min-max)\n\n' "$LENGTH" "$ROUNDS" "$ROUND_SECONDS"
printf '| rate | path | datagrams/s received | lost %% | proxy CPU µs/datagram | proxy RSS MB |\n|---|---|---|---|---|---|\n'
for rate in $RATES; do
  for via in $PATHS; do
    rows=$(awk -v r="$rate" -v v="$via" '$1 == r && $2 == v' "$RESULTS")
    per_s=$(echo "$rows" | awk -v s="$ROUND_SECONDS" '{ printf "%d\n", $4 / s }')
    loss=$(echo "$rows" | awk '{ t = $4 + $5; printf "%.2f\n", t ? 100 * $5 / t : 0 }')
    cpu="-"
    rss="-"
    if [ "$via" != direct ]; then
      cpu=$(echo "$rows" | awk -v hz="$CLK_TCK" '{ printf "%.1f\n", $6 * 1e6 / hz / ($4 + $5) }' | median_of)
      rss=$(echo "$rows" | awk '{ printf "%d\n", $7 / 1024 }' | median_of)
    fi
    printf '| %s | %s | %s (%s) | %s (%s) | %s | %s |\n' "$rate" "$via" "$(echo "$per_s" | median_of)" \
      "$(echo "$per_s" | range_of)" "$(echo "$loss" | median_of)" "$(echo "$loss" | range_of)" "$cpu" "$rss"
  done
done
