package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.bus.HealthReport.TargetReport;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Backend;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A target's lifecycle through real targets (SPEC §1.6, §2.4): registration, initial checks,
 * thresholds counted exactly (with routing following them), {@code unused} targets that are never
 * checked, and draining after a deregistration until the delay ends.
 */
class HealthLifecycleTest {

  private final HealthHarness h = new HealthHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  /** A target answering {@code status} on /health (counted in {@code checks}) and its id elsewhere. */
  private Backend target(String id, AtomicInteger status, AtomicInteger checks) {
    return h.backend(id, req -> answer(req, id, status, checks));
  }

  private static void answer(HttpServerRequest req, String id, AtomicInteger status, AtomicInteger checks) {
    if (req.path().equals("/health")) {
      checks.incrementAndGet();
      req.response().setStatusCode(status.get()).end();
    } else {
      req.response().end(id);
    }
  }

  private String group(String name, String healthCheck, String attributes, int... ports) {
    StringBuilder targets = new StringBuilder();
    for (int p : ports) {
      targets.append("      - {id: 127.0.0.1, port: ").append(p).append("}\n");
    }
    return """
          - name: %s
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: %s
            attributes: {%s}
            targets:
        %s""".formatted(name, healthCheck, attributes, targets);
  }

  private String lb(String defaultGroup) {
    return """
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: %s}]}
        """.formatted(h.listenerPort, defaultGroup);
  }

  @Test
  void newTarget_isRegistrationInProgress_untilItsFirstCheckGoesOut_thenInitialHealthChecking() {
    ScriptedTarget target = h.scripted(ScriptedTarget.HANG);
    h.start(lb("tg") + "target-groups:\n"
        + group("tg", "{path: /health, interval-seconds: 30, timeout-seconds: 10}", "", target.port()));

    TargetHealth before = h.health("tg", target.port());
    assertThat(before).isEqualTo(TargetHealth.REGISTRATION_IN_PROGRESS);
    assertThat(before.state().wire()).isEqualTo("initial");
    assertThat(before.description()).isEqualTo("Target registration is in progress");

    // The first check leaves within 5 s (jitter); the target holds it unanswered (timeout 10 s).
    for (int ms = 0; ms < 5_000; ms += 250) {
      h.advance(Duration.ofMillis(250));
      TargetHealth now = h.health("tg", target.port());
      assertThat(now).as("after %d ms with %d checks sent", ms + 250, target.connections())
          .isEqualTo(target.connections() == 0 ? TargetHealth.REGISTRATION_IN_PROGRESS
              : TargetHealth.INITIAL_HEALTH_CHECKING);
    }
    assertThat(target.connections()).isEqualTo(1);
    TargetHealth checking = h.health("tg", target.port());
    assertThat(checking.state().wire()).isEqualTo("initial");
    assertThat(checking.reason()).isEqualTo("Elb.InitialHealthChecking");
    assertThat(checking.description()).isEqualTo("Initial health checks in progress");
  }

  @Test
  void groupNoListenerUses_isUnusedNotInUse_andItsTargetsAreNeverChecked() {
    AtomicInteger usedChecks = new AtomicInteger();
    AtomicInteger idleChecks = new AtomicInteger();
    Backend used = target("used", new AtomicInteger(200), usedChecks);
    Backend idle = target("idle", new AtomicInteger(200), idleChecks);
    String hc = "{path: /health, interval-seconds: 5, timeout-seconds: 2}";
    h.start(lb("used") + "target-groups:\n" + group("used", hc, "", used.port()) + group("idle", hc, "", idle.port()));

    h.advanceSeconds(60);

    TargetReport report = h.report("idle").get("127.0.0.1:" + idle.port());
    assertThat(report.health()).isEqualTo(TargetHealth.NOT_IN_USE);
    assertThat(report.health().state().wire()).isEqualTo("unused");
    assertThat(report.health().reason()).isEqualTo("Target.NotInUse");
    assertThat(report.health().description())
        .isEqualTo("Target group is not configured to receive traffic from the load balancer");
    assertThat(report.healthCheckPort()).as("no port is probed").isZero();
    assertThat(report.history()).isEmpty();
    assertThat(idle.hits()).as("requests the unused group's target received").isZero();
    // The same settings do check the group in use: 12 intervals of 5 s.
    assertThat(usedChecks.get()).isEqualTo(12);
    assertThat(h.health("used", used.port())).isEqualTo(TargetHealth.HEALTHY);
  }

