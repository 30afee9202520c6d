#!/usr/bin/env bash
# What a rule's jwt-validation action costs: one Fulcrum HTTPS listener (one listener instance) in
# front of compare.sh's NGINX backends, two paths side by side in interleaved rounds: /open/ (a rule
# that forwards) and /jwt/ (the same forward behind jwt-validation, every request carrying the same
# valid RS256 token, as a service's client does for the token's life). The JWKS endpoint is
# `openssl s_server -WWW` over HTTPS with its own certificate (jwks.ca-certificates). Loads: wrk
# (HTTP/1.1, keep-alive) and h2load (HTTP/2 over TLS). The cost of a token never seen (an RSA
# verification) is JMH's TokenCheckBenchmark. Prints a table; see loadtest/README.md and RESULTS.md.
#
#   loadtest/jwt.sh            # about 4 minutes with the defaults
#   loadtest/jwt.sh --quick    # a few seconds per round, to try the script
#
# Installs nothing. Starts only its own processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

QUICK=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,13p' "$0"; echo "Environment: ROUND_SECONDS [10] ROUNDS [3] WARMUP_SECONDS [15] CONNS [50] BASE_PORT [18000]"; exit 0 ;;
    *) echo "jwt.sh: unknown argument '$a'" >&2; exit 2 ;;
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
check_tools wrk h2load nginx java curl ss openssl python3 || exit 2

PORT_JWKS=$((BASE_PORT + 601))
PORT_CONTROL=$((BASE_PORT + 690))
ports=("$PORT_FULCRUM_TLS" "$PORT_JWKS" "$PORT_CONTROL")
for i in $(seq 1 "$BACKENDS"); do ports+=($((PORT_BACKEND0 + i))); done
check_ports_free "${ports[@]}"
WORKDIR=$(mktemp -d /tmp/fulcrum-jwt.XXXXXX)
chmod 755 "$WORKDIR"
trap remove_workdir EXIT
trap 'exit 130' INT TERM

start_backends
bench_certificate

# The identity provider: an RSA signing key, its JWKS, and a token good for a day.
ISSUER=https://issuer.bench.example
openssl genrsa -out "$WORKDIR/signing.pem" 2048 2>/dev/null || die "openssl could not make an RSA key"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=idp.bench.example \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$WORKDIR/idp-key.pem" -out "$WORKDIR/idp-cert.pem" 2>/dev/null \
  || die "openssl could not make the JWKS endpoint's certificate"
mkdir -p "$WORKDIR/idp"
modulus=$(openssl rsa -in "$WORKDIR/signing.pem" -noout -modulus 2>/dev/null | cut -d= -f2)
python3 - "$modulus" >"$WORKDIR/idp/jwks.json" <<'EOF'
import base64, json, sys
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
n = bytes.fromhex(sys.argv[1])
print(json.dumps({"keys": [{"kty": "RSA", "kid": "bench", "use": "sig", "alg": "RS256", "n": b64(n), "e": b64(bytes([1, 0, 1]))}]}))
EOF
b64url() { openssl base64 -A | tr '+/' '-_' | tr -d '='; }
now=$(date +%s)
signed="$(printf '{"alg":"RS256","kid":"bench","typ":"JWT"}' | b64url).$(printf \
  '{"iss":"%s","sub":"client-1","scope":"orders:read","iat":%s,"exp":%s}' "$ISSUER" "$now" $((now + 86400)) | b64url)"
TOKEN="$signed.$(printf '%s' "$signed" | openssl dgst -sha256 -sign "$WORKDIR/signing.pem" -binary | b64url)"
(cd "$WORKDIR/idp" && exec openssl s_server -quiet -WWW -accept "127.0.0.1:$PORT_JWKS" -cert "$WORKDIR/idp-cert.pem" \
  -key "$WORKDIR/idp-key.pem") >"$WORKDIR/idp.log" 2>&1 &
JWKS_PID=$!
STARTED_PIDS+=("$JWKS_PID")
for i in $(seq 1 50); do
  curl -fsS --cacert "$WORKDIR/idp-cert.pem" -o /dev/null "https://127.0.0.1:$PORT_JWKS/jwks.json" 2>/dev/null && break
  [ "$i" = 50 ] && die "the JWKS endpoint did not start: $(cat "$WORKDIR/idp.log")"
  sleep 0.2
done

cat >"$WORKDIR/fulcrum.yaml" <<EOF
nodes:
  - {zone: zone-a, address: 127.0.0.1}
control: {address: 127.0.0.1, port: $PORT_CONTROL}
dns: {enabled: false}
reload: {enabled: false}
shutdown: {timeout-seconds: 1}
data-dir: $WORKDIR/fulcrum-data
jwks: {ca-certificates: $WORKDIR/idp-cert.pem}
load-balancers:
  - name: bench-jwt
    listeners:
      - protocol: HTTPS
        port: $PORT_FULCRUM_TLS
        certificates: [{certificate: $WORKDIR/cert.pem, private-key: $WORKDIR/key.pem}]
        default-actions: [{type: fixed-response, status-code: "404"}]
        rules:
          - priority: 1
            conditions: [{field: path-pattern, values: [/open/*]}]
            actions: [{type: forward, target-group: web}]
          - priority: 2
            conditions: [{field: path-pattern, values: [/jwt/*]}]
            actions:
              - type: jwt-validation
                jwks-endpoint: https://127.0.0.1:$PORT_JWKS/jwks.json
                issuer: $ISSUER
                additional-claims: [{name: scope, format: space-separated-values, values: [orders:read]}]
              - {type: forward, target-group: web}
target-groups:
  - name: web
    target-type: ip
    protocol: HTTP
    port: 80
    health-check: {interval-seconds: 5, timeout-seconds: 4, healthy-threshold-count: 2}
    targets:
$(fulcrum_targets_yaml)
EOF
mkdir -p "$WORKDIR/fulcrum-data"
# shellcheck disable=SC2086
(cd "$WORKDIR" && export FULCRUM_DATA_DIR="$WORKDIR/fulcrum-data" && spawn "$PROXY_CPUS" \
  java $FULCRUM_JVM_OPTS $FULCRUM_BENCH_PROPS -jar "$FULCRUM_JAR" --config "$WORKDIR/fulcrum.yaml" --instances 1) \
  >"$WORKDIR/fulcrum.log" 2>&1 &
FULCRUM_PID=$!
STARTED_PIDS+=("$FULCRUM_PID")
wait_http "http://127.0.0.1:$PORT_CONTROL/health/ready" 90 "$FULCRUM_PID" || die "Fulcrum did not start: $(tail -5 "$WORKDIR/fulcrum.log")"
BASE="https://127.0.0.1:$PORT_FULCRUM_TLS"
for i in $(seq 1 100); do
  code=$(curl -sk -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $TOKEN" "$BASE/jwt/x" || true)
  [ "$code" = 200 ] && break
  [ "$i" = 100 ] && die "no 200 through the jwt-validation rule (last: $code): $(tail -5 "$WORKDIR/fulcrum.log")"
  sleep 0.2
done
[ "$(curl -sk -o /dev/null -w '%{http_code}' "$BASE/jwt/x")" = 401 ] || die "a request without a token was not refused"
log "Fulcrum :$PORT_FULCRUM_TLS (HTTPS, 1 instance), JWKS :$PORT_JWKS; /open/ forwards, /jwt/ validates the token first"

compare_paths "jwt-validation on an HTTPS listener" "Authorization: Bearer $TOKEN" open jwt
