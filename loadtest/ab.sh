#!/usr/bin/env bash
# Two builds of Fulcrum side by side: CPU time per request of each at the same paced load, in
# interleaved runs (A B, A B, ...), on the backends and config of compare.sh. At a fixed rate the
# load generator's share of the CPUs is the same for both builds, so the figure moves far less with
# a busy machine than req/s flat out does: use it to decide whether a change to the data path pays.
# Each run's p99 (HTTP/1.1) and Fulcrum's RSS after it are printed beside it.
#
#   cp target/fulcrum.jar /tmp/after.jar; git stash -u; mvn -B -q package -DskipTests; cp target/fulcrum.jar /tmp/before.jar; git stash pop
#   loadtest/ab.sh /tmp/before.jar /tmp/after.jar           # HTTP/2 (h2load -c10 -m10), 30,000 req/s
#   TEST=h1 RATE=25000 loadtest/ab.sh /tmp/before.jar /tmp/after.jar
#   TEST=h1 CONNS=200 RATE=12000 loadtest/ab.sh /tmp/before.jar /tmp/after.jar    # 200 connections
#   TEST=h1close RATE=6000 loadtest/ab.sh /tmp/before.jar /tmp/after.jar   # a connection per request
#   B_JAVA_OPTS=-XX:PerMethodTrapLimit=0 loadtest/ab.sh target/fulcrum.jar target/fulcrum.jar  # a JVM flag
#   EXTRA_HEADER="Cookie: s=$(head -c 1800 /dev/zero | tr '\0' a)" TEST=h1 RATE=20000 loadtest/ab.sh A B  # big heads
#
# A_JAVA_OPTS and B_JAVA_OPTS are added to the JVM flags of A's and B's runs (after FULCRUM_JVM_OPTS,
# so they may override them); AFFINITY=1 pins Fulcrum's event loops as in compare.sh.
#
# Installs nothing. Starts only its own processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

TEST=${TEST:-h2}               # h1 (wrk, CONNS connections), h1close (the same, Connection: close) or h2 (h2load, 10 x 10)
CONNS=${CONNS:-50}             # HTTP/1.1 connections (h1, h1close)
RATE=${RATE:-30000}            # total req/s
PAIRS=${PAIRS:-3}              # A B runs
WARMUP_SECONDS=${WARMUP_SECONDS:-15}  # flat-out load on each fresh JVM before its measured run
RUN_SECONDS=${RUN_SECONDS:-20}
INSTANCES=${INSTANCES:-1}
A_JAVA_OPTS=${A_JAVA_OPTS:-}
B_JAVA_OPTS=${B_JAVA_OPTS:-}

[ $# -eq 2 ] || { echo "usage: loadtest/ab.sh A.jar B.jar (TEST=h1|h1close|h2 CONNS RATE PAIRS WARMUP_SECONDS RUN_SECONDS INSTANCES A_JAVA_OPTS B_JAVA_OPTS AFFINITY)" >&2; exit 2; }
for j in "$1" "$2"; do
  [ -f "$j" ] || { echo "ab: $j not found" >&2; exit 2; }
done
JARS=("$(realpath "$1")" "$(realpath "$2")") # Fulcrum runs in its work directory
JAVA_OPTS=("$A_JAVA_OPTS" "$B_JAVA_OPTS")

# shellcheck source=loadtest/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
case $TEST in
  h1|h1close) check_tools wrk java curl nginx || exit 2 ;;
  h2) check_tools h2load java curl nginx || exit 2 ;;
  *) die "TEST must be h1, h1close or h2 (not '$TEST')" ;;
esac
own_workdir ab

URL="http://127.0.0.1:$PORT_FULCRUM_H1/"
H2_CLIENTS=10
# wrk waits delay() ms before each request of a connection; h2load paces each client itself.
printf 'function delay() return %d end\n' $((CONNS * 1000 / RATE)) > "$WORKDIR/pace.lua"