  @Test
  void targetInAZoneTheLoadBalancerHasNotEnabled_isUnusedNotInUse_andNeverChecked() {
    AtomicInteger checksA = new AtomicInteger();
    AtomicInteger checksB = new AtomicInteger();
    Backend a = target("a", new AtomicInteger(200), checksA);
    Backend b = target("b", new AtomicInteger(200), checksB);
    h.start("""
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: lb
            zones: [zone-a]
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-b}
        """.formatted(h.listenerPort, a.port(), b.port()));

    h.advanceSeconds(30);

    TargetHealth unused = h.health("tg", b.port());
    assertThat(unused).isEqualTo(TargetHealth.ZONE_NOT_ENABLED);
    assertThat(HealthHarness.describe(unused)).isEqualTo("unused/Target.NotInUse");
    assertThat(unused.description())
        .isEqualTo("Target is in an Availability Zone that is not enabled for the load balancer");
    assertThat(h.report("tg").get("127.0.0.1:" + b.port()).healthCheckPort()).isZero();
    assertThat(b.hits()).isZero();
    assertThat(h.health("tg", a.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(checksA.get()).isEqualTo(6);
    h.awaitDataPlane();
    assertThat(h.spread(10)).containsOnlyKeys("a");
    assertThat(b.hits()).isZero();
  }

  @Test
  void deregisteredTarget_isDraining_untilTheDeregistrationDelayEnds_thenNoLongerReported() {
    AtomicInteger checksA = new AtomicInteger();
    AtomicInteger checksB = new AtomicInteger();
    Backend a = target("a", new AtomicInteger(200), checksA);
    Backend b = target("b", new AtomicInteger(200), checksB);
    String hc = "{path: /health, interval-seconds: 10, timeout-seconds: 5}";
    String attributes = "deregistration_delay.timeout_seconds: \"30\"";
    h.start(lb("tg") + "target-groups:\n" + group("tg", hc, attributes, a.port(), b.port()));
    h.advanceSeconds(10);
    assertThat(h.health("tg", b.port())).isEqualTo(TargetHealth.HEALTHY);
    h.awaitDataPlane();
    assertThat(h.spread(10)).containsOnlyKeys("a", "b");

    h.gateway().reload(lb("tg") + "target-groups:\n" + group("tg", hc, attributes, a.port()));

    await().atMost(Duration.ofSeconds(10)).until(() -> h.health("tg", b.port()).equals(TargetHealth.DRAINING));
    TargetHealth draining = h.health("tg", b.port());
    assertThat(HealthHarness.describe(draining)).isEqualTo("draining/Target.DeregistrationInProgress");
    assertThat(draining.description()).isEqualTo("Target deregistration is in progress");
    h.awaitDataPlane();
    int hitsB = b.hits();
    assertThat(h.spread(10)).containsOnlyKeys("a");

    int checksBefore = checksB.get();
    h.advance(Duration.ofSeconds(30).minusMillis(1));
    assertThat(h.health("tg", b.port())).isEqualTo(TargetHealth.DRAINING);
    assertThat(checksB.get()).as("checks sent to the draining target").isEqualTo(checksBefore);
    assertThat(checksA.get()).as("the registered target is still checked").isGreaterThanOrEqualTo(4);

    h.advance(Duration.ofMillis(1));
    await().atMost(Duration.ofSeconds(10)).until(() -> !h.report("tg").containsKey("127.0.0.1:" + b.port()));
    assertThat(h.report("tg")).containsOnlyKeys("127.0.0.1:" + a.port());
    assertThat(b.hits()).isEqualTo(hitsB);
  }

  @Test
  void thresholds_areCountedExactly_andRoutingFollowsThem() {
    AtomicInteger statusA = new AtomicInteger(200);
    AtomicInteger checksA = new AtomicInteger();
    AtomicInteger checksB = new AtomicInteger();
    Backend a = target("a", statusA, checksA);
    Backend b = target("b", new AtomicInteger(200), checksB);
    h.start(lb("tg") + "target-groups:\n" + group("tg", "{path: /health, interval-seconds: 10, timeout-seconds: 5,"
        + " healthy-threshold-count: 4, unhealthy-threshold-count: 3}", "", a.port(), b.port()));
    Runnable tick = () -> {
      int before = checksA.get() + checksB.get();
      h.advanceSeconds(10);
      assertThat(checksA.get() + checksB.get()).as("one check per target per interval").isEqualTo(before + 2);
      h.awaitDataPlane();
    };

    tick.run();
    assertThat(h.health("tg", a.port())).isEqualTo(TargetHealth.HEALTHY);

    statusA.set(500);
    for (int failures = 1; failures <= 2; failures++) {
      tick.run();
      assertThat(h.health("tg", a.port())).as("after %d of 3 failures", failures).isEqualTo(TargetHealth.HEALTHY);
      assertThat(h.spread(10)).as("after %d of 3 failures", failures).containsOnlyKeys("a", "b");
    }
    tick.run();
    assertThat(h.health("tg", a.port())).isEqualTo(TargetHealth.responseCodeMismatch(500));
    Map<String, Integer> spread = h.spread(10);
    assertThat(spread).containsOnlyKeys("b");

    statusA.set(200);
    for (int passes = 1; passes <= 3; passes++) {
      tick.run();
      assertThat(h.health("tg", a.port())).as("after %d of 4 passes", passes)
          .isEqualTo(TargetHealth.responseCodeMismatch(500));
      assertThat(h.spread(10)).as("after %d of 4 passes", passes).containsOnlyKeys("b");
    }
    tick.run();
    assertThat(h.health("tg", a.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(h.spread(10)).containsOnlyKeys("a", "b");
  }
}
