package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.GroupHealth;
import io.fulcrum.bus.LocalCodec;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.Resources;
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
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A target group that a rule starts to use: its targets were reported {@code unused}
 * ({@code Target.NotInUse}) while nothing used it, and the health checker hears of the change only
 * after the snapshot that routes to the group is out. That snapshot must route to them as starting
 * targets, not answer 503 until the health checker's report arrives. The registry runs here without
 * a health checker, so the stale report stays as long as the test looks.
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
}
