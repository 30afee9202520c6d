package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.GroupHealth;
import io.fulcrum.bus.LocalCodec;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A target group that a rule starts to use: its targets were reported {@code unused}
 * ({@code Target.NotInUse}) while nothing used it, and the health checker hears of the change only
 * after the snapshot that routes to the group is out. That snapshot must route to them as starting
 * targets, not answer 503 until the health checker's report arrives. The registry runs here without
 * a health checker, so the stale report stays as long as the test looks. A group used again after a
 * while out of use starts its anomaly detection afresh.
 */
class GroupAttachedTest {

  @TempDir
  Path dir;

  private final Vertx vertx = TestVertx.create();

  @AfterEach
  void close() {
    Await.result(vertx.close());
  }

  private static final String WITHOUT_RULE = """
      load-balancers:
        - name: web
          listeners:
            - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: blue}]}
      target-groups:
        - {name: blue, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9001}]}
        - {name: green, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9002}]}
      """;

  private static final String WITH_RULE = """
      load-balancers:
        - name: web
          listeners:
            - protocol: HTTP
              port: 8080
              default-actions: [{type: forward, target-group: blue}]
              rules:
                - {priority: 1, conditions: [{field: path-pattern, values: ["/g/*"]}], actions: [{type: forward, target-group: green}]}
      target-groups:
        - {name: blue, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9001}]}
        - {name: green, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9002}]}
      """;

  @Test
  void targetsReportedUnusedBeforeARuleUsedTheirGroup_areRoutedAsStarting_onceOneDoes() {
    FulcrumConfig before = Gateway.config(WITHOUT_RULE);
    FulcrumConfig after = Gateway.config(WITH_RULE);
    LocalCodec.registerAll(vertx);
    RegistryVerticle registry = new RegistryVerticle(before.environment(), before.resources(), new VirtualTime(),
        new StateStore(dir));
    Await.result(vertx.deployVerticle(registry));
    TargetGroup green = before.resources().targetGroupByName("green").orElseThrow();
    String target = green.targets().get(0).key();
    // What the health checker reports for a group no rule uses.
    vertx.eventBus().publish(Addresses.HEALTH,
        new GroupHealth(green.arn(), 1, Map.of(target, TargetHealth.NOT_IN_USE), 0), new DeliveryOptions().setLocalOnly(true));
    await().atMost(Duration.ofSeconds(10)).until(() -> registry.healthReceived() == 1);

    Resources attached = after.resources();
    Await.result(registry.mutate(r -> attached));

    DataPlaneSnapshot snapshot = Await.result(
        vertx.eventBus().<DataPlaneSnapshot>request(Addresses.SNAPSHOT_CURRENT, null)).body();
    TargetGroupPlan plan = snapshot.groups().get(green.arn());
    assertThat(plan).as("the group is in use").isNotNull();
    assertThat(plan.scope("zone-a").eligibleKeys()).containsExactly(target);
  }

  private static final String MITIGATING_GREEN = """
        - name: green
          target-type: ip
          protocol: HTTP
          port: 80
          attributes: {load_balancing.algorithm.type: weighted_random, load_balancing.algorithm.anomaly_mitigation: "on"}
          targets: [{id: 127.0.0.1, port: 9011}, {id: 127.0.0.1, port: 9012}, {id: 127.0.0.1, port: 9013},
                    {id: 127.0.0.1, port: 9014}]
      """;

  /**
   * A group whose anomalous target was mitigated, no longer used by any rule and then used again:
   * its detector started anew when it went out of use, and its plan must not keep the old
   * detector's weights (which nothing would lift: the new detector sees nothing to change).
   */
  @Test
  void aGroupUsedAgain_afterItsDetectorWentWithItsUse_isRoutedWithoutTheOldMitigation() {
    String greenLine = "  - {name: green, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9002}]}\n";
    FulcrumConfig detached = Gateway.config(WITHOUT_RULE.replace(greenLine, MITIGATING_GREEN));
    FulcrumConfig attached = Gateway.config(WITH_RULE.replace(greenLine, MITIGATING_GREEN));
    LocalCodec.registerAll(vertx);
    VirtualTime time = new VirtualTime();
    RegistryVerticle registry = new RegistryVerticle(attached.environment(), attached.resources(), time,
        new StateStore(dir));
    Await.result(vertx.deployVerticle(registry));
    TargetGroup green = attached.resources().targetGroupByName("green").orElseThrow();
    Map<String, TargetHealth> healthy = new HashMap<>();
    green.targets().forEach(t -> healthy.put(t.key(), TargetHealth.HEALTHY));
    vertx.eventBus().publish(Addresses.HEALTH, new GroupHealth(green.arn(), 1, healthy, 0),
        new DeliveryOptions().setLocalOnly(true));
    await().atMost(Duration.ofSeconds(10)).until(() -> registry.healthReceived() == 1);
    String failing = green.targets().get(0).key();

    // One bucket in which the first target fails half of its requests and its peers none.
    TargetGroupPlan plan = snapshot().groups().get(green.arn());
    for (Target t : green.targets()) {
      Upstream u = plan.scope("zone-a").eligible(t.key());
      for (int r = 0; r < 100; r++) {
        u.dispatched();
        u.completed();
        if (t.key().equals(failing) && r % 2 == 0) {
          u.failed();
        }
      }
    }
    time.advance(Duration.ofMillis(AnomalyDetector.BUCKET_MILLIS));
    await().atMost(Duration.ofSeconds(10)).until(() -> share(snapshot(), green, failing) < 0.18);

    // Out of use for a bucket (its detector goes), then used again.
    Await.result(registry.mutate(r -> detached.resources()));
    time.advance(Duration.ofMillis(AnomalyDetector.BUCKET_MILLIS));
    Await.result(registry.mutate(r -> attached.resources()));

    assertThat(share(snapshot(), green, failing)).as("the failing target's share of choices, at full weight again")
        .isBetween(0.22, 0.28);
  }

  private DataPlaneSnapshot snapshot() {
    return Await.result(vertx.eventBus().<DataPlaneSnapshot>request(Addresses.SNAPSHOT_CURRENT, null)).body();
  }

  /** How often the group's weighted random selector picks {@code key}, over 20,000 choices. */
  private static double share(DataPlaneSnapshot snapshot, TargetGroup group, String key) {
    TargetGroupPlan plan = snapshot.groups().get(group.arn());
    TargetSelector selector = TargetSelector.of(plan.algorithm(), plan.scope("zone-a"), new SplittableRandom(7));
    int hits = 0;
    for (int i = 0; i < 20_000; i++) {
      if (selector.choose(VirtualTime.START).key().equals(key)) {
        hits++;
      }
    }
    return hits / 20_000.0;
  }
}
