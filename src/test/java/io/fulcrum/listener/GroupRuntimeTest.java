package io.fulcrum.listener;

import static io.fulcrum.balancer.Plans.a;
import static io.fulcrum.balancer.Plans.b;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.balancer.Plans;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A listener verticle's runtime of a target group across plans: a new plan (a health change, a
 * registration, any change the registry makes) goes on with round robin's turns where the old one
 * left them, rather than at the first target again.
 */
class GroupRuntimeTest {

  private static List<String> picks(GroupRuntime g, String zone, int n) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(g.selector(zone).choose(0).key());
    }
    return out;
  }

  private static TargetGroupPlan healthy(TargetGroup g) {
    return Plans.plan(g, Plans.health(g, TargetHealth.HEALTHY, Map.of()));
  }

  @Test
  void nextPlan_goesOnWithRoundRobinsTurn_crossZone() {
    TargetGroup g = Plans.group(3, 0, Map.of());
    GroupRuntime first = new GroupRuntime(healthy(g), new SplittableRandom(1));
    assertThat(picks(first, "zone-a", 2)).containsExactly(a(1), a(2));

    GroupRuntime second = first.next(healthy(g));
    assertThat(picks(second, "zone-b", 2)).as("cross-zone: one turn for every zone").containsExactly(a(3), a(1));

    GroupRuntime unused = second.next(healthy(g)); // a plan no request saw
    assertThat(picks(unused.next(healthy(g)), "zone-a", 1)).containsExactly(a(2));
  }

  @Test
  void nextPlan_goesOnWithEachZonesTurn_crossZoneOff() {
    TargetGroup g = Plans.group(2, 2, Map.of("load_balancing.cross_zone.enabled", "false"));
    GroupRuntime first = new GroupRuntime(healthy(g), new SplittableRandom(1));
    assertThat(picks(first, "zone-a", 1)).containsExactly(a(1));
    assertThat(picks(first, "zone-b", 3)).containsExactly(b(1), b(2), b(1));

    GroupRuntime second = first.next(healthy(g));
    assertThat(picks(second, "zone-a", 2)).containsExactly(a(2), a(1));
    assertThat(picks(second, "zone-b", 2)).containsExactly(b(2), b(1));
  }
}
