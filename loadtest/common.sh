# Shared by the load scripts (sourced, not run). Everything runs on 127.0.0.1; every
# process started here is recorded by PID in STARTED_PIDS and stopped by PID on exit.
# shellcheck shell=bash

LOADTEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$LOADTEST_DIR/.." && pwd)

BASE_PORT=${BASE_PORT:-18000}
BACKENDS=${BACKENDS:-4}
NPROC=$(nproc 2>/dev/null || echo 2)
if [ -z "${BACKEND_WORKERS:-}" ]; then
  if [ "$NPROC" -le 4 ]; then BACKEND_WORKERS=1; else BACKEND_WORKERS=2; fi
fi
GRPC_BACKEND_LOOPS=${GRPC_BACKEND_LOOPS:-$BACKEND_WORKERS}
FULCRUM_JAR=${FULCRUM_JAR:-$REPO_DIR/target/fulcrum.jar}
# A proxy's JVM: a small fixed heap with the serial collector (the data path allocates little and
# short-lived; a fixed heap keeps RSS flat), capped direct memory and code cache.
FULCRUM_JVM_OPTS=${FULCRUM_JVM_OPTS:--XX:+UseSerialGC -Xms64m -Xmx64m -XX:MaxDirectMemorySize=64m -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=96m -Xss512k}
# For load tests only: ALB's GOAWAY after 10,000 requests on an HTTP/2 client connection, lifted,
# since h2load does not reconnect after a GOAWAY (NGINX's keepalive_requests is raised likewise).
FULCRUM_BENCH_PROPS=${FULCRUM_BENCH_PROPS:--Dfulcrum.http2.maxRequestsPerConnection=2147483647}
# Optional CPU pinning (taskset -c lists, e.g. PROXY_CPUS=2,3 LOAD_CPUS=0,1 BACKEND_CPUS=4-7).
PROXY_CPUS=${PROXY_CPUS:-}
LOAD_CPUS=${LOAD_CPUS:-}
BACKEND_CPUS=${BACKEND_CPUS:-}
# AFFINITY=1: each proxy pins its threads to CPUs, one thread per CPU of PROXY_CPUS (else of all):
# Fulcrum FULCRUM_CPU_AFFINITY=auto, HAProxy cpu-map, NGINX worker_cpu_affinity auto. 0: the kernel
# places them (the default, and how each ships).
AFFINITY=${AFFINITY:-0}

PORT_BACKEND0=$((BASE_PORT + 100))   # backends: PORT_BACKEND0+1 .. +BACKENDS
PORT_GRPC_BACKEND=$((BASE_PORT + 150))
PORT_HAPROXY_H1=$((BASE_PORT + 201))
PORT_HAPROXY_H2=$((BASE_PORT + 202))
PORT_HAPROXY_GRPC=$((BASE_PORT + 203))
PORT_HAPROXY_TLS=$((BASE_PORT + 204))   # HTTPS: HTTP/1.1 and h2 by ALPN
PORT_NGINX_H1=$((BASE_PORT + 301))
PORT_NGINX_H2=$((BASE_PORT + 302))
PORT_NGINX_GRPC=$((BASE_PORT + 303))
PORT_NGINX_TLS=$((BASE_PORT + 304))
PORT_FULCRUM_H1=$((BASE_PORT + 401))   # HTTP/1.1 and h2c on one port
PORT_FULCRUM_GRPC=$((BASE_PORT + 402))
PORT_FULCRUM_TLS=$((BASE_PORT + 403))
PORT_FULCRUM_CONTROL=$((BASE_PORT + 490))

STARTED_PIDS=()
CLK_TCK=$(getconf CLK_TCK 2>/dev/null || echo 100)

log() {
  printf '[%s] %s\n' "$(date +%H:%M:%S)" "$*" >&2
}

die() {
  log "error: $*"
  exit 1
}

pinned() {
  # pinned CPUS command...: runs the command (in the foreground) under taskset when CPUS is set.
  local cpus=$1
  shift
  if [ -n "$cpus" ]; then
    taskset -c "$cpus" "$@"
  else
    "$@"
  fi
}

spawn() {
  # spawn CPUS command... &: like pinned, but replaces the background subshell, so that $! is the
  # command's own PID (taskset execs it too). Only ever called with '&'.
  local cpus=$1
  shift
  if [ -n "$cpus" ]; then
    exec taskset -c "$cpus" "$@"
  else
    exec "$@"
  fi
}

