package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code client_keep_alive.seconds} end to end, on a virtual clock: when an HTTP/1.1 client
 * connection's life ends while a response is on its way, that response says
 * {@code Connection: close} (the client sends nothing more on it) and the connection then closes,
 * on the direct path (the target's head as it came, or rewritten for a stickiness cookie) and on
 * Vert.x's (HEAD). A response whose head left before the end carries nothing, and the connection
 * still closes after it ({@link ClientKeepAliveTest} has the rest of the mechanics).
 */
class KeepAliveExpiryTest {

  private static final int LIFE_SECONDS = 60; // the attribute's floor

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  /** Requests to /slow, held until the test answers them. */
  private final Queue<HttpServerRequest> held = new ConcurrentLinkedQueue<>();
  private Gateway gateway;
  private int port;

  private void start(String groupAttributes) {
    int target = Backend.start(backends, "t", "127.0.0.1", req -> {
      if (req.path().startsWith("/slow")) {
        held.add(req);
      } else {
        req.response().end("ok");
      }
    }).port();
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            attributes: {client_keep_alive.seconds: "%d"}
            listeners: [{protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}]
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            attributes: {%s}
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(LIFE_SECONDS, port, groupAttributes, target), 1, time);
  }

  @AfterEach
  void stop() {
    held.forEach(r -> r.response().reset());
    if (gateway != null) {
      gateway.close();
    }
    Await.result(backends.close());
  }

  /** Moves the virtual clock past the connections' life (health checks answered on the way). */
  private void endLife() {
    time.advance(Duration.ofSeconds(LIFE_SECONDS), () -> gateway.fulcrum().healthChecksInFlight() == 0);
  }

  /** Sends {@code request}, lets the connection's life end while the target holds it, then answers it. */
  private Response expireWhileHeld(RawConnection c, String request, boolean head) {
    c.send(request);
    await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
    endLife();
    held.poll().response().putHeader("X-Late", "yes").end("late");
    return c.read(head);
  }

  @Test
  void directPath_responseUnderWayWhenTheLifeEnds_saysConnectionClose_andTheConnectionCloses() {
    start("");
    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send("GET /before HTTP/1.1\r\nHost: lb\r\n\r\n").read().header("Connection")).isNull();

      Response r = expireWhileHeld(c, "GET /slow HTTP/1.1\r\nHost: lb\r\n\r\n", false);

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("late");
      assertThat(r.header("X-Late")).isEqualTo("yes");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
  }

  @Test
  void directPath_withAStickinessCookieOnTheHead_saysConnectionCloseToo() {
    start("stickiness.enabled: \"true\", stickiness.type: lb_cookie");
    try (RawConnection c = RawConnection.open(port)) {
      Response r = expireWhileHeld(c, "GET /slow HTTP/1.1\r\nHost: lb\r\n\r\n", false);

      assertThat(r.header("Set-Cookie")).startsWith("AWSALB=");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
  }

  @Test
  void vertxPath_responseUnderWayWhenTheLifeEnds_saysConnectionClose_andTheConnectionCloses() {
    start("");
    try (RawConnection c = RawConnection.open(port)) {
      Response r = expireWhileHeld(c, "HEAD /slow HTTP/1.1\r\nHost: lb\r\n\r\n", true);

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("X-Late")).isEqualTo("yes");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
  }

  @Test
  void aHeadThatLeftBeforeTheLifeEnded_carriesNothing_butTheConnectionClosesAfterItsResponse() {
    start("");
    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /slow HTTP/1.1\r\nHost: lb\r\n\r\n");
      await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
      HttpServerRequest req = held.poll();
      req.response().setChunked(true).write("first part");
      // The target's head has reached the load balancer, which passes it on at once: the metrics count it.
      try (Http http = new Http(backends)) {
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() ->
            Scrape.of(http, gateway.controlPort()).sum("HTTPCode_Target_2XX_Count", Map.of()) == 1);
      }

      endLife();
      req.response().end(", last part");
      Response r = c.read();

      assertThat(r.bodyText()).isEqualTo("first part, last part");
      assertThat(r.header("Connection")).isNull();
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
  }
}
