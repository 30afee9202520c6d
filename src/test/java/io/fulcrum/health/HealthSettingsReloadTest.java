package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Backend;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A reload that changes a target group's health-check settings (path, thresholds, interval) applies
 * to the next checks and keeps every target's current state: nothing starts over as a new
 * registration.
 */
class HealthSettingsReloadTest {

  private static final String CONFIG = """
      load-balancers:
        - name: lb
          listeners:
            - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
      target-groups:
        - name: tg
          target-type: ip
          protocol: HTTP
          port: 80
          health-check: {path: %s, interval-seconds: %d, timeout-seconds: 2, healthy-threshold-count: %d,
                         unhealthy-threshold-count: %d}
          targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
      """;

  private final HealthHarness h = new HealthHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  @Test
  void reloadChangingPathThresholdsAndInterval_appliesToTheNextChecks_andKeepsEveryTargetsState() {
    List<Long> timesT = new CopyOnWriteArrayList<>();
    Map<String, AtomicInteger> checksT = new ConcurrentHashMap<>();
    Map<String, AtomicInteger> checksV = new ConcurrentHashMap<>();
    // t passes the old path and fails the new one; v the other way round.
    Backend t = h.pathTarget("t", Map.of("/v1", 200, "/v2", 500), checksT, timesT);
    Backend v = h.pathTarget("v", Map.of("/v1", 500, "/v2", 200), checksV, new CopyOnWriteArrayList<>());
    h.start(CONFIG.formatted(h.listenerPort, "/v1", 10, 2, 2, t.port(), v.port()));
    h.advanceSeconds(20);
    assertThat(h.health("tg", t.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(h.health("tg", v.port())).isEqualTo(TargetHealth.responseCodeMismatch(500));
    assertThat(timesT).hasSize(2);
    long lastBefore = timesT.get(1);

    h.gateway().reload(CONFIG.formatted(h.listenerPort, "/v2", 20, 4, 3, t.port(), v.port()));
    // The registry published the new registrations to the health checker's context before the reload
    // completed, so they are applied there before any timer that virtual time runs from now on.
    assertThat(h.health("tg", t.port())).as("t right after the reload").isEqualTo(TargetHealth.HEALTHY);
    assertThat(h.health("tg", v.port())).as("v right after the reload")
        .isEqualTo(TargetHealth.responseCodeMismatch(500));

    // One check per target every 20 s from now on, on the new path, judged with the new thresholds.
    for (int n = 1; n <= 4; n++) {
      h.advanceSeconds(20);
      assertThat(checksT.get("/v2")).as("t's checks on the new path").hasValue(n);
      assertThat(checksV.get("/v2")).as("v's checks on the new path").hasValue(n);
      assertThat(h.health("tg", t.port())).as("t after %d of 3 failures", n)
          .isEqualTo(n < 3 ? TargetHealth.HEALTHY : TargetHealth.responseCodeMismatch(500));
      assertThat(h.health("tg", v.port())).as("v after %d of 4 passes", n)
          .isEqualTo(n < 4 ? TargetHealth.responseCodeMismatch(500) : TargetHealth.HEALTHY);
    }
    assertThat(checksT.get("/v1")).as("checks on the old path").hasValue(2);
    assertThat(timesT).hasSize(6);
    assertThat(timesT.get(2) - lastBefore).as("from the last check before the reload to the next").isEqualTo(20_000);
    for (int i = 3; i < timesT.size(); i++) {
      assertThat(timesT.get(i) - timesT.get(i - 1)).as("interval after the reload").isEqualTo(20_000);
    }
  }

  @Test
  void reloadShorteningTheInterval_checksWithinTheNewInterval_notAfterTheOldOne() {
    List<Long> timesT = new CopyOnWriteArrayList<>();
    Backend t = h.pathTarget("t", Map.of("/health", 200), new ConcurrentHashMap<>(), timesT);
    Backend u = h.pathTarget("u", Map.of("/health", 200), new ConcurrentHashMap<>(), new CopyOnWriteArrayList<>());
    h.start(CONFIG.formatted(h.listenerPort, "/health", 300, 2, 2, t.port(), u.port()));
    h.advanceSeconds(60);
    assertThat(timesT).hasSize(1);
    long reloadedAt = h.time.now();

    h.gateway().reload(CONFIG.formatted(h.listenerPort, "/health", 5, 2, 2, t.port(), u.port()));
    assertThat(h.health("tg", t.port())).isEqualTo(TargetHealth.HEALTHY);
    h.advanceSeconds(30);

    // The last check is long past one new interval: the next one comes within 5 s (spread out again),
    // then one every 5 s, instead of waiting for the 300 s the old interval scheduled.
    assertThat(timesT).as("the check before the reload and those in the 30 s after it").hasSize(7);
    assertThat(timesT.get(1) - reloadedAt).isBetween(1L, 5_000L);
    for (int i = 2; i < timesT.size(); i++) {
      assertThat(timesT.get(i) - timesT.get(i - 1)).isEqualTo(5_000);
    }
    assertThat(h.health("tg", t.port())).isEqualTo(TargetHealth.HEALTHY);
  }
}
