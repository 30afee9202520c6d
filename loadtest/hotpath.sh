#!/usr/bin/env bash
# The per-request cost of Fulcrum's HTTP/1.1 data plane, in figures that survive a busy machine:
# CPU time per request of the Fulcrum process and of its event loops, and bytes allocated per
# request on the event loops; req/s is printed too, but only as an indication.
#
# It starts BACKENDS NGINX servers (one nginx process, one worker), target/fulcrum.jar with a
# generated config (resources from the file, one HTTP listener forwarding round robin to the
# backends, health checks on), warms up with wrk for WARMUP seconds, then measures one window of
# DURATION seconds. With JFR=1 a second window runs under a JFR profile recording, summarised by
# loadtest/hotpath/JfrTop.java (top frames and allocation sites of the event loops). Everything it
# started is stopped by PID at the end. Loopback only.
#
#   loadtest/hotpath.sh                                  # defaults below
#   INSTANCES=1 JAVA_OPTS='-XX:+UseSerialGC -Xmx64m' LABEL=serial loadtest/hotpath.sh
#   RATE=3000 loadtest/hotpath.sh                        # paced load instead of flat out
#   BROWSER=1 loadtest/hotpath.sh                        # requests with a browser's headers
#   H2C=1 loadtest/hotpath.sh                            # the listener takes h2c too (as compare.sh's)
#   AGENTS=on AGENT_MAX=64 loadtest/hotpath.sh           # target optimizer (docs/target-optimizer.md)
#
# AGENTS puts Fulcrum's target control agent in front of each backend (one more JVM each, on
# 127.0.0.2, 127.0.0.3, ...): "through" with the target group as usual (the agents only relay), "on"
# with the group's target control port set, so that every request spends a credit.
#
# Needs: java 17 (jcmd for JFR=1), wrk, nginx, curl. Build the jar first: mvn -B -q package -DskipTests
set -euo pipefail
cd "$(dirname "$0")/.."

JAR=${JAR:-target/fulcrum.jar}
BACKENDS=${BACKENDS:-4}          # NGINX servers behind the listener
WARMUP=${WARMUP:-20}             # seconds of load before measuring (JIT, pools)
DURATION=${DURATION:-30}         # seconds of the measured window
CONNS=${CONNS:-32}               # wrk connections (keep-alive)
WRK_THREADS=${WRK_THREADS:-1}
RATE=${RATE:-}                   # total req/s: each connection is paced (wrk delay()); empty: flat out
INSTANCES=${INSTANCES:-$(nproc)} # --instances: listener verticles, one per event loop
JAVA_OPTS=${JAVA_OPTS:-}         # JVM flags for Fulcrum
JFR=${JFR:-0}                    # 1: a further window under a JFR profile recording
URL_PATH=${URL_PATH:-/}
BROWSER=${BROWSER:-0}            # 1: a browser's request headers (12 more) besides User-Agent and Accept
H2C=${H2C:-0}                    # 1: the listener takes h2c as well (HTTP/1.1 is still what wrk sends)
ACCESS_LOG=${ACCESS_LOG:-0}      # 1: the load balancer writes its access log (to $OUT/data/s3/hotpath)
PORT=${PORT:-27080}              # the listener
CONTROL_PORT=${CONTROL_PORT:-27090}
BACKEND_PORT=${BACKEND_PORT:-27101} # first backend; the others follow
LABEL=${LABEL:-run}
OUT=${OUT:-/tmp/hotpath-$LABEL-$$}
KEEP=${KEEP:-0}                  # 1: keep $OUT (logs, config, recording); it is always kept with JFR=1
AGENTS=${AGENTS:-off}            # off, through (agents relay), on (agents grant credits: the optimizer)
AGENT_MAX=${AGENT_MAX:-64}       # each agent's maximum concurrency
AGENT_CONTROL_PORT=${AGENT_CONTROL_PORT:-27300}

for tool in java wrk nginx curl; do
  command -v "$tool" >/dev/null || { echo "hotpath: $tool is missing (apt-get install -y $tool)" >&2; exit 2; }
