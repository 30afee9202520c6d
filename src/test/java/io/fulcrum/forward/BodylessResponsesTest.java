package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A 204 has no body and no Content-Length (RFC 9110 §8.6, §15.3.5), whoever makes it: a target
 * that sends both anyway, a fixed response with a message body, a function that answers 204 with a
 * body. Over HTTP/2 a Content-Length or a DATA byte on a 204 makes curl and nghttp2 refuse the
 * stream (PROTOCOL_ERROR); over HTTP/1.1 the client reads no body and the connection stays in step.
 */
class BodylessResponsesTest {

  private static final Vertx TARGETS = TestVertx.create();
  private static Gateway gateway;
  private static RawTarget target;
  private static int port;

  @BeforeAll
  static void start() {
    // The target's 204 says it has 3 bytes of body, and sends none.
    target = RawTarget.start(TARGETS, RawTarget.answer("HTTP/1.1 204 No Content\r\nContent-Length: 3\r\nX-From: target\r\n\r\n"));
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          raw: {handler: io.fulcrum.function.handlers.RawResponseHandler}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: web}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/fixed"]}],
                     actions: [{type: fixed-response, status-code: 204, content-type: text/plain, message-body: "abc"}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/fn"]}], actions: [{type: forward, target-group: fn}]}
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: fn, target-type: lambda, targets: [{id: raw}]}
        """.formatted(port, target.port()));
  }

  @AfterAll
  static void stop() {
    gateway.close();
    target.close();
    TARGETS.close();
  }

  /** The request for {@code path}: the raw function is made to answer 204 with a body and a Content-Length. */
  private static String body(String path) {
    return path.equals("/fn")
        ? "{\"statusCode\": 204, \"headers\": {\"X-From\": \"fn\", \"Content-Length\": \"3\"}, \"body\": \"abc\"}"
        : "";
  }

  @ParameterizedTest
  @ValueSource(strings = {"/target", "/fixed", "/fn"})
  void http11_204HasNoBodyNorContentLength_andTheConnectionStaysInStep(String path) {
    String body = body(path);
    String request = "POST " + path + " HTTP/1.1\r\nHost: lb.example.com\r\nContent-Length: "
        + body.getBytes(StandardCharsets.UTF_8).length + "\r\n\r\n" + body;
    try (RawConnection c = RawConnection.open(port)) {
      for (int i = 0; i < 2; i++) {
        RawConnection.Response r = c.send(request).read();

        assertThat(r.status()).as("response %d", i).isEqualTo(204);
        assertThat(r.header("Content-Length")).isNull();
        assertThat(r.header("Transfer-Encoding")).isNull();
        assertThat(r.body()).isEmpty();
        if (!path.equals("/fixed")) {
          assertThat(r.header("X-From")).as("the other headers pass").isEqualTo(path.substring(1));
        }
      }
      assertThat(c.closedByServerWithin(200)).isFalse();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"/target", "/fixed", "/fn"})
  void http2_204HasNoContentLengthNorDataBytes(String path) {
    try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
      byte[] body = body(path).getBytes(StandardCharsets.UTF_8);
      wire.headers(1, H2Wire.request("POST", "http", "lb.example.com", path), body.length == 0);
      if (body.length > 0) {
        wire.write(H2Wire.dataFrame(1, body, true));
      }

      H2Wire.Answer a = wire.answer(1, Duration.ofSeconds(10));

      assertThat(a.reset()).isNull();
      assertThat(a.status()).isEqualTo("204");
      assertThat(a.head().contains("content-length")).as("content-length on a 204").isFalse();
      assertThat(a.body()).isEmpty();
    }
  }
}
