package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Headers the load balancer does not pass on (SPEC §11.1, §11.4): hop-by-hop headers in both
 * directions, {@code Expect: 100-continue} (answered by the load balancer itself), and header
 * names outside {@code [-A-Za-z0-9]} when {@code drop_invalid_header_fields} is on.
 */
class HeaderFilteringTest {

  private static final String[] HOP_BY_HOP = {"connection", "keep-alive", "te", "upgrade", "proxy-connection"};

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private int port;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private void gatewayTo(int targetPort, Map<String, String> attributes) {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, attributes, targetPort));
  }

  @Test
  void hopByHopRequestHeaders_andThoseNamedInConnection_areNotForwarded() {
    Backend backend = Backend.start(backends, "b");
    gatewayTo(backend.port(), Map.of());

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n"
          + "Connection: keep-alive, X-Hop-Custom\r\n"
          + "X-Hop-Custom: secret\r\n"
          + "Keep-Alive: timeout=5\r\n"
          + "TE: trailers\r\n"
          + "Upgrade: example/1\r\n"
          + "Proxy-Connection: keep-alive\r\n"
          + "X-End-To-End: kept\r\n\r\n").read();
      assertThat(r.status()).isEqualTo(200);
    }

    JsonObject headers = backend.lastRequest().getJsonObject("headers");
    assertThat(headers.fieldNames()).doesNotContain(HOP_BY_HOP).doesNotContain("x-hop-custom");
    assertThat(headers.getString("x-end-to-end")).isEqualTo("kept");
  }

  /**
   * A Connection header that names Content-Length or Host does not take them away: the body would
   * then go on without its length, and the target would read it as the next request on the
   * connection (request smuggling: {@code Connection: Content-Length} with a request in the body
   * reached the target as a request of its own). Other names it gives still go.
   */
  @ParameterizedTest(name = "{0}, Connection: {1}")
  @CsvSource(delimiter = '|', value = {"HTTP/1.1 | Content-Length", "HTTP/1.0 | Content-Length",
      "HTTP/1.1 | keep-alive, content-length, X-Hop", "HTTP/1.1 | Host, Content-Length"})
  void connectionNamingContentLengthOrHost_keepsThem_soTheBodyCannotBecomeARequest(String version, String connection) {
    Backend backend = Backend.start(backends, "b");
    gatewayTo(backend.port(), Map.of());
    String smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n";

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("POST /upload " + version + "\r\nHost: example.com\r\nConnection: " + connection
          + "\r\nX-Hop: named\r\nContent-Length: " + smuggled.length() + "\r\n\r\n" + smuggled).read();
      assertThat(r.status()).isEqualTo(200);
    }
    // A second request, which may reuse the target connection the first went over.
    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send("GET /next HTTP/1.1\r\nHost: example.com\r\n\r\n").read().status()).isEqualTo(200);
    }

    assertThat(backend.received()).as("the target's requests, the smuggled one never among them")
        .filteredOn(q -> !Backend.isHealthCheck(q)).extracting(q -> q.getString("uri")).containsExactly("/upload", "/next");
    JsonObject upload = backend.received().stream().filter(q -> q.getString("uri").equals("/upload")).findFirst().orElseThrow();
    assertThat(upload.getJsonObject("headers").getString("content-length")).isEqualTo(String.valueOf(smuggled.length()));
    assertThat(upload.getJsonObject("headers").getString("host")).startsWith("example.com");
    assertThat(upload.getJsonObject("headers").containsKey("x-hop")).as("a name it gives that may go").isEqualTo(
        !connection.contains("X-Hop"));
  }

  @Test
  void hopByHopResponseHeaders_andThoseNamedInConnection_areNotPassedToTheClient() {
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 200 OK\r\n"
        + "Connection: X-Resp-Hop\r\n"
        + "X-Resp-Hop: secret\r\n"
        + "Keep-Alive: timeout=5\r\n"
        + "TE: trailers\r\n"
        + "Upgrade: example/1\r\n"
        + "Proxy-Connection: keep-alive\r\n"
        + "X-End-To-End: kept\r\n"
        + "Content-Length: 2\r\n\r\nok"))) {
      gatewayTo(target.port(), Map.of());

      try (RawConnection c = RawConnection.open(port)) {
        Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.headerNames()).doesNotContain(HOP_BY_HOP).doesNotContain("x-resp-hop");
        assertThat(r.header("X-End-To-End")).isEqualTo("kept");
        assertThat(r.bodyText()).isEqualTo("ok");
      }
    }
  }

  /**
   * A target's Connection that names Content-Length does not take it from the client's response:
   * without it, the client of a kept connection could not tell where the body ends and the next
   * response begins (it got {@code HTTP/1.1 200 OK} with neither a length nor chunks).
   */
  @Test
  void responseConnectionNamingContentLength_keepsIt_andTheClientsConnectionStaysInStep() {
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer(
        "HTTP/1.1 200 OK\r\nConnection: Content-Length, X-Resp-Hop\r\nX-Resp-Hop: 1\r\nContent-Length: 5\r\n\r\nhello"))) {
      gatewayTo(target.port(), Map.of());

      try (RawConnection c = RawConnection.open(port).readTimeout(10_000)) {
        for (int i = 0; i < 2; i++) {
          Response r = c.send("GET /" + i + " HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

          assertThat(r.status()).isEqualTo(200);
          assertThat(r.header("Content-Length")).isEqualTo("5");
          assertThat(r.headerNames()).doesNotContain("x-resp-hop");
          assertThat(r.bodyText()).isEqualTo("hello");
        }
      }
    }
  }

  /**
   * A chunked request's trailers go on, but for fields a trailer section may not carry (RFC 9110
   * §6.5.1: framing, routing, authentication, request modifiers, content format): a target that
   * merges trailers into the header section would take {@code Host: evil} for the request's host,
   * after every rule had matched another.
   */
  @Test
  void requestTrailers_goOn_withoutTheFieldsNoTrailerMayCarry() {
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))) {
      gatewayTo(target.port(), Map.of());

      try (RawConnection c = RawConnection.open(port)) {
        Response r = c.send("POST /t HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n0\r\nHost: evil\r\nAuthorization: Bearer x\r\nContent-Type: text/evil\r\n"
            + "Cookie: s=1\r\nX-Checksum: abc\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(200);
      }

      // The raw target reads a head up to the first empty line: the body and its trailers come as a second.
      await().atMost(Duration.ofSeconds(10)).until(() -> target.heads().size() >= 2);
      assertThat(target.heads().get(1)).isEqualTo("5\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\n");
    }
  }

  /**
   * A response's trailers reach the client without the fields no trailer may carry, whichever
   * way the exchange went: an HTTP/2 client's (to an HTTP/1.1 target), and an HTTP/1.1 request that
   * takes Vert.x's path (one with {@code Expect: 100-continue}).
   */
  @Test
  void responseTrailers_goOn_withoutTheFieldsNoTrailerMayCarry_overHttp2AndVertxsPath() {
    String chunked = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n"
        + "X-Checksum: abc\r\nSet-Cookie: evil=1\r\nContent-Type: text/evil\r\n\r\n";
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer(chunked))) {
      port = Ports.free();
      gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, Map.of(), target.port())
          .replace("        port: " + port + "\n", "        port: " + port + "\n        h2c: true\n"));

      try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
        wire.headers(1, H2Wire.request("GET", "http", "example.com", "/h2"), true);
        H2Wire.Answer a = wire.answer(1, Duration.ofSeconds(10));
        assertThat(a.status()).isEqualTo("200");
        assertThat(a.trailers()).isNotNull();
        assertThat(a.trailers().get("x-checksum")).hasToString("abc");
        assertThat(a.trailers().names()).extracting(CharSequence::toString).containsExactly("x-checksum");
      }
      try (RawConnection c = RawConnection.open(port)) {
        Response interim = c.send("POST /vertx HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n"
            + "Expect: 100-continue\r\n\r\n").read();
        assertThat(interim.statusLine()).isEqualTo("HTTP/1.1 100 Continue");
        Response r = c.send("hi").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.trailers()).extracting(t -> t[0].toLowerCase(java.util.Locale.ROOT)).containsExactly("x-checksum");
      }
    }
  }

  @Test
  void expect100Continue_isAnsweredByTheLoadBalancer_andNotForwarded() {
    Backend backend = Backend.start(backends, "b", "127.0.0.1",
        req -> req.body().onSuccess(body -> req.response().end("got " + body)));
    gatewayTo(backend.port(), Map.of());

    try (RawConnection c = RawConnection.open(port)) {
      Response interim = c.send("POST /upload HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n"
          + "Expect: 100-continue\r\n\r\n").read();
      assertThat(interim.statusLine()).isEqualTo("HTTP/1.1 100 Continue");
      assertThat(backend.trafficHits()).as("nothing is forwarded before the body").isZero();

      Response r = c.send("hello").read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("got hello");
    }
    JsonObject headers = backend.lastRequest().getJsonObject("headers");
    assertThat(headers.fieldNames()).doesNotContain("expect");
    assertThat(headers.getString("content-length")).isEqualTo("5");
  }

  @ParameterizedTest(name = "drop_invalid_header_fields.enabled={0}")
  @ValueSource(booleans = {false, true})
  void headersWithInvalidNames_areDroppedOnlyWhenEnabled(boolean drop) {
    Backend backend = Backend.start(backends, "b");
    gatewayTo(backend.port(), Map.of("routing.http.drop_invalid_header_fields.enabled", Boolean.toString(drop)));

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\nx_underscore: 1\r\nX-Valid-2: 2\r\n\r\n").read();
      assertThat(r.status()).isEqualTo(200);
    }

    JsonObject headers = backend.lastRequest().getJsonObject("headers");
    assertThat(headers.getString("x-valid-2")).isEqualTo("2");
    if (drop) {
      assertThat(headers.fieldNames()).doesNotContain("x_underscore");
    } else {
      assertThat(headers.getString("x_underscore")).isEqualTo("1");
    }
  }
}
