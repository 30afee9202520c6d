package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.bus.HealthReport;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Health decisions reach every event loop: routing follows health, and fails open when none is healthy. */
class HealthRoutingTest {

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final AtomicInteger statusA = new AtomicInteger(200);
  private final AtomicInteger statusB = new AtomicInteger(200);
  private Backend a;
  private Backend b;
  private Gateway gateway;
  private Http http;
  private int port;
  private String arn;

  @BeforeEach
  void start() {
    a = Backend.start(backends, "a", "127.0.0.1", req -> answer(req, "a", statusA));
    b = Backend.start(backends, "b", "127.0.0.1", req -> answer(req, "b", statusB));
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 3, unhealthy-threshold-count: 2}
            targets:
              - {id: 127.0.0.1, port: %d}
              - {id: 127.0.0.1, port: %d}
        """.formatted(port, a.port(), b.port()), 2, time);
    arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    http = new Http(backends);
  }

  private static void answer(io.vertx.core.http.HttpServerRequest req, String id, AtomicInteger health) {
    if (req.path().equals("/health")) {
      req.response().setStatusCode(health.get()).end();
    } else {
      req.response().end(id);
    }
  }

  @AfterEach
  void stop() {
    http.close();
    gateway.close();
    backends.close();
  }

  private Map<String, TargetHealth> health() {
    HealthReport r = Await.result(gateway.fulcrum().health(arn));
    Map<String, TargetHealth> out = new HashMap<>();
    r.targets().forEach((k, v) -> out.put(k.equals("127.0.0.1:" + a.port()) ? "a" : "b", v.health()));
    return out;
  }

  /** Advances one interval and waits until both targets' check results are in. */
  private void tick() {
    int before = a.hits() + b.hits();
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    assertThat(a.hits() + b.hits()).isEqualTo(before + 2);
    gateway.awaitDataPlane();
  }

  private Map<String, Integer> spread(int n) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      counts.merge(http.get(port, "/").body(), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void unhealthyTarget_getsNoNewRequests_onAnyEventLoop_andComesBackAfterTheHealthyThreshold() {
    tick();
    assertThat(health()).containsEntry("a", TargetHealth.HEALTHY).containsEntry("b", TargetHealth.HEALTHY);

    statusA.set(500);
    tick();
    assertThat(health().get("a")).isEqualTo(TargetHealth.HEALTHY);
    tick();
    assertThat(health().get("a")).isEqualTo(TargetHealth.responseCodeMismatch(500));
    int hitsA = a.hits();
    // Two listener instances: connections land on both event loops.
    try (Http other = new Http(backends)) {
      for (int i = 0; i < 20; i++) {
        assertThat(http.get(port, "/").body()).isEqualTo("b");
        assertThat(other.get(port, "/").body()).isEqualTo("b");
      }
    }
    assertThat(a.hits()).isEqualTo(hitsA);

    statusA.set(200);
    tick();
    tick();
    assertThat(health().get("a").state().wire()).isEqualTo("unhealthy");
    tick();
    assertThat(health().get("a")).isEqualTo(TargetHealth.HEALTHY);
    assertThat(spread(20)).containsKeys("a", "b");
  }

  @Test
  void failOpen_whenNoTargetIsHealthy_sendsToAll_andStopsWhenOneRecovers() {
    tick();
    statusA.set(503);
    statusB.set(503);
    tick();
    tick();
    assertThat(health().values()).allMatch(h -> h.state().wire().equals("unhealthy"));
    assertThat(spread(20)).containsOnlyKeys("a", "b");

    statusB.set(200);
    tick();
    tick();
    tick();
    assertThat(health().get("b")).isEqualTo(TargetHealth.HEALTHY);
    assertThat(spread(20)).containsOnlyKeys("b");
  }
}