done
[[ -f $JAR ]] || { echo "hotpath: $JAR is missing (mvn -B -q package -DskipTests)" >&2; exit 2; }
for p in "$PORT" "$CONTROL_PORT" $(seq "$BACKEND_PORT" $((BACKEND_PORT + BACKENDS - 1))); do
  if ss -Htln "sport = :$p" | grep -q .; then
    echo "hotpath: port $p is in use (set PORT, CONTROL_PORT, BACKEND_PORT)" >&2
    exit 2
  fi
done

mkdir -p "$OUT"
NGINX_PID=
FULCRUM_PID=
PROBE_PID=
AGENT_PIDS=()
cleanup() {
  set +e
  if [[ -n $PROBE_PID ]]; then kill "$PROBE_PID" 2>/dev/null; fi
  for pid in "${AGENT_PIDS[@]}"; do kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; done
  if [[ -n $FULCRUM_PID ]]; then
    kill "$FULCRUM_PID" 2>/dev/null
    for _ in $(seq 50); do kill -0 "$FULCRUM_PID" 2>/dev/null || break; sleep 0.2; done
    kill -9 "$FULCRUM_PID" 2>/dev/null
  fi
  if [[ -n $NGINX_PID ]]; then
    kill "$NGINX_PID" 2>/dev/null # the master stops its worker
    wait "$NGINX_PID" 2>/dev/null
  fi
  if [[ $KEEP != 1 && $JFR != 1 ]]; then rm -rf "$OUT"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- backends: one nginx, one worker, BACKENDS servers answering a small fixed body ---
mkdir -p "$OUT/nginx"
{
  echo "worker_processes 1; daemon off; pid $OUT/nginx/nginx.pid; error_log $OUT/nginx/error.log warn;"
  echo "events { worker_connections 8192; }"
  echo "http {"
  echo "  access_log off; keepalive_requests 1000000; keepalive_timeout 120s;"
  echo "  client_body_temp_path $OUT/nginx/body; proxy_temp_path $OUT/nginx/proxy;"
  echo "  fastcgi_temp_path $OUT/nginx/fcgi; uwsgi_temp_path $OUT/nginx/uwsgi; scgi_temp_path $OUT/nginx/scgi;"
  for i in $(seq 0 $((BACKENDS - 1))); do
    p=$((BACKEND_PORT + i))
    echo "  server { listen 127.0.0.1:$p; default_type text/plain;"
    echo "    location = /health { return 200 \"ok\n\"; }"
    echo "    location / { return 200 \"backend $p: hello from the hot path of the load balancer\n\"; } }"
  done
  echo "}"
} > "$OUT/nginx/nginx.conf"
nginx -p "$OUT/nginx" -c "$OUT/nginx/nginx.conf" &
NGINX_PID=$!

# --- the target control agents (AGENTS=through or on), one per backend on an address of its own ---
target_ip() { if [[ $AGENTS == off ]]; then echo 127.0.0.1; else echo "127.0.0.$(($1 + 2))"; fi; }
if [[ $AGENTS != off ]]; then
  for i in $(seq 0 $((BACKENDS - 1))); do
    p=$((BACKEND_PORT + i))
    java -Xmx64m -XX:+UseSerialGC -jar "$JAR" target-control-agent --data "$(target_ip "$i"):$p" \
      --control "$(target_ip "$i"):$AGENT_CONTROL_PORT" --destination "127.0.0.1:$p" --max-concurrency "$AGENT_MAX" \
      > "$OUT/agent-$i.log" 2>&1 &
    AGENT_PIDS+=($!)
  done
fi
CONTROL_LINE=
if [[ $AGENTS == on ]]; then CONTROL_LINE="    target-control-port: $AGENT_CONTROL_PORT"; fi

# --- Fulcrum ---
{
  cat <<EOF
region: us-east-1
account: "000000000000"
nodes: [{zone: zone-a, address: 127.0.0.1}]
control: {address: 127.0.0.1, port: $CONTROL_PORT}
dns: {enabled: false}
reload: {enabled: false}
resources: {source: config}
random-seed: 1
load-balancers:
  - name: hot
    type: application
    attributes: {access_logs.s3.enabled: "$([[ $ACCESS_LOG == 1 ]] && echo true || echo false)", access_logs.s3.bucket: hotpath}
    listeners:
      - protocol: HTTP
        port: $PORT
        h2c: $([[ $H2C == 1 ]] && echo true || echo false)
        default-actions: [{type: forward, target-group: web}]
target-groups:
  - name: web
    target-type: ip
    protocol: HTTP
    port: 80
$CONTROL_LINE
    health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2}
    attributes:
      load_balancing.algorithm.type: round_robin
    targets:
EOF
  for i in $(seq 0 $((BACKENDS - 1))); do
    echo "      - {id: $(target_ip "$i"), port: $((BACKEND_PORT + i)), zone: zone-a}"
  done
} > "$OUT/fulcrum.yaml"

