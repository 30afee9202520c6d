package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.bus.HealthReport.Check;
import io.fulcrum.bus.HealthReport.TargetReport;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * 1,000 real targets registered at once do not get their first check in the same millisecond: each
 * first check leaves after its own random delay within min(interval, 5 s), and then every interval.
 * The targets are 1,000 loopback addresses (127.0.0.1 to 127.0.3.250) on one port of one server
 * bound to 0.0.0.0, so every check is a real connection.
 */
class HealthCheckJitterTest {

  private static final int TARGETS = 1_000;
  private static final long WINDOW_MS = 5_000;

  private final HealthHarness h = new HealthHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  private static String address(int i) {
    return "127.0." + (i / 250) + "." + (i % 250 + 1);
  }

  @Test
  void thousandTargets_firstChecksSpreadOverTheJitterWindow_notTheSameMillisecond() {
    AtomicInteger checks = new AtomicInteger();
    HttpServer server = h.backends.createHttpServer(new HttpServerOptions().setHost("0.0.0.0").setPort(0));
    server.requestHandler(req -> {
      checks.incrementAndGet();
      req.response().end();
    });
    int port = Await.result(server.listen()).actualPort();
    StringBuilder targets = new StringBuilder();
    for (int i = 0; i < TARGETS; i++) {
      targets.append("      - {id: ").append(address(i)).append(", port: ").append(port).append("}\n");
    }
    h.start("""
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 30, timeout-seconds: 5}
            targets:
        %s""".formatted(h.listenerPort, targets));

    h.advance(Duration.ofMillis(WINDOW_MS));

    assertThat(checks.get()).as("checks the targets received within the window").isEqualTo(TARGETS);
    Map<String, TargetReport> report = h.report("tg");
    assertThat(report).hasSize(TARGETS);
    List<Long> firstChecks = new ArrayList<>();
    report.forEach((key, r) -> {
      assertThat(r.health()).as(key).isEqualTo(TargetHealth.HEALTHY);
      // The move to initial checking is recorded when the first check leaves.
      Check first = r.history().get(0);
      assertThat(first.health()).isEqualTo(TargetHealth.INITIAL_HEALTH_CHECKING);
      firstChecks.add(first.time() - VirtualTime.START);
    });

    assertThat(firstChecks).allSatisfy(t -> assertThat(t).isBetween(1L, WINDOW_MS));
    TreeMap<Long, Integer> perMillisecond = new TreeMap<>();
    firstChecks.forEach(t -> perMillisecond.merge(t, 1, Integer::sum));
    int busiest = perMillisecond.values().stream().max(Integer::compare).orElseThrow();
    assertThat(busiest).as("first checks in the busiest millisecond").isLessThanOrEqualTo(6);
    // Uniform over 5,000 ms, 1,000 checks land on about 900 distinct milliseconds.
    assertThat(perMillisecond).as("distinct milliseconds").hasSizeGreaterThan(800);
    Map<Long, Integer> perTenth = new TreeMap<>();
    firstChecks.forEach(t -> perTenth.merge((t - 1) / (WINDOW_MS / 10), 1, Integer::sum));
    assertThat(perTenth).as("first checks in each tenth of the window").hasSize(10)
        .allSatisfy((tenth, n) -> assertThat(n).as("tenth %d", tenth).isBetween(50, 150));
    assertThat(perMillisecond.firstKey()).isLessThan(100);
    assertThat(perMillisecond.lastKey()).isGreaterThan(WINDOW_MS - 100);

    // Then every interval: the next round keeps each target's phase.
    h.advance(Duration.ofSeconds(30));
    assertThat(checks.get()).isEqualTo(2 * TARGETS);
    h.report("tg").forEach((key, r) -> {
      List<Long> times = r.history().stream().filter(c -> !c.transition()).map(Check::time).toList();
      assertThat(times).as(key).hasSize(2);
      assertThat(times.get(1) - times.get(0)).as(key).isEqualTo(30_000);
    });
  }
}