load() { # load SECONDS PACED OUT: one load run; prints the requests it completed
  local seconds=$1 paced=$2 out=$3
  if [ "$TEST" != h2 ]; then
    local args=(wrk -t1 "-c$CONNS" "-d${seconds}s" --latency)
    [ "$TEST" = h1close ] && args+=(-H 'Connection: close')
    [ -n "${EXTRA_HEADER:-}" ] && args+=(-H "$EXTRA_HEADER")
    [ "$paced" = 1 ] && args+=(-s "$WORKDIR/pace.lua")
    pinned "$LOAD_CPUS" timeout --kill-after=5 $((seconds + 30)) "${args[@]}" "$URL" >"$out" 2>&1 || true
    awk '/requests in/ { print $1 }' "$out"
  else
    local args=(h2load "-c$H2_CLIENTS" -m10 -t1 -D "$seconds")
    [ "$paced" = 1 ] && args+=("--rps=$((RATE / H2_CLIENTS))")
    [ -n "${EXTRA_HEADER:-}" ] && args+=(-H "$EXTRA_HEADER")
    pinned "$LOAD_CPUS" timeout --kill-after=5 $((seconds + 30)) "${args[@]}" "$URL" >"$out" 2>&1 || true
    awk '/^requests:/ { print $8 }' "$out"
  fi
}

p99_ms() { # p99_ms OUT: a wrk run's 99th percentile in ms ("-" for h2load, whose log ab.sh does not keep)
  awk '/^ +99%/ { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
    printf "%.2f", v * (u == "us" ? 0.001 : u == "s" ? 1000 : 1); found = 1 }
    END { if (!found) printf "-" }' "$1"
}

TICKS=$(getconf CLK_TCK)
start_backends
printf 'pair\tbuild\tjar\tJava flags\treq/s\tCPU us/req\tp99 ms\tRSS MB\n' > "$WORKDIR/runs.tsv"
for pair in $(seq 1 "$PAIRS"); do
  for b in 0 1; do
    FULCRUM_JAR=${JARS[$b]}
    rm -rf "$WORKDIR/fulcrum-data" # each build starts from the config alone
    # shellcheck disable=SC2086 # the flags are words
    start_fulcrum "$INSTANCES" ${JAVA_OPTS[$b]}
    load "$WARMUP_SECONDS" 0 "$WORKDIR/warmup.txt" >/dev/null
    c0=$(cpu_ticks "$FULCRUM_PID")
    n=$(load "$RUN_SECONDS" 1 "$WORKDIR/run-$pair-$b.txt")
    c1=$(cpu_ticks "$FULCRUM_PID")
    [ -n "$n" ] && [ "$n" -gt 0 ] || die "no requests completed: $(tail -5 "$WORKDIR/run-$pair-$b.txt")"
    us=$(awk -v c=$((c1 - c0)) -v t="$TICKS" -v n="$n" 'BEGIN { printf "%.2f", c / t * 1e6 / n }')
    rps=$(awk -v n="$n" -v s="$RUN_SECONDS" 'BEGIN { printf "%d", n / s }')
    p99=$(p99_ms "$WORKDIR/run-$pair-$b.txt")
    rss=$(($(memory_kb "$FULCRUM_PID" VmRSS) / 1024))
    log "pair $pair, ${JARS[$b]} ${JAVA_OPTS[$b]}: $rps req/s, $us us CPU per request, p99 $p99 ms, RSS $rss MB"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$pair" "$([ $b = 0 ] && echo A || echo B)" "${JARS[$b]}" "${JAVA_OPTS[$b]:--}" "$rps" "$us" "$p99" "$rss" >> "$WORKDIR/runs.tsv"
    stop_pid "$FULCRUM_PID"
    forget_pid "$FULCRUM_PID"
  done
done

echo
echo "# ab.sh: $TEST at $RATE req/s, $PAIRS pairs of ${RUN_SECONDS} s runs after ${WARMUP_SECONDS} s of warm-up, --instances $INSTANCES, affinity $([ "$AFFINITY" = 1 ] && echo auto || echo off)"
column -t -s $'\t' "$WORKDIR/runs.tsv"
median() { # median BUILD: of the CPU figures of BUILD's runs
  awk -F'\t' -v b="$1" 'NR > 1 && $2 == b { print $6 }' "$WORKDIR/runs.tsv" | sort -n \
    | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
a=$(median A)
b=$(median B)
# Each pair's B/A as well: the machine's load drifts between pairs more than within one.
ratios=$(awk -F'\t' 'NR > 1 { u[$1, $2] = $6; p[$1] = 1 } END { for (k in p) printf "%.3f\n", u[k, "B"] / u[k, "A"] }' \
  "$WORKDIR/runs.tsv" | sort -n | tr '\n' ' ')
awk -v a="$a" -v b="$b" -v r="$ratios" 'BEGIN { printf "median CPU us/req: A %.2f, B %.2f, B/A %.3f; B/A by pair: %s\n", a, b, b / a, r }'