# shellcheck disable=SC2086
FULCRUM_DATA_DIR="$OUT/data" java $JAVA_OPTS -jar "$JAR" --config "$OUT/fulcrum.yaml" --instances "$INSTANCES" \
  > "$OUT/fulcrum.log" 2>&1 &
FULCRUM_PID=$!
for i in $(seq 600); do
  code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT$URL_PATH" || true)
  [[ $code == 200 ]] && break
  kill -0 "$FULCRUM_PID" 2>/dev/null || { echo "hotpath: fulcrum exited:" >&2; tail -20 "$OUT/fulcrum.log" >&2; exit 1; }
  [[ $i == 600 ]] && { echo "hotpath: the listener never answered 200 (last: $code)" >&2; tail -20 "$OUT/fulcrum.log" >&2; exit 1; }
  sleep 0.1
done

WRK_ARGS=(-t "$WRK_THREADS" -c "$CONNS" -H "User-Agent: hotpath/1" -H "Accept: */*")
if [[ $BROWSER == 1 ]]; then
  WRK_ARGS+=(-H "Accept-Language: en-US,en;q=0.9" -H "Accept-Encoding: gzip, deflate, br"
    -H "Referer: http://127.0.0.1/start" -H "Cookie: session=0123456789abcdef" -H "Upgrade-Insecure-Requests: 1"
    -H 'sec-ch-ua: "Chromium";v="131"' -H "sec-ch-ua-mobile: ?0" -H 'sec-ch-ua-platform: "Linux"'
    -H "Sec-Fetch-Site: same-origin" -H "Sec-Fetch-Mode: navigate" -H "Sec-Fetch-User: ?1" -H "Sec-Fetch-Dest: document")
fi
if [[ -n $RATE ]]; then
  # wrk waits delay() ms before each request of a connection: about CONNS*1000/RATE ms per request.
  gap=$(( CONNS * 1000 / RATE ))
  printf 'function delay() return %d end\n' "$gap" > "$OUT/pace.lua"
  WRK_ARGS+=(-s "$OUT/pace.lua")
fi
URL="http://127.0.0.1:$PORT$URL_PATH"

wrk "${WRK_ARGS[@]}" -d "${WARMUP}s" "$URL" > "$OUT/warmup.txt"

# --- the probe: event-loop allocation and CPU counters over JMX ---
coproc PROBE { exec java loadtest/hotpath/Probe.java "$FULCRUM_PID"; }
PROBE_PID=$PROBE_PID
read -r ready <&"${PROBE[0]}"
[[ $ready == ready ]] || { echo "hotpath: the probe did not attach" >&2; exit 1; }
TCK=$(getconf CLK_TCK)
snap() {
  local line
  echo >&"${PROBE[1]}"
  read -r line <&"${PROBE[0]}"
  # snap EL_ALLOC EL_CPU_NS ALL_ALLOC PROC_CPU_NS GC_COUNT GC_MS HEAP_USED EL_THREADS, then /proc user and system ticks
  echo "$line $(awk '{print $14, $15}' "/proc/$FULCRUM_PID/stat")"
}

before=$(snap)
wrk "${WRK_ARGS[@]}" -d "${DURATION}s" --latency "$URL" > "$OUT/wrk.txt"
after=$(snap)
rss=$(awk '/^VmRSS/ {print $2}' "/proc/$FULCRUM_PID/status")
hwm=$(awk '/^VmHWM/ {print $2}' "/proc/$FULCRUM_PID/status")

