#!/usr/bin/env bash
# What a rule's authenticate-oidc action costs a signed-in user's requests: one Fulcrum HTTPS
# listener (one listener instance) in front of compare.sh's NGINX backends, two paths side by side in
# interleaved rounds: /open/ (a rule that forwards) and /oidc/ (the same forward behind
# authenticate-oidc), every request of both carrying the same session cookie, as a browser's do for
# the session's life. The identity provider is a small Python HTTPS server (authorize, token,
# userinfo) with its own certificate (oidc.ca-certificates); curl signs in once, following the
# redirects. Loads: wrk (HTTP/1.1, keep-alive) and h2load (HTTP/2 over TLS). Prints a table; see
# loadtest/README.md and RESULTS.md.
#
#   loadtest/oidc.sh            # about 4 minutes with the defaults
#   loadtest/oidc.sh --quick    # a few seconds per round, to try the script
#
# Installs nothing. Starts only its own processes, on 127.0.0.1, and stops each by PID on exit.
set -euo pipefail

QUICK=0
for a in "$@"; do
  case $a in
    --quick) QUICK=1 ;;
    -h|--help) sed -n '2,13p' "$0"; echo "Environment: ROUND_SECONDS [10] ROUNDS [3] WARMUP_SECONDS [15] CONNS [50] BASE_PORT [18000]"; exit 0 ;;
    *) echo "oidc.sh: unknown argument '$a'" >&2; exit 2 ;;
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

PORT_IDP=$((BASE_PORT + 602))
PORT_CONTROL=$((BASE_PORT + 690))
ports=("$PORT_FULCRUM_TLS" "$PORT_IDP" "$PORT_CONTROL")
for i in $(seq 1 "$BACKENDS"); do ports+=($((PORT_BACKEND0 + i))); done
check_ports_free "${ports[@]}"
WORKDIR=$(mktemp -d /tmp/fulcrum-oidc.XXXXXX)
chmod 755 "$WORKDIR"
trap remove_workdir EXIT
trap 'exit 130' INT TERM

start_backends
bench_certificate

# The identity provider: signs every user in at once (a real one would show a login page).
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=idp.bench.example \
  -addext "subjectAltName=IP:127.0.0.1" -keyout "$WORKDIR/idp-key.pem" -out "$WORKDIR/idp-cert.pem" 2>/dev/null \
  || die "openssl could not make the identity provider's certificate"
ISSUER="https://127.0.0.1:$PORT_IDP"
cat >"$WORKDIR/idp.py" <<'PY'
import base64, http.server, json, ssl, sys, time, urllib.parse
port, cert, key = int(sys.argv[1]), sys.argv[2], sys.argv[3]
issuer = "https://127.0.0.1:%d" % port
b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
class Idp(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def answer(self, status, body=b"", headers=()):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        q = dict(urllib.parse.parse_qsl(url.query))
        if url.path == "/authorize":
            back = q["redirect_uri"] + "?" + urllib.parse.urlencode({"code": "c1", "state": q["state"]})
            self.answer(302, headers=[("Location", back)])
        elif url.path == "/userinfo":
            claims = {"sub": "user-1", "email": "alice@example.com", "name": "Alice", "groups": ["staff", "ops"]}
            self.answer(200, json.dumps(claims).encode(), [("Content-Type", "application/json")])
        else:
            self.answer(404)
    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length", "0")))
        now = int(time.time())
        claims = {"iss": issuer, "sub": "user-1", "aud": "bench", "iat": now, "exp": now + 3600}
        id_token = b64(b'{"alg":"none"}') + "." + b64(json.dumps(claims).encode()) + "."
        # An access token of a typical JWT's size, so that the session cookie weighs what a real one does.
        body = {"access_token": "a" * 800, "token_type": "Bearer", "expires_in": 86400, "id_token": id_token}
        self.answer(200, json.dumps(body).encode(), [("Content-Type", "application/json")])
server = http.server.HTTPServer(("127.0.0.1", port), Idp)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(cert, key)
server.socket = context.wrap_socket(server.socket, server_side=True)
server.serve_forever()
PY
python3 "$WORKDIR/idp.py" "$PORT_IDP" "$WORKDIR/idp-cert.pem" "$WORKDIR/idp-key.pem" >"$WORKDIR/idp.log" 2>&1 &
IDP_PID=$!
STARTED_PIDS+=("$IDP_PID")
for i in $(seq 1 50); do
  curl -sS --cacert "$WORKDIR/idp-cert.pem" -o /dev/null "$ISSUER/none" 2>/dev/null && break
  [ "$i" = 50 ] && die "the identity provider did not start: $(cat "$WORKDIR/idp.log")"
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
oidc: {ca-certificates: $WORKDIR/idp-cert.pem}
load-balancers:
  - name: bench-oidc
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
            conditions: [{field: path-pattern, values: [/oidc/*]}]
            actions:
              - type: authenticate-oidc
                issuer: $ISSUER
                authorization-endpoint: $ISSUER/authorize
                token-endpoint: $ISSUER/token
                user-info-endpoint: $ISSUER/userinfo
                client-id: bench
                client-secret: bench-secret
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
[ "$(curl -sk -o /dev/null -w '%{http_code}' "$BASE/oidc/x")" = 302 ] || die "a request without a session was not sent to sign in"
# Signing in: curl follows Fulcrum's redirect to the IdP, the IdP's back, and Fulcrum's to /oidc/x.
for i in $(seq 1 100); do
  code=$(curl -sk -L -c "$WORKDIR/jar" -b "$WORKDIR/jar" -o /dev/null -w '%{http_code}' "$BASE/oidc/x" || true)
  [ "$code" = 200 ] && break
  [ "$i" = 100 ] && die "signing in did not end in a 200 (last: $code): $(tail -5 "$WORKDIR/fulcrum.log")"
  sleep 0.2
done
COOKIE=$(awk '$6 ~ /^AWSELBAuthSessionCookie-/ { printf "%s%s=%s", sep, $6, $7; sep = "; " }' "$WORKDIR/jar")
[ -n "$COOKIE" ] || die "no session cookie after signing in"
[ "$(curl -sk -o /dev/null -w '%{http_code}' -H "Cookie: $COOKIE" "$BASE/oidc/x")" = 200 ] \
  || die "the session cookie was not taken"
log "Fulcrum :$PORT_FULCRUM_TLS (HTTPS, 1 instance), IdP :$PORT_IDP; /open/ forwards, /oidc/ needs a session (cookie ${#COOKIE} bytes)"

compare_paths "authenticate-oidc (signed-in requests) on an HTTPS listener" "Cookie: $COOKIE" open oidc
