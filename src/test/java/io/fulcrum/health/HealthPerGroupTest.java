package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Http;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Health is decided per target group: the same target in two groups is checked with each group's
 * settings and can be healthy in one and unhealthy in the other, and routing follows each group's
 * decision.
 */
class HealthPerGroupTest {

  private final HealthHarness h = new HealthHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  private Map<String, Integer> spread(String path, int n) {
    Http http = h.http();
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      counts.merge(http.get(h.listenerPort, path).body(), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void sameTargetInTwoGroups_isCheckedAndDecidedPerGroup_andRoutingFollowsEachGroup() {
    Map<String, AtomicInteger> checksT = new ConcurrentHashMap<>();
    Backend t = h.pathTarget("t", Map.of("/a", 200, "/b", 404), checksT, new CopyOnWriteArrayList<>());
    Backend u = h.pathTarget("u", Map.of("/a", 200, "/b", 200), new ConcurrentHashMap<>(),
        new CopyOnWriteArrayList<>());
    h.start("""
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %1$d
                default-actions: [{type: forward, target-group: gb}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/ga/*"]}]
                    actions: [{type: forward, target-group: ga}]
        target-groups:
          - name: ga
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /a, interval-seconds: 10, timeout-seconds: 5, unhealthy-threshold-count: 2}
            targets: [{id: 127.0.0.1, port: %2$d}, {id: 127.0.0.1, port: %3$d}]
          - name: gb
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /b, interval-seconds: 10, timeout-seconds: 5, unhealthy-threshold-count: 2}
            targets: [{id: 127.0.0.1, port: %2$d}, {id: 127.0.0.1, port: %3$d}]
        """.formatted(h.listenerPort, t.port(), u.port()));

    h.advanceSeconds(10);
    assertThat(h.health("ga", t.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(h.health("gb", t.port())).isEqualTo(TargetHealth.INITIAL_HEALTH_CHECKING);
    h.advanceSeconds(10);

    assertThat(h.health("ga", t.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(h.health("gb", t.port())).isEqualTo(TargetHealth.responseCodeMismatch(404));
    assertThat(h.health("ga", u.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(h.health("gb", u.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(checksT).as("checks t received, by path").containsOnlyKeys("/a", "/b");
    assertThat(checksT.get("/a")).hasValue(2);
    assertThat(checksT.get("/b")).hasValue(2);

    h.awaitDataPlane();
    assertThat(spread("/ga/x", 20)).as("group ga").containsOnlyKeys("t", "u");
    assertThat(spread("/", 20)).as("group gb").containsOnlyKeys("u");
  }
}