requests=$(awk '/requests in/ {print $1}' "$OUT/wrk.txt")
rps=$(awk '/^Requests\/sec/ {print $2}' "$OUT/wrk.txt")
p50=$(awk '$1 == "50%" {print $2}' "$OUT/wrk.txt")
p99=$(awk '$1 == "99%" {print $2}' "$OUT/wrk.txt")
bad=$(awk '/Non-2xx/ {print $5}' "$OUT/wrk.txt")
errors=$(awk '/Socket errors/ {print $0}' "$OUT/wrk.txt")
transport=$(grep -o 'transport: [a-z_]*' "$OUT/fulcrum.log" | head -1 || true)

read -r _ el_alloc0 el_cpu0 all_alloc0 proc_cpu0 gc0 gcms0 _ threads user0 sys0 <<< "$before"
read -r _ el_alloc1 el_cpu1 all_alloc1 proc_cpu1 gc1 gcms1 _ _ user1 sys1 <<< "$after"

awk -v label="$LABEL" -v req="$requests" -v rps="$rps" -v p50="$p50" -v p99="$p99" \
  -v ea="$((el_alloc1 - el_alloc0))" -v aa="$((all_alloc1 - all_alloc0))" \
  -v ec="$((el_cpu1 - el_cpu0))" -v pc="$((proc_cpu1 - proc_cpu0))" -v user="$((user1 - user0))" -v sys="$((sys1 - sys0))" -v tck="$TCK" \
  -v gc="$((gc1 - gc0))" -v gcms="$((gcms1 - gcms0))" -v rss="$rss" -v hwm="$hwm" -v threads="$threads" \
  -v inst="$INSTANCES" -v conns="$CONNS" -v rate="${RATE:-max}" -v opts="${JAVA_OPTS:-(none)}" -v tr="${transport:-?}" \
  -v agents="$AGENTS" '
BEGIN {
  printf "hotpath %s: instances=%s event-loops=%s conns=%s rate=%s java-opts=%s %s agents=%s\n", label, inst, threads, conns, rate, opts, tr, agents
  printf "  requests            %d (%.0f req/s, p50 %s, p99 %s; indicative only)\n", req, rps, p50, p99
  printf "  cpu/request         %.1f us (process, /proc utime+stime: %.1f user + %.1f system)   %.1f us (event loops)\n", \
    (user + sys) * 1e6 / tck / req, user * 1e6 / tck / req, sys * 1e6 / tck / req, ec / 1000 / req
  printf "  alloc/request       %.0f B (event loops)   %.0f B (all threads)\n", ea / req, aa / req
  printf "  gc                  %d collections, %d ms\n", gc, gcms
  printf "  rss                 %.1f MB at the end (peak %.1f MB)\n", rss / 1024, hwm / 1024
}'
if [[ -n $bad || -n $errors ]]; then
  echo "  wrk: ${bad:+$bad non-2xx responses; }${errors}"
fi

if [[ $JFR == 1 ]]; then
  # The profile settings, with every TLAB refill and every allocation outside a TLAB (see JfrTop).
  jfr configure --input profile --output "$OUT/hotpath.jfc" \
    "jdk.ObjectAllocationInNewTLAB#enabled=true" "jdk.ObjectAllocationInNewTLAB#stackTrace=true" \
    "jdk.ObjectAllocationOutsideTLAB#enabled=true" "jdk.ObjectAllocationOutsideTLAB#stackTrace=true" > /dev/null
  jcmd "$FULCRUM_PID" JFR.start name=hotpath settings="$OUT/hotpath.jfc" filename="$OUT/hotpath.jfr" > /dev/null
  wrk "${WRK_ARGS[@]}" -d "${DURATION}s" "$URL" > "$OUT/wrk-jfr.txt"
  jcmd "$FULCRUM_PID" JFR.stop name=hotpath > /dev/null
  java loadtest/hotpath/JfrTop.java "$OUT/hotpath.jfr" 25 > "$OUT/jfr-top.txt"
  echo "  jfr                 $OUT/hotpath.jfr, summary in $OUT/jfr-top.txt"
fi
