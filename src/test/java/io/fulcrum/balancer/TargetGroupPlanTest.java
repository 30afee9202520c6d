package io.fulcrum.balancer;

import static io.fulcrum.balancer.Plans.a;
import static io.fulcrum.balancer.Plans.b;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Eligibility per scope, fail-open and the target-group health thresholds of SPEC §10, edge by edge. */
class TargetGroupPlanTest {

  private static final TargetHealth SICK = TargetHealth.responseCodeMismatch(500);

  private static Map<String, TargetHealth> failing(TargetGroup g, String... keys) {
    Map<String, TargetHealth> o = new HashMap<>();
    for (String k : keys) {
      o.put(k, SICK);
    }
    return Plans.health(g, TargetHealth.HEALTHY, o);
  }

  @Test
  void healthyTargetsOnly_whenTheThresholdHolds() {
    TargetGroup g = Plans.group(3, 0, Map.of());
    Scope s = Plans.plan(g, failing(g, a(2))).scope("zone-a");
    assertThat(s.eligibleKeys()).containsExactly(a(1), a(3));
    assertThat(s.unhealthyRouting()).isFalse();
    assertThat(s.eligible(a(2))).isNull();
  }

  @Test
  void failOpen_toUnhealthyAndInitial_whenNoneIsHealthy_neverDraining() {
    TargetGroup g = Plans.group(3, 0, Map.of());
    Map<String, TargetHealth> h = failing(g, a(1), a(2));
    h.put(a(3), TargetHealth.INITIAL_HEALTH_CHECKING);
    Scope s = Plans.plan(g, h).scope("zone-a");
    assertThat(s.eligibleKeys()).containsExactly(a(1), a(2), a(3));
    assertThat(s.unhealthyRouting()).isTrue();
  }

  @Test
  void initialTargets_areLeftOut_whileOneTargetIsHealthy() {
    TargetGroup g = Plans.group(3, 0, Map.of(
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "2",
        "target_group_health.dns_failover.minimum_healthy_targets.count", "2"));
    Map<String, TargetHealth> h = failing(g, a(2));
    h.put(a(3), TargetHealth.INITIAL_HEALTH_CHECKING);
    Scope s = Plans.plan(g, h).scope("zone-a");
    // One healthy of three: below the routing count 2, so the unhealthy one joins; the initial one does not.
    assertThat(s.eligibleKeys()).containsExactly(a(1), a(2));
  }

  @ParameterizedTest(name = "count {0}, percentage {1}, {2} of 10 healthy -> routing breached {3}")
  @CsvSource({
      "1, off, 1, false",
      "1, off, 0, true",
      "5, off, 5, false",
      "5, off, 4, true",
      "1, 50, 5, false",
      "1, 50, 4, true",
      "6, 50, 5, true",
      "4, 50, 4, true",
      "4, 40, 4, false",
      "10, off, 10, false",
      "10, 100, 9, true"})
  void routingThreshold_edges(int count, String percentage, int healthy, boolean breached) {
    Map<String, String> attrs = Map.of(
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", Integer.toString(count),
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", percentage,
        "target_group_health.dns_failover.minimum_healthy_targets.count", "off");
    TargetGroup g = Plans.group(10, 0, attrs);
    String[] sick = new String[10 - healthy];
    for (int i = 0; i < sick.length; i++) {
      sick[i] = a(i + 1);
    }
    Scope s = Plans.plan(g, failing(g, sick)).scope("zone-a");
    assertThat(s.unhealthyRouting()).isEqualTo(breached);
    assertThat(s.eligibleCount()).isEqualTo(breached ? 10 : healthy);
  }

  @ParameterizedTest(name = "dns count {0}, percentage {1}, {2} of 10 healthy -> dns breached {3}")
  @CsvSource({
      "1, off, 1, false",
      "1, off, 0, true",
      "off, off, 0, false",
      "off, 50, 5, false",
      "off, 50, 4, true",
      "3, 50, 5, false",
      "6, 50, 5, true",
      "off, 100, 10, false"})
  void dnsThreshold_edges(String count, String percentage, int healthy, boolean breached) {
    Map<String, String> attrs = Map.of(
        "target_group_health.dns_failover.minimum_healthy_targets.count", count,
        "target_group_health.dns_failover.minimum_healthy_targets.percentage", percentage);
    TargetGroup g = Plans.group(10, 0, attrs);
    String[] sick = new String[10 - healthy];
    for (int i = 0; i < sick.length; i++) {
      sick[i] = a(i + 1);
    }
    assertThat(Plans.plan(g, failing(g, sick)).scope("zone-a").dnsBreached()).isEqualTo(breached);
  }

  @Test
  void seedExample_crossZoneOff_zoneBRoutesToAllItsTargets_andFailsDns_zoneAKeepsItsHealthyOnes() {
    TargetGroup g = Plans.group(10, 10, Map.of(
        "load_balancing.cross_zone.enabled", "false",
        "target_group_health.dns_failover.minimum_healthy_targets.percentage", "50",
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "50"));
    TargetGroupPlan plan = Plans.plan(g, failing(g, b(1), b(2), b(3), b(4), b(5), b(6)));
    Scope zoneA = plan.scope("zone-a");
    Scope zoneB = plan.scope("zone-b");
    assertThat(zoneA.eligibleCount()).isEqualTo(10);
    assertThat(zoneA.eligibleKeys()).allMatch(k -> k.startsWith("10.0.1."));
    assertThat(zoneA.dnsBreached()).isFalse();
    assertThat(zoneB.eligibleCount()).isEqualTo(10);
    assertThat(zoneB.eligibleKeys()).allMatch(k -> k.startsWith("10.0.2."));
    assertThat(zoneB.unhealthyRouting()).isTrue();
    assertThat(zoneB.dnsBreached()).isTrue();
  }

  @Test
  void seedExample_crossZoneOn_routesToThe14Healthy_andNoZoneFailsDns() {
    TargetGroup g = Plans.group(10, 10, Map.of(
        "target_group_health.dns_failover.minimum_healthy_targets.percentage", "50",
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "50"));
    TargetGroupPlan plan = Plans.plan(g, failing(g, b(1), b(2), b(3), b(4), b(5), b(6)));
    assertThat(plan.crossZone()).isTrue();
    assertThat(plan.scope("zone-a")).isSameAs(plan.scope("zone-b"));
    assertThat(plan.scope("zone-b").eligibleCount()).isEqualTo(14);
    assertThat(plan.scope("zone-b").unhealthyRouting()).isFalse();
    assertThat(plan.scope("zone-b").dnsBreached()).isFalse();
  }

  @Test
  void crossZoneOff_aZoneWithoutTargets_hasAnEmptyScope() {
    TargetGroup g = Plans.group(2, 0, Map.of("load_balancing.cross_zone.enabled", "false"));
    TargetGroupPlan plan = Plans.plan(g, failing(g));
    assertThat(plan.scope("zone-b").eligibleCount()).isZero();
    assertThat(plan.scope("zone-b").registered()).isZero();
    assertThat(plan.hasRegisteredTargets()).isTrue();
    assertThat(plan.scope("zone-c")).isNull();
  }
}