# Tools: prints what is missing and how to install it; returns 1 when something is.
check_tools() {
  local missing=() pkgs=() t
  for t in "$@"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      missing+=("$t")
      case $t in
        h2load|nghttp) pkgs+=(nghttp2-client) ;;
        java|jcmd|jfr) pkgs+=(openjdk-17-jdk-headless) ;;
        *) pkgs+=("$t") ;;
      esac
    fi
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "missing: ${missing[*]}"
    log "install them (Debian/Ubuntu, as root): apt-get install -y $(printf '%s\n' "${pkgs[@]}" | sort -u | tr '\n' ' ')"
    return 1
  fi
}

check_ports_free() {
  local busy=() p
  for p in "$@"; do
    if ss -Hltn "sport = :$p" 2>/dev/null | grep -q .; then
      busy+=("$p")
    fi
  done
  if [ ${#busy[@]} -gt 0 ]; then
    die "ports in use on this machine: ${busy[*]} (choose another block with BASE_PORT=...)"
  fi
}

# own_workdir NAME: for a script that runs one Fulcrum on compare.sh's backends: checks that their
# ports are free, makes WORKDIR (/tmp/fulcrum-NAME.XXXXXX), and on exit stops every process
# started and removes WORKDIR.
own_workdir() {
  local ports=("$PORT_GRPC_BACKEND" "$PORT_FULCRUM_H1" "$PORT_FULCRUM_GRPC" "$PORT_FULCRUM_TLS" "$PORT_FULCRUM_CONTROL") i
  for i in $(seq 1 "$BACKENDS"); do ports+=($((PORT_BACKEND0 + i))); done
  check_ports_free "${ports[@]}"
  WORKDIR=$(mktemp -d "/tmp/fulcrum-$1.XXXXXX")
  chmod 755 "$WORKDIR"
  trap remove_workdir EXIT
  trap 'exit 130' INT TERM
}

remove_workdir() {
  local rc=$?
  trap - EXIT INT TERM
  stop_all
  rm -rf "$WORKDIR"
  exit "$rc"
}

# proxy_cpu_list: the CPUs a proxy may use, as a list (PROXY_CPUS, else every CPU).
proxy_cpu_list() {
  if [ -n "$PROXY_CPUS" ]; then echo "$PROXY_CPUS"; else echo "0-$(($(nproc) - 1))"; fi
}

# cpus_of LIST: the CPUs of a list such as 0-3,8, one per line, in order.
cpus_of() {
  local part parts
  IFS=, read -ra parts <<<"$1"
  for part in "${parts[@]}"; do seq "${part%-*}" "${part#*-}"; done
}

# cpu_mask_of LIST: NGINX's CPU mask (a binary string, CPU 0 rightmost) of a list such as 0-3,8.
cpu_mask_of() {
  local c max=0 mask=""
  local -A on=()
  for c in $(cpus_of "$1"); do on[$c]=1; [ "$c" -gt "$max" ] && max=$c; done
  for ((c = max; c >= 0; c--)); do mask+=${on[$c]:-0}; done
  echo "$mask"
}

# render TEMPLATE OUT: replaces @NAME@ with the value of the shell variable T_NAME (multi-line
# values allowed).
render() {
  local template=$1 out=$2 line name value
  : >"$out"
  while IFS= read -r line || [ -n "$line" ]; do
    while [[ $line =~ @([A-Z0-9_]+)@ ]]; do
      name=${BASH_REMATCH[1]}
      value=T_$name
      [ -n "${!value+x}" ] || die "$template: no value for @$name@"
      line=${line/@$name@/${!value}}
    done
    printf '%s\n' "$line" >>"$out"
  done <"$template"
}

stop_pid() {
  # stop_pid PID [NAME]: TERM, up to 10 s, then KILL. Only PIDs this script started.
  local pid=$1 name=${2:-$1} i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null || true; return 0; }
    sleep 0.1
  done
  log "$name ($pid) did not stop within 10 s: KILL"
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

stop_all() {
  local i
  for ((i = ${#STARTED_PIDS[@]} - 1; i >= 0; i--)); do
    stop_pid "${STARTED_PIDS[$i]}"
  done
  STARTED_PIDS=()
}

forget_pid() {
  local pid=$1 kept=() p
  for p in "${STARTED_PIDS[@]}"; do
    [ "$p" = "$pid" ] || kept+=("$p")
  done
  STARTED_PIDS=("${kept[@]}")
}

# The process and its children (NGINX's master and workers).
process_tree() {
  local pid=$1
  echo "$pid"
  ps -o pid= --ppid "$pid" 2>/dev/null | tr -d ' ' || true
}

# CPU time (clock ticks, user + system) of a process and its children: /proc/PID/stat fields 14+15.
cpu_ticks() {
  local total=0 p stat rest
  for p in $(process_tree "$1"); do
    stat=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    rest=${stat##*) }   # fields from 3 on (the command name may hold spaces)
    # shellcheck disable=SC2086
    set -- $rest
    total=$((total + ${12} + ${13}))
  done
  echo "$total"
}

# memory_kb PID FIELD: the sum of FIELD (VmRSS, VmHWM) over the process and its children, in kB.
memory_kb() {
  local total=0 p v
  for p in $(process_tree "$1"); do
    v=$(awk -v f="$2:" '$1 == f { print $2 }' "/proc/$p/status" 2>/dev/null || true)
    total=$((total + ${v:-0}))
  done
  echo "$total"
}

wait_http() {
  # wait_http URL SECONDS [PID]: until URL answers 2xx; fails early when PID died.
  local url=$1 seconds=$2 pid=${3:-} i
  for i in $(seq 1 $((seconds * 5))); do
    if curl -fsS -o /dev/null --max-time 2 "$url" 2>/dev/null; then
      return 0
    fi
    if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
      return 1
    fi
    sleep 0.2
  done
  return 1
}

start_backends() {
  # NGINX HTTP/1.1 backends and the gRPC backend (GrpcBackend.java, run from the fat jar).
  local i port servers=""
  mkdir -p "$WORKDIR/backends-tmp"
  for i in $(seq 1 "$BACKENDS"); do
    port=$((PORT_BACKEND0 + i))
    # 100 bytes of body, whatever the id's width.
    local body
    body=$(printf 'backend %-91s' "b$i")
    body=${body:0:99}
    servers+="    server {
        listen 127.0.0.1:$port;
        location / {
            add_header X-Backend-Id b$i;
            return 200 \"$body\\n\";
        }
    }
"
  done
  T_BACKENDS=$BACKENDS T_BACKEND_WORKERS=$BACKEND_WORKERS T_WORKDIR=$WORKDIR T_BACKEND_SERVERS=$servers \
    render "$LOADTEST_DIR/backends.nginx.conf" "$WORKDIR/backends.nginx.conf"
  spawn "$BACKEND_CPUS" nginx -p "$WORKDIR" -c "$WORKDIR/backends.nginx.conf" -g 'daemon off;' \
    >"$WORKDIR/backends.out" 2>&1 &
  BACKENDS_PID=$!
  STARTED_PIDS+=("$BACKENDS_PID")
  for i in $(seq 1 "$BACKENDS"); do
    wait_http "http://127.0.0.1:$((PORT_BACKEND0 + i))/health" 20 "$BACKENDS_PID" \
      || die "backend nginx did not start: $(cat "$WORKDIR/backends.out" "$WORKDIR/backends-error.log" 2>/dev/null)"
  done
  local bodylen
  bodylen=$(curl -fsS "http://127.0.0.1:$((PORT_BACKEND0 + 1))/" | wc -c)
  [ "$bodylen" -eq 100 ] || die "backend body is $bodylen bytes, expected 100"
  log "backends: $BACKENDS NGINX servers on 127.0.0.1:$((PORT_BACKEND0 + 1))-$((PORT_BACKEND0 + BACKENDS)) ($BACKEND_WORKERS worker(s)), 100-byte body"

  if [ "${WITH_GRPC_BACKEND:-1}" = 1 ]; then
    (cd "$REPO_DIR" && exec java -XX:+UseSerialGC -Xmx256m -cp "$FULCRUM_JAR" "$LOADTEST_DIR/GrpcBackend.java" \
      "$PORT_GRPC_BACKEND" "$GRPC_BACKEND_LOOPS") >"$WORKDIR/grpc-backend.out" 2>&1 &
    GRPC_BACKEND_PID=$!
    STARTED_PIDS+=("$GRPC_BACKEND_PID")
    for i in $(seq 1 150); do
      grep -q '^ready' "$WORKDIR/grpc-backend.out" 2>/dev/null && break
      kill -0 "$GRPC_BACKEND_PID" 2>/dev/null || die "gRPC backend did not start: $(cat "$WORKDIR/grpc-backend.out")"
      sleep 0.2
    done
    grep -q '^ready' "$WORKDIR/grpc-backend.out" || die "gRPC backend not ready after 30 s"
    if [ -n "$BACKEND_CPUS" ]; then taskset -a -p -c "$BACKEND_CPUS" "$GRPC_BACKEND_PID" >/dev/null; fi
    log "gRPC backend: 127.0.0.1:$PORT_GRPC_BACKEND ($GRPC_BACKEND_LOOPS event loop(s))"
  fi
}

# bench_certificate: one self-signed ECDSA P-256 certificate for the HTTPS listeners of all three
# proxies ($WORKDIR/cert.pem, key.pem, and haproxy.pem, the two in one file), made once per run.
bench_certificate() {
  [ -f "$WORKDIR/haproxy.pem" ] && return 0
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=bench.example \
    -keyout "$WORKDIR/key.pem" -out "$WORKDIR/cert.pem" 2>/dev/null || die "openssl could not make a certificate"
  cat "$WORKDIR/cert.pem" "$WORKDIR/key.pem" >"$WORKDIR/haproxy.pem"
}

fulcrum_targets_yaml() {
  local i out=""
  for i in $(seq 1 "$BACKENDS"); do
    out+="      - {id: 127.0.0.1, port: $((PORT_BACKEND0 + i))}"$'\n'
  done
  printf '%s' "${out%$'\n'}"
}

# start_fulcrum INSTANCES [EXTRA JVM OPTS...]: sets FULCRUM_PID; waits for readiness and for every
# target to be healthy.
start_fulcrum() {
  local instances=$1
  shift
  [ -f "$FULCRUM_JAR" ] || die "$FULCRUM_JAR not found: build it first (mvn -B -q package -DskipTests)"
  mkdir -p "$WORKDIR/fulcrum-data"
  bench_certificate
  T_FULCRUM_CONTROL=$PORT_FULCRUM_CONTROL T_FULCRUM_H1=$PORT_FULCRUM_H1 T_FULCRUM_GRPC=$PORT_FULCRUM_GRPC \
    T_FULCRUM_TLS=$PORT_FULCRUM_TLS \
    T_WORKDIR=$WORKDIR T_FULCRUM_TARGETS=$(fulcrum_targets_yaml) T_GRPC_BACKEND=$PORT_GRPC_BACKEND \
    render "$LOADTEST_DIR/fulcrum.yaml.template" "$WORKDIR/fulcrum.yaml"
  local logf="$WORKDIR/fulcrum-$instances.log"
  # shellcheck disable=SC2086
  FULCRUM_CMD="java $FULCRUM_JVM_OPTS $FULCRUM_BENCH_PROPS $* -jar $FULCRUM_JAR --config $WORKDIR/fulcrum.yaml --instances $instances"
  # shellcheck disable=SC2086
  local affinity=off
  [ "$AFFINITY" = 1 ] && affinity=auto
  FULCRUM_CMD="FULCRUM_CPU_AFFINITY=$affinity $FULCRUM_CMD"
  (cd "$WORKDIR" && export FULCRUM_DATA_DIR="$WORKDIR/fulcrum-data" FULCRUM_CPU_AFFINITY=$affinity && spawn "$PROXY_CPUS" \
    java $FULCRUM_JVM_OPTS $FULCRUM_BENCH_PROPS "$@" -jar "$FULCRUM_JAR" --config "$WORKDIR/fulcrum.yaml" --instances "$instances") \
    >"$logf" 2>&1 &
  FULCRUM_PID=$!
  STARTED_PIDS+=("$FULCRUM_PID")
  wait_http "http://127.0.0.1:$PORT_FULCRUM_CONTROL/health/ready" 90 "$FULCRUM_PID" \
    || die "Fulcrum did not become ready: $(tail -20 "$logf")"
  local want=$((BACKENDS + ${WITH_GRPC_BACKEND:-1})) i n=0
  for i in $(seq 1 150); do
    n=$(grep -c -- '-> healthy' "$logf" || true)
    [ "$n" -ge "$want" ] && break
    sleep 0.2
  done
  [ "$n" -ge "$want" ] || log "warning: only $n of $want targets healthy in Fulcrum after 30 s (it fails open meanwhile)"
  FULCRUM_TRANSPORT_USED=$(sed -n 's/.*network transport: \([a-z_]*\).*/\1/p' "$logf" | head -1)
  log "Fulcrum: pid $FULCRUM_PID, --instances $instances, transport ${FULCRUM_TRANSPORT_USED:-?}, listeners :$PORT_FULCRUM_H1 (HTTP/1.1 + h2c) :$PORT_FULCRUM_GRPC (gRPC) :$PORT_FULCRUM_TLS (HTTPS), $n/$want targets healthy"
}

# start_three CONTROL_PORT: Fulcrum, HAProxy and NGINX from $WORKDIR/fulcrum.yaml, haproxy.cfg and
# nginx.conf (written by the caller), Fulcrum with one listener instance; sets FULCRUM_PID,
# HAPROXY_PID and NGINX_PID and waits for Fulcrum's readiness on CONTROL_PORT.
start_three() {
  mkdir -p "$WORKDIR/fulcrum-data"
  # shellcheck disable=SC2086
  (cd "$WORKDIR" && export FULCRUM_DATA_DIR="$WORKDIR/fulcrum-data" && spawn "$PROXY_CPUS" \
    java $FULCRUM_JVM_OPTS -jar "$FULCRUM_JAR" --config "$WORKDIR/fulcrum.yaml" --instances 1) >"$WORKDIR/fulcrum.log" 2>&1 &
  FULCRUM_PID=$!
  STARTED_PIDS+=("$FULCRUM_PID")
  haproxy -c -q -f "$WORKDIR/haproxy.cfg" || die "haproxy rejects $WORKDIR/haproxy.cfg"
  spawn "$PROXY_CPUS" haproxy -db -f "$WORKDIR/haproxy.cfg" >"$WORKDIR/haproxy.log" 2>&1 &
  HAPROXY_PID=$!
  STARTED_PIDS+=("$HAPROXY_PID")
  spawn "$PROXY_CPUS" nginx -p "$WORKDIR" -c "$WORKDIR/nginx.conf" -g 'daemon off;' >"$WORKDIR/nginx.log" 2>&1 &
  NGINX_PID=$!
  STARTED_PIDS+=("$NGINX_PID")
  wait_http "http://127.0.0.1:$1/health/ready" 90 "$FULCRUM_PID" || die "Fulcrum did not start: $(tail -5 "$WORKDIR/fulcrum.log")"
}

start_haproxy() {
  local threads=$1 i servers=""
  for i in $(seq 1 "$BACKENDS"); do
    servers+="    server b$i 127.0.0.1:$((PORT_BACKEND0 + i))"$'\n'
  done
  bench_certificate
  local cpu_map="# no cpu-map: the kernel places the threads (AFFINITY=0)"
  [ "$AFFINITY" = 1 ] && cpu_map="cpu-map auto:1/1-$threads $(cpus_of "$(proxy_cpu_list)" | head -n "$threads" | paste -sd' ')"
  T_CPU_MAP=$cpu_map T_THREADS=$threads T_HAPROXY_H1=$PORT_HAPROXY_H1 T_HAPROXY_H2=$PORT_HAPROXY_H2 T_HAPROXY_SERVERS=${servers%$'\n'} \
    T_HAPROXY_GRPC=$PORT_HAPROXY_GRPC T_GRPC_BACKEND=$PORT_GRPC_BACKEND T_HAPROXY_TLS=$PORT_HAPROXY_TLS T_WORKDIR=$WORKDIR \
    render "$LOADTEST_DIR/haproxy.cfg" "$WORKDIR/haproxy.cfg"
  haproxy -c -q -f "$WORKDIR/haproxy.cfg" || die "haproxy rejects $WORKDIR/haproxy.cfg"
  HAPROXY_CMD="haproxy -db -f $WORKDIR/haproxy.cfg"
  spawn "$PROXY_CPUS" haproxy -db -f "$WORKDIR/haproxy.cfg" >"$WORKDIR/haproxy-$threads.log" 2>&1 &
  HAPROXY_PID=$!
  STARTED_PIDS+=("$HAPROXY_PID")
  wait_http "http://127.0.0.1:$PORT_HAPROXY_H1/" 20 "$HAPROXY_PID" \
    || die "HAProxy did not start: $(cat "$WORKDIR/haproxy-$threads.log")"
  log "HAProxy: pid $HAPROXY_PID, nbthread $threads, :$PORT_HAPROXY_H1 (HTTP/1.1) :$PORT_HAPROXY_H2 (h2c) :$PORT_HAPROXY_GRPC (gRPC) :$PORT_HAPROXY_TLS (HTTPS)"
}

start_nginx() {
  local workers=$1 keepalive=$2 i servers=""
  for i in $(seq 1 "$BACKENDS"); do
    servers+="        server 127.0.0.1:$((PORT_BACKEND0 + i));"$'\n'
  done
  mkdir -p "$WORKDIR/nginx-tmp"
  bench_certificate
  local cpu_affinity="# no worker_cpu_affinity: the kernel places the workers (AFFINITY=0)"
  [ "$AFFINITY" = 1 ] && cpu_affinity="worker_cpu_affinity auto $(cpu_mask_of "$(proxy_cpu_list)");"
  T_CPU_AFFINITY=$cpu_affinity T_WORKERS=$workers T_KEEPALIVE=$keepalive T_WORKDIR=$WORKDIR T_NGINX_H1=$PORT_NGINX_H1 T_NGINX_H2=$PORT_NGINX_H2 \
    T_NGINX_GRPC=$PORT_NGINX_GRPC T_GRPC_BACKEND=$PORT_GRPC_BACKEND T_NGINX_TLS=$PORT_NGINX_TLS \
    T_NGINX_SERVERS=${servers%$'\n'} render "$LOADTEST_DIR/nginx.conf" "$WORKDIR/nginx.conf"
  NGINX_CMD="nginx -p $WORKDIR -c $WORKDIR/nginx.conf -g 'daemon off;'"
  spawn "$PROXY_CPUS" nginx -p "$WORKDIR" -c "$WORKDIR/nginx.conf" -g 'daemon off;' >"$WORKDIR/nginx-$workers.log" 2>&1 &
  NGINX_PID=$!
  STARTED_PIDS+=("$NGINX_PID")
  wait_http "http://127.0.0.1:$PORT_NGINX_H1/" 20 "$NGINX_PID" \
    || die "NGINX did not start: $(cat "$WORKDIR/nginx-$workers.log" "$WORKDIR/nginx-error.log" 2>/dev/null)"
  log "NGINX: pid $NGINX_PID, worker_processes $workers, keepalive $keepalive, :$PORT_NGINX_H1 (HTTP/1.1) :$PORT_NGINX_H2 (h2c) :$PORT_NGINX_GRPC (gRPC) :$PORT_NGINX_TLS (HTTPS)"
}

# The gRPC request body: one length-prefixed message (protobuf field 1 = "helloworld").
write_grpc_request() {
  printf '\x00\x00\x00\x00\x0c\x0a\x0ahelloworld' >"$1"
}

# to_ms VALUE: wrk's latency (e.g. 512.00us, 1.20ms, 2.01s) in milliseconds.
to_ms() {
  awk -v v="$1" 'BEGIN {
    n = v + 0; u = v; sub(/^[0-9.]+/, "", u)
    if (u == "us") n = n / 1000; else if (u == "s") n = n * 1000; else if (u == "m") n = n * 60000
    printf "%.3f", n }'
}

# Of the numbers on stdin, one a line: the median ("-" for none), and "min-max".
# wrk_round PID URL SECONDS [WRK ARGS...]: one wrk run (-t1 -c$CONNS) against URL; prints
# "req/s p50_ms p99_ms cpu_us_per_request", the CPU being PID's and its children's, user and system
# ("-" with no PID: the backend alone).
wrk_round() {
  local pid=$1 url=$2 seconds=$3 before after out
  shift 3
  before=$([ -n "$pid" ] && cpu_ticks "$pid" || echo 0)
  out=$(pinned "$LOAD_CPUS" wrk -t1 -c"$CONNS" -d"${seconds}s" --latency "$@" "$url")
  after=$([ -n "$pid" ] && cpu_ticks "$pid" || echo 0)
  local rps p50 p99 requests
  rps=$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")
  requests=$(awk '/requests in/ { print $1 }' <<<"$out")
  p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
  p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")")
  awk -v r="$rps" -v a="$p50" -v b="$p99" -v t=$((after - before)) -v n="$requests" -v hz="$CLK_TCK" -v pid="$pid" \
    'BEGIN { cpu = (pid == "" || n == 0) ? "-" : sprintf("%.1f", t / hz * 1e6 / n); printf "%.0f %s %s %s\n", r, a, b, cpu }'
}

median_of() { sort -n | awk '{ v[NR] = $1 } END { if (NR == 0) print "-"; else print v[int((NR + 1) / 2)] }'; }
range_of() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { print lo "-" hi }'; }
# column_of N: field N of each non-empty line on stdin.
column_of() { awk -v c="$1" 'NF { print $c }'; }

# compare_paths TITLE HEADER PATH...: the paths of one Fulcrum listener (BASE, FULCRUM_PID) side by
# side, each request with HEADER: WARMUP_SECONDS of each load on each path, then ROUNDS interleaved
# rounds of ROUND_SECONDS of wrk (HTTP/1.1, -cCONNS) and h2load (HTTP/2, -c10 -m10) on
# BASE/<path>/x; prints the medians of req/s (with min-max), wrk's p50 and p99, and Fulcrum's CPU
# per request (jwt.sh, oidc.sh).
compare_paths() {
  local PATHS_TITLE=$1 PATHS_HEADER=$2
  shift 2
  local PATHS="$*"
  local LOADS="h1 h2"
  label() { case $1 in h1) echo "HTTP/1.1, wrk -c$CONNS" ;; h2) echo "HTTP/2, h2load -c10 -m10" ;; esac; }

  # run PATH LOAD SECONDS: prints "req/s p50_ms p99_ms cpu_us_per_request".
  run() {
    local path=$1 load=$2 seconds=$3 before after out rps requests p50 p99
    before=$(cpu_ticks "$FULCRUM_PID")
    case $load in
      h1)
        out=$(pinned "$LOAD_CPUS" wrk -t1 -c"$CONNS" -d"${seconds}s" --latency -H "$PATHS_HEADER" "$BASE/$path/x")
        rps=$(awk '/^Requests\/sec/ { print $2 }' <<<"$out")
        requests=$(awk '/requests in/ { print $1 }' <<<"$out")
        p50=$(to_ms "$(awk '$1 == "50%" { print $2 }' <<<"$out")")
        p99=$(to_ms "$(awk '$1 == "99%" { print $2 }' <<<"$out")") ;;
      h2)
        out=$(pinned "$LOAD_CPUS" h2load -c10 -m10 -D "$seconds" -H "$PATHS_HEADER" "$BASE/$path/x" 2>&1)
        rps=$(awk '/^finished in/ { gsub(",", "", $4); print $4 }' <<<"$out")
        requests=$(awk '/^requests:/ { print $8 }' <<<"$out")
        p50=-
        p99=- ;;
    esac
    after=$(cpu_ticks "$FULCRUM_PID")
    awk -v r="$rps" -v a="$p50" -v b="$p99" -v t=$((after - before)) -v n="$requests" -v hz="$CLK_TCK" \
      'BEGIN { cpu = n == 0 ? "-" : sprintf("%.1f", t / hz * 1e6 / n); printf "%.0f %s %s %s\n", r, a, b, cpu }'
  }

  log "warm-up: ${WARMUP_SECONDS}s of each load on each path"
  for load in h1 h2; do for path in $PATHS; do run "$path" "$load" "$WARMUP_SECONDS" >/dev/null; done; done

  declare -A results
  for load in $LOADS; do
    for round in $(seq 1 "$ROUNDS"); do
      for path in $PATHS; do
        r=$(run "$path" "$load" "$ROUND_SECONDS")
        results[$load,$path]+="$r"$'\n'
        log "$load round $round /$path/: $r (req/s p50 p99 µs-CPU/req)"
      done
    done
  done

  echo
  echo "$PATHS_TITLE, 1 listener instance, $ROUNDS interleaved rounds of ${ROUND_SECONDS}s"
  echo "(medians; req/s with min-max; CPU: Fulcrum's user+system CPU per request)"
  echo
  echo "| Load | Path | req/s | (min-max) | p50 ms | p99 ms | CPU µs/req |"
  echo "|---|---|---:|---|---:|---:|---:|"
  for load in $LOADS; do
    for path in $PATHS; do
      data=${results[$load,$path]}
      printf '| %s | /%s/ | %s | %s | %s | %s | %s |\n' "$(label "$load")" "$path" \
        "$(column_of 1 <<<"$data" | median_of)" "$(column_of 1 <<<"$data" | range_of)" \
        "$(column_of 2 <<<"$data" | median_of)" "$(column_of 3 <<<"$data" | median_of)" \
        "$(column_of 4 <<<"$data" | median_of)"
    done
  done
}
