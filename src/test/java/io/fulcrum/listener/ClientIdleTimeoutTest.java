package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The load balancer's idle timeout on client connections (SPEC §11.4), with
 * {@code idle_timeout.timeout_seconds: 1}: a connection that carries no request for that long is
 * closed. (That a request waiting on a silent target is not cut off, but answered 504, is in
 * {@code TargetFailuresTest}.)
 */
class ClientIdleTimeoutTest {

  /** Well under the 12 s after which a stalled request's connection would be cut anyway. */
  private static final long CLOSE_WITHIN_MS = 6000;

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

  private void gatewayTo(int targetPort) {
    gatewayTo(targetPort, false);
  }

  /**
   * @param h2c whether the listener takes HTTP/2 in clear as well (where Vert.x makes a connection
   *            only once its first bytes tell which protocol it speaks)
   */
  private void gatewayTo(int targetPort, boolean h2c) {
    port = Ports.free();
    String listenerPort = "        port: " + port + "\n";
    gateway = Gateway.start(TestVertx.create(),
        h2c ? config(targetPort).replace(listenerPort, listenerPort + "        h2c: true\n") : config(targetPort));
  }

  private String config(int targetPort) {
    return GatewayConfigs.forwarding(port, Map.of("idle_timeout.timeout_seconds", "1"), targetPort);
  }

  @ParameterizedTest(name = "h2c: {0}")
  @ValueSource(booleans = {false, true})
  void listener_closesClientConnection_thatSendsNothingForTheIdleTimeout(boolean h2c) {
    gatewayTo(Backend.start(backends, "b").port(), h2c);

    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.closedByServerWithin(CLOSE_WITHIN_MS)).isTrue();
    }
  }

  /**
   * A request head begun and not all come within the idle timeout, first or after a response: 408,
   * then the close, however slowly its bytes trickle in (it is held no longer than a silent one).
   */
  @ParameterizedTest(name = "after a response first: {0}, h2c: {1}")
  @CsvSource({"false, false", "true, false", "false, true", "true, true"})
  void requestHeadNotAllComeWithinTheIdleTimeout_gets408_andTheConnectionCloses(boolean afterAResponse, boolean h2c) {
    gatewayTo(Backend.start(backends, "b").port(), h2c);

    try (RawConnection c = RawConnection.open(port)) {
      if (afterAResponse) {
        assertThat(c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read().status()).isEqualTo(200);
      }
      c.send("GET / HTTP/1.1\r\nHost: exa");
      Response r = c.readTimeout((int) CLOSE_WITHIN_MS).read(); // fails unless the answer comes within it

      assertThat(r.status()).isEqualTo(408);
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServerWithin(CLOSE_WITHIN_MS)).isTrue();
    }
  }

  @Test
  void listener_closesKeepAliveConnection_idleForTheIdleTimeoutAfterAResponse() {
    gatewayTo(Backend.start(backends, "b").port());

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("Connection")).isNull();

      assertThat(c.closedByServerWithin(CLOSE_WITHIN_MS)).isTrue();
    }
  }

  @Test
  void http2Connection_idleForTheIdleTimeoutAfterAResponse_getsGoAwayAndCloses() {
    gatewayTo(Backend.start(backends, "b").port(), true);

    try (H2Wire c = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
      c.headers(1, H2Wire.request("GET", "http", "example.com", "/"), true);
      H2Wire.Answer a = c.answer(1, Duration.ofSeconds(5));
      assertThat(a.status()).isEqualTo("200");
      assertThat(a.text()).isEqualTo("b");

      c.await(f -> f.type() == H2Wire.GOAWAY, Duration.ofMillis(CLOSE_WITHIN_MS));
      Awaitility.await().atMost(Duration.ofMillis(CLOSE_WITHIN_MS)).until(c::closedByServer);
    }
  }
}
