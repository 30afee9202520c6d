package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.vertx.core.Vertx;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The load balancer's idle timeout on client connections (SPEC §11.4), with
 * {@code idle_timeout.timeout_seconds: 1}: a connection that carries no request for that long is
 * closed. (That a request waiting on a silent target is not cut off, but answered 504, is in
 * {@code TargetFailuresTest}.)
 */
class ClientIdleTimeoutTest {

  /** Well under the 12 s after which a stalled request's connection would be cut anyway. */
  private static final long CLOSE_WITHIN_MS = 6000;

  private final Vertx backends = Vertx.vertx();
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
    port = Ports.free();
    gateway = Gateway.start(Vertx.vertx(),
        GatewayConfigs.forwarding(port, Map.of("idle_timeout.timeout_seconds", "1"), targetPort));
  }

  @Test
  void listener_closesClientConnection_thatSendsNothingForTheIdleTimeout() {
    gatewayTo(Backend.start(backends, "b").port());

    try (RawConnection c = RawConnection.open(port)) {
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
}
