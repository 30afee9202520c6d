package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.testing.JwksServer;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestJwts;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * ALB's jwt-validation action on a running HTTPS listener, with a real JWKS endpoint over HTTPS:
 * a request with a valid bearer token goes on to the rule's routing action with the token as it
 * came; one without gets 401 and a Bearer challenge, an invalid one 401 {@code invalid_token}, and
 * neither reaches a target. Keys rotated in at the issuer are fetched again (not more often than
 * every 10 s), every 5 minutes anyway, and a JWKS that cannot be read answers 500. The control
 * plane and the data plane run on virtual time.
 */
class JwtValidationTest {

  private static final String ISSUER = "https://issuer.example.com";
  private static final TestJwts.Key K1 = TestJwts.Key.rsa("k1");
  private static final TestJwts.Key K2 = TestJwts.Key.rsa("k2");

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private Gateway gateway;
  private Backend backend;
  private JwksServer idp;
  private Path data;
  private int port;
  private SSLContext trust;
  private final Map<HttpClient.Version, HttpClient> clients = new EnumMap<>(HttpClient.Version.class);

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createTempDirectory("jwt");
    data = dir.resolve("data");
    TestCertificates.Pem server = TestCertificates.pem(dir, "lb", "127.0.0.1");
    trust = TestCertificates.trusting(server.x509());
    backend = Backend.start(backends, "b", "127.0.0.1",
        req -> req.body().onSuccess(b -> req.response().end("got " + b.length() + " bytes: " + b)));
    idp = JwksServer.start(backends, dir, TestJwts.jwks(K1));
    port = Ports.free();
    String endpoint = idp.origin();
    gateway = Gateway.start(TestVertx.create(), """
        jwks: {ca-certificates: '%s'}
        data-dir: '%s'
        load-balancers:
          - name: lb
            attributes: {access_logs.s3.enabled: "true", access_logs.s3.bucket: logs}
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: [/api/*]}]
                    actions:
                      - type: jwt-validation
                        jwks-endpoint: %s/jwks
                        issuer: %s
                        additional-claims: [{name: scope, format: space-separated-values, values: [orders:read]}]
                      - {type: forward, target-group: tg}
                  - priority: 2
                    conditions: [{field: path-pattern, values: [/hello]}]
                    actions:
                      - {type: jwt-validation, jwks-endpoint: '%s/jwks', issuer: '%s'}
                      - {type: fixed-response, status-code: '200', message-body: hello}
                  - priority: 3
                    conditions: [{field: path-pattern, values: [/down/*]}]
                    actions:
                      - {type: jwt-validation, jwks-endpoint: '%s/down', issuer: '%s'}
                      - {type: forward, target-group: tg}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(idp.caFile(), data, port, server.certificate(), server.privateKey(), endpoint, ISSUER,
        endpoint, ISSUER, endpoint, ISSUER, backend.port()), 1, time);
  }

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private String token(TestJwts.Key key) {
    return key.sign(TestJwts.claims(ISSUER, time.millis()).put("scope", "profile orders:read"));
  }

  private HttpResponse<String> send(HttpClient.Version version, String method, String path, String body,
      String... headers) throws Exception {
    // One client per version, whose connections live across requests.
    HttpClient client = clients.computeIfAbsent(version, v -> HttpClient.newBuilder().version(v).sslContext(trust)
        .connectTimeout(Duration.ofSeconds(5)).build());
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> get(String path, String... headers) throws Exception {
    return send(HttpClient.Version.HTTP_1_1, "GET", path, null, headers);
  }

  @ParameterizedTest
  @EnumSource(HttpClient.Version.class)
  void aValidToken_reachesTheTarget_asItCame(HttpClient.Version version) throws Exception {
    String token = token(K1);
    send(version, "GET", "/api/orders", null, "Authorization", "Bearer " + token); // the keys are fetched by now
    long before = DirectForwarder.forwarded();
    HttpResponse<String> r = send(version, "POST", "/api/orders", "{\"n\":1}", "Authorization", "Bearer " + token);
    assertThat(DirectForwarder.forwarded() - before).as("the direct path took it").isEqualTo(1);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.version()).isEqualTo(version);
    assertThat(r.body()).isEqualTo("got 7 bytes: {\"n\":1}");
    assertThat(backend.lastRequest().getJsonObject("headers").getString("authorization")).isEqualTo("Bearer " + token);
  }

  @Test
  void noToken_is401WithABearerChallenge_andReachesNoTarget() throws Exception {
    long before = DirectForwarder.forwarded();
    HttpResponse<String> r = get("/api/orders");
    assertThat(r.statusCode()).isEqualTo(401);
    assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer");
    assertThat(r.headers().firstValue("Server")).hasValue("awselb/2.0");
    assertThat(r.body()).contains("401 Authorization Required").doesNotContain("got");
    assertThat(r.headers().firstValue("Content-Type")).hasValue("text/html");
    assertThat(get("/api/orders", "Authorization", "Basic dXNlcjpwYXNz").statusCode()).isEqualTo(401);
    assertThat(backend.trafficHits()).isZero();
    assertThat(DirectForwarder.forwarded()).isEqualTo(before);
  }

  @Test
  void anInvalidToken_is401InvalidToken_andReachesNoTarget() throws Exception {
    long now = time.millis() / 1000;
    TestJwts.Key stranger = new TestJwts.Key("k1", TestJwts.Key.rsa("x").pair());
    JsonObject good = TestJwts.claims(ISSUER, time.millis()).put("scope", "orders:read");
    for (String token : new String[] {
        K1.sign(good.copy().put("exp", now - 120)),
        K1.sign(good.copy().put("iss", "https://other.example.com")),
        K1.sign(good.copy().put("scope", "orders:write")),
        stranger.sign(good),
        "not-a-token"}) {
      HttpResponse<String> r = get("/api/orders", "Authorization", "Bearer " + token);
      assertThat(r.statusCode()).as(token).isEqualTo(401);
      assertThat(r.headers().firstValue("WWW-Authenticate")).hasValue("Bearer error=\"invalid_token\"");
    }
    assertThat(backend.trafficHits()).isZero();
  }

  @Test
  void theRoutingActionBehindIt_mayBeAFixedResponse_andRulesWithoutItNeedNoToken() throws Exception {
    assertThat(get("/hello").statusCode()).isEqualTo(401);
    HttpResponse<String> hello = get("/hello", "Authorization", "Bearer " + token(K1));
    assertThat(hello.statusCode()).isEqualTo(200);
    assertThat(hello.body()).isEqualTo("hello");
    HttpResponse<String> open = get("/public");
    assertThat(open.statusCode()).isEqualTo(200);
    assertThat(open.body()).startsWith("got 0 bytes");
  }

  @Test
  void aKeyRotatedIn_isFetchedAgain_butNotMoreOftenThanEvery10Seconds() throws Exception {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> idp.fetches() == 1);
    idp.serve(TestJwts.jwks(K1, K2));
    String token = token(K2);
    assertThat(send(HttpClient.Version.HTTP_1_1, "POST", "/api/orders", "y".repeat(100_000), "Authorization",
        "Bearer " + token).statusCode()).as("the keys were fetched less than 10 s ago").isEqualTo(401);
    assertThat(idp.fetches()).isEqualTo(1);
    assertThat(send(HttpClient.Version.HTTP_2, "POST", "/hello", "y".repeat(100_000), "Authorization",
        "Bearer " + token).statusCode()).isEqualTo(401);
    try (RawConnection c = RawConnection.tls(trust, port)) {
      // A refused request's body, held while the keys might have been fetched, is read and dropped: the
      // request behind it on the connection is served.
      c.send("POST /api/orders HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer " + token + "\r\nContent-Length: 10000"
          + "\r\n\r\n" + "z".repeat(10_000) + "GET /api/orders HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer "
          + token(K1) + "\r\n\r\n");
      assertThat(c.read().status()).isEqualTo(401);
      assertThat(c.read().status()).isEqualTo(200);
    }

    time.advance(Duration.ofSeconds(10));
    HttpResponse<String> r = send(HttpClient.Version.HTTP_1_1, "POST", "/api/orders", "x".repeat(100_000),
        "Authorization", "Bearer " + token);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).startsWith("got 100000 bytes: xxx");
    assertThat(idp.fetches()).isEqualTo(2);
    assertThat(get("/api/orders", "Authorization", "Bearer " + token(K2)).statusCode()).isEqualTo(200);
    assertThat(idp.fetches()).as("a known key needs no fetch").isEqualTo(2);
  }

  @Test
  void theKeysAreFetchedEvery5Minutes_andAKeyTakenOutIsRefusedThen() throws Exception {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> idp.fetches() == 1);
    idp.serve(TestJwts.jwks(K2));
    time.advance(Duration.ofMinutes(4));
    assertThat(get("/api/orders", "Authorization", "Bearer " + token(K1)).statusCode()).isEqualTo(200);
    time.advance(Duration.ofMinutes(1));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> idp.fetches() == 2);
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> get("/api/orders", "Authorization", "Bearer " + token(K1)).statusCode() == 401);
    assertThat(get("/api/orders", "Authorization", "Bearer " + token(K2)).statusCode()).isEqualTo(200);
  }

  @Test
  void whileTheJwksCannotBeRead_aTokenGets500_andNoTokenStill401() throws Exception {
    HttpResponse<String> r = get("/down/x", "Authorization", "Bearer " + token(K1));
    assertThat(r.statusCode()).isEqualTo(500);
    assertThat(r.body()).contains("500 Internal Server Error");
    assertThat(get("/down/x").statusCode()).isEqualTo(401);
    assertThat(backend.trafficHits()).isZero();
  }

  @Test
  void theAccessLog_saysWhichActionsRan() throws Exception {
    get("/api/orders");
    get("/api/orders", "Authorization", "Bearer " + token(K1));
    get("/public");
    time.advance(Duration.ofMillis(LogDestination.periodEnd(time.millis()) - time.millis()));
    List<String> lines = LogFiles.lines(LogFiles.await(data.resolve("s3").resolve("logs"), 1).get(0));
    assertThat(lines).hasSize(3);
    // matched_rule_priority, request_creation_time, actions_executed.
    assertThat(lines.get(0)).contains(" 401 - ").containsPattern(" 1 \\S+Z \"jwt-validation\" ");
    assertThat(lines.get(1)).contains(" 200 200 ").containsPattern(" 1 \\S+Z \"jwt-validation,forward\" ");
    assertThat(lines.get(2)).contains(" 200 200 ").containsPattern(" 0 \\S+Z \"forward\" ");
  }

  @Test
  void explainingARequest_namesTheTokenItNeeds() throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + gateway.controlPort() + "/ui/explain?port=" + port + "&path=%2Fapi%2Forders")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    JsonObject action = new JsonObject(r.body()).getJsonObject("action");
    assertThat(action.getString("type")).isEqualTo("forward");
    assertThat(action.getJsonObject("jwtValidation").getString("issuer")).isEqualTo(ISSUER);
    assertThat(action.getJsonObject("jwtValidation").getJsonArray("additionalClaims")).hasSize(1);
  }

  private List<JsonObject> jwksEvents() throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + gateway.controlPort() + "/ui/events")).build(), HttpResponse.BodyHandlers.ofString());
    return new JsonObject(r.body()).getJsonArray("events").stream().map(JsonObject.class::cast)
        .filter(e -> e.getString("type").equals("JwksKeys")).toList();
  }

  @Test
  void theJournal_saysWhenAJwksIsRead_changes_orFails() throws Exception {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> jwksEvents().size() == 2);
    List<JsonObject> first = jwksEvents();
    JsonObject read = first.stream().filter(e -> e.getString("reason").endsWith("/jwks")).findFirst().orElseThrow();
    assertThat(read.containsKey("from")).isFalse();
    assertThat(read.getString("to")).isEqualTo("1 key");
    assertThat(read.getString("description")).isEqualTo("1 RS256 signing key (k1)");
    JsonObject down = first.stream().filter(e -> e.getString("reason").endsWith("/down")).findFirst().orElseThrow();
    assertThat(down.getString("to")).isEqualTo("failing");
    assertThat(down.getString("description")).contains("503");

    time.advance(Duration.ofMinutes(5));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> idp.fetches() == 2);
    assertThat(jwksEvents()).as("the same keys again, a failure again: nothing new").hasSize(2);

    idp.serve(TestJwts.jwks(K1, K2));
    time.advance(Duration.ofMinutes(5));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> jwksEvents().size() == 3);
    JsonObject changed = jwksEvents().get(2);
    assertThat(changed.getString("from")).isEqualTo("1 key");
    assertThat(changed.getString("to")).isEqualTo("2 keys");
    assertThat(changed.getString("description")).isEqualTo("2 RS256 signing keys (k1, k2)");
  }
}
