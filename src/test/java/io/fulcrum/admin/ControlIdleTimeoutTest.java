package io.fulcrum.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.LocalCodec;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The control plane closes a client connection that stays quiet for its idle timeout (60 s; one
 * second here): one that never sent a request, one that stopped in the middle of its head, one kept
 * alive after an answer. It kept them all open for ever.
 */
class ControlIdleTimeoutTest {

  private Vertx vertx;
  private int port;

  @BeforeEach
  void start() {
    vertx = TestVertx.create();
    // The registry's side of the zone status, which the control plane asks for as it starts.
    LocalCodec.registerAll(vertx);
    vertx.eventBus().<Void>localConsumer(Addresses.ZONES_CURRENT, m -> m.reply(ZoneStatus.EMPTY));
    ControlVerticle control = new ControlVerticle("127.0.0.1", 0, () -> true, List::of).idleTimeout(Duration.ofSeconds(1));
    Await.result(vertx.deployVerticle(control));
    port = control.actualPort();
  }

  @AfterEach
  void stop() {
    Await.result(vertx.close());
  }

  @Test
  void quietConnections_areClosedAtTheIdleTimeout() {
    try (RawConnection silent = RawConnection.open(port);
        RawConnection halfHead = RawConnection.open(port);
        RawConnection kept = RawConnection.open(port)) {
      halfHead.send("GET /health/live HTTP/1.1\r\nHost: a\r\n");
      assertThat(kept.send("GET /health/live HTTP/1.1\r\nHost: a\r\n\r\n").read().status()).isEqualTo(200);

      assertThat(silent.closedByServerWithin(10_000)).isTrue();
      assertThat(halfHead.closedByServerWithin(10_000)).isTrue();
      assertThat(kept.closedByServerWithin(10_000)).isTrue();
    }
  }
}
