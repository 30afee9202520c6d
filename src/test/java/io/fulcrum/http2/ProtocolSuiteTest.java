package io.fulcrum.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.ProtocolClient;
import io.fulcrum.testing.ProtocolClient.Kind;
import io.fulcrum.testing.ProtocolClient.Response;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Map;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * One suite run three times: by an HTTP/1.1 client, by an HTTP/2 client over TLS (ALPN h2) and by
 * a cleartext HTTP/2 client with prior knowledge (Vert.x's client, which can name any host). Whatever the client
 * speaks, forwarding, rules and the load balancer's own statuses are the same; targets of HTTP1
 * groups are always reached over HTTP/1.1.
 */
class ProtocolSuiteTest {

  private static final Vertx BACKENDS = TestVertx.create();
  private static Path dir;
  private static Backend web;
  private static Backend api;
  private static Backend echo;
  private static Backend silent;
  private static Gateway gateway;
  private static int httpPort;
  private static int httpsPort;
  private static int slowHttpPort;
  private static int slowHttpsPort;
  private static TestCertificates.Pem cert;
  private static final Map<Kind, ProtocolClient> CLIENTS = new EnumMap<>(Kind.class);

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("protocol-suite");
    cert = TestCertificates.pem(dir, "lb", "localhost", "127.0.0.1", "127.0.0.2");
    web = Backend.start(BACKENDS, "web");
    api = Backend.start(BACKENDS, "api");
    echo = Backend.start(BACKENDS, "echo", "127.0.0.1", ProtocolSuiteTest::echo);
    silent = Backend.start(BACKENDS, "silent", "127.0.0.1", req -> {
      // Reads the request and never answers.
    });
    httpPort = Ports.free();
    httpsPort = Ports.free();
    slowHttpPort = Ports.free();
    slowHttpsPort = Ports.free();
    String certs = "[{certificate: '%s', private-key: '%s'}]".formatted(cert.certificate(), cert.privateKey());
    String rules = """
                    - priority: 1
                      conditions: [{field: path-pattern, values: ["/api/*"]}]
                      actions: [{type: forward, target-group: api}]
                    - priority: 2
                      conditions: [{field: host-header, values: ["*.Shop.Example.com"]}]
                      actions: [{type: fixed-response, status-code: 200, content-type: text/plain, message-body: by-name}]
                    - priority: 3
                      conditions: [{field: http-header, http-header-name: X-Canary, values: ["yes*"]}]
                      actions: [{type: fixed-response, status-code: 202, content-type: application/json, message-body: '{"canary":true}'}]
                    - priority: 4
                      conditions: [{field: http-request-method, values: [DELETE]}]
                      actions: [{type: fixed-response, status-code: 403, content-type: text/plain, message-body: no deletes}]
                    - priority: 5
                      conditions: [{field: path-pattern, values: ["/old/*"]}]
                      actions: [{type: redirect, path: "/new/#{path}", status-code: HTTP_301}]
                    - priority: 6
                      conditions: [{field: path-pattern, values: ["/echo*"]}]
                      actions: [{type: forward, target-group: echo}]
                    - priority: 7
                      conditions: [{field: path-pattern, values: ["/empty"]}]
                      actions: [{type: forward, target-group: empty}]
                    - priority: 8
                      conditions: [{field: path-pattern, values: ["/refused"]}]
                      actions: [{type: forward, target-group: refused}]
                    - priority: 9
                      conditions: [{field: path-pattern, values: ["/grpc-only"]}]
                      actions: [{type: forward, target-group: grpc-only}]
        """;
    gateway = Gateway.start(TestVertx.create(), """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: main
            listeners:
              - protocol: HTTP
                port: %1$d
                h2c: true
                default-actions: [{type: forward, target-group: web}]
                rules:
        %3$s
              - protocol: HTTPS
                port: %2$d
                certificates: %4$s
                default-actions: [{type: forward, target-group: web}]
                rules:
        %3$s
          - name: slow
            attributes: {idle_timeout.timeout_seconds: 1}
            listeners:
              - {protocol: HTTP, port: %5$d, h2c: true, default-actions: [{type: forward, target-group: silent}]}
              - {protocol: HTTPS, port: %6$d, certificates: %4$s, default-actions: [{type: forward, target-group: silent}]}
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %7$d}]}
          - {name: api, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %8$d}]}
          - {name: echo, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %9$d}]}
          - {name: empty, target-type: ip, protocol: HTTP, port: 80, targets: []}
          - {name: refused, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %10$d}]}
          - {name: grpc-only, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %7$d}]}
          - {name: silent, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %11$d}]}
        """.formatted(httpPort, httpsPort, rules, certs, slowHttpPort, slowHttpsPort, web.port(), api.port(),
        echo.port(), Ports.free(), silent.port()));
    for (Kind k : Kind.values()) {
      CLIENTS.put(k, ProtocolClient.of(k, BACKENDS));
    }
  }

  /** /echo: the request body back, with its length and CRC; /echo/big?size=N: N generated bytes. */
  private static void echo(HttpServerRequest req) {
    if (req.path().equals("/echo/big")) {
      int size = Integer.parseInt(req.getParam("size"));
      req.response().putHeader("X-Body-Crc", Long.toString(crc(generated(size)))).end(Buffer.buffer(generated(size)));
      return;
    }
    req.body().onSuccess(b -> req.response()
        .putHeader("X-Received-Length", Integer.toString(b.length()))
        .putHeader("X-Received-Crc", Long.toString(crc(b.getBytes())))
        .putHeader("Content-Type", "application/octet-stream")
        .end(b));
  }

  @AfterAll
  static void stop() {
    CLIENTS.values().forEach(ProtocolClient::close);
    gateway.close();
    BACKENDS.close();
  }

  private static int port(Kind kind) {
    return kind.tls() ? httpsPort : httpPort;
  }

  private static Response get(Kind kind, String path) {
    return CLIENTS.get(kind).get("127.0.0.1", port(kind), path);
  }

  private static Response send(Kind kind, String method, String path, Map<String, String> headers, byte[] body) {
    return CLIENTS.get(kind).send(method, "127.0.0.1", port(kind), path, headers, body);
  }

  private static byte[] generated(int size) {
    byte[] b = new byte[size];
    new Random(size).nextBytes(b);
    return b;
  }

  private static long crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return c.getValue();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void forward_reachesTheHttp1Target_overHttp11_withTheForwardingHeadersAndHost(Kind kind) {
    Response r = get(kind, "/some/path?q=1");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.version()).as("the client's own protocol").isEqualTo(kind.version());
    assertThat(r.text()).isEqualTo("web");
    assertThat(r.header("x-backend-id")).as("the target's headers come back").isEqualTo("web");
    JsonObject seen = web.lastRequest();
    assertThat(seen.getString("version")).as("HTTP1 targets get HTTP/1.1").isEqualTo("HTTP_1_1");
    assertThat(seen.getString("uri")).isEqualTo("/some/path?q=1");
    JsonObject h = seen.getJsonObject("headers");
    assertThat(h.getString("host")).isEqualTo("127.0.0.1:" + port(kind));
    assertThat(h.getString("x-forwarded-for")).isEqualTo("127.0.0.1");
    assertThat(h.getString("x-forwarded-proto")).isEqualTo(kind.scheme());
    assertThat(h.getString("x-forwarded-port")).isEqualTo(Integer.toString(port(kind)));
    assertThat(h.getString("x-amzn-trace-id")).matches("Root=1-[0-9a-f]{8}-[0-9a-f]{24}");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void forward_appendsTheClientToAnIncomingXForwardedFor(Kind kind) {
    Response r = send(kind, "GET", "/", Map.of("X-Forwarded-For", "203.0.113.7"), null);

    assertThat(r.status()).isEqualTo(200);
    assertThat(web.lastRequest().getJsonObject("headers").getString("x-forwarded-for"))
        .isEqualTo("203.0.113.7, 127.0.0.1");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void forward_streamsARequestBodyUp_andTheSameBodyBack(Kind kind) {
    byte[] body = generated(1_500_000);

    Response r = send(kind, "POST", "/echo", Map.of("Content-Type", "application/octet-stream"), body);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.header("x-received-length")).isEqualTo(Integer.toString(body.length));
    assertThat(r.header("x-received-crc")).isEqualTo(Long.toString(crc(body)));
    assertThat(r.body()).hasSize(body.length);
    assertThat(Arrays.equals(r.body(), body)).as("the body came back unchanged").isTrue();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void forward_streamsALargeResponseBodyDown(Kind kind) {
    int size = 4 * 1024 * 1024 + 17;

    Response r = get(kind, "/echo/big?size=" + size);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).hasSize(size);
    assertThat(Long.toString(crc(r.body()))).isEqualTo(r.header("x-body-crc"));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void rules_routeByPathHostHeaderAndMethod_andAnswerFixedResponsesAndRedirects(Kind kind) {
    assertThat(get(kind, "/api/orders").text()).isEqualTo("api");
    assertThat(get(kind, "/API/orders").text()).as("path patterns are case-sensitive").isEqualTo("web");

    Response byHost = CLIENTS.get(kind).send("GET", "127.0.0.1", "eu.shop.example.COM", port(kind), "/", Map.of(), null);
    assertThat(byHost.status()).isEqualTo(200);
    assertThat(byHost.text()).as("host-header matches without case and port").isEqualTo("by-name");
    assertThat(byHost.header("server")).isEqualTo(ElbResponses.SERVER);

    Response canary = send(kind, "GET", "/", Map.of("X-Canary", "yes-please"), null);
    assertThat(canary.status()).isEqualTo(202);
    assertThat(canary.header("content-type")).isEqualTo("application/json");
    assertThat(canary.text()).isEqualTo("{\"canary\":true}");

    Response delete = send(kind, "DELETE", "/anything", Map.of(), null);
    assertThat(delete.status()).isEqualTo(403);
    assertThat(delete.text()).isEqualTo("no deletes");

    Response redirect = get(kind, "/old/page");
    assertThat(redirect.status()).isEqualTo(301);
    assertThat(redirect.header("location"))
        .isEqualTo(kind.scheme() + "://127.0.0.1:" + port(kind) + "/new/old/page");
  }

  private static void assertElbPage(Response r, ElbError error) {
    assertThat(r.status()).as("status").isEqualTo(error.status());
    assertThat(r.header("server")).isEqualTo(ElbResponses.SERVER);
    assertThat(r.header("content-type")).isEqualTo("text/html");
    assertThat(r.text()).isEqualTo(ElbResponses.page(error));
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void groupWithoutTargets_is503(Kind kind) {
    assertElbPage(get(kind, "/empty"), ElbError.NO_TARGETS);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void targetRefusingTheConnection_is502(Kind kind) {
    assertElbPage(get(kind, "/refused"), ElbError.TARGET_REFUSED);
    assertThat(get(kind, "/").status()).as("the client connection still serves").isEqualTo(200);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void targetSilentPastTheIdleTimeout_is504(Kind kind) {
    try (ProtocolClient client = ProtocolClient.of(kind, BACKENDS)) {
      Response r = client.get("127.0.0.1", kind.tls() ? slowHttpsPort : slowHttpPort, "/");
      assertElbPage(r, ElbError.TARGET_TIMEOUT);
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void trace_is405(Kind kind) {
    assertElbPage(send(kind, "TRACE", "/", Map.of(), null), ElbError.METHOD_NOT_ALLOWED);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void xForwardedForWithMoreThan30Addresses_is463(Kind kind) {
    String xff = String.join(", ", java.util.Collections.nCopies(31, "10.0.0.1"));
    int before = web.received().size();

    assertElbPage(send(kind, "GET", "/", Map.of("X-Forwarded-For", xff), null), ElbError.XFF_TOO_LONG);
    assertThat(web.received()).as("nothing reached the target").hasSize(before);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void getToAGrpcGroup_is464(Kind kind) {
    int before = web.received().size();

    assertElbPage(get(kind, "/grpc-only"), ElbError.PROTOCOL_MISMATCH);
    assertThat(web.received()).as("nothing reached the target").hasSize(before);
  }
}
