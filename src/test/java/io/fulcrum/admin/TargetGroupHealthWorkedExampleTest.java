package io.fulcrum.admin;

import static io.fulcrum.admin.ZoneFleet.NODE_A;
import static io.fulcrum.admin.ZoneFleet.NODE_B;
import static io.fulcrum.admin.ZoneFleet.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The worked example of the target-group-health page (seed 001, SPEC §10): a load balancer in two
 * zones with 10 real targets each, DNS failover and unhealthy-state routing both at 50 %, and 6
 * targets of zone B failing their health checks.
 *
 * <ul>
 *   <li>cross-zone off: zone B has 4/10 = 40 % healthy, below 50 %: zone B's node address leaves
 *       DNS and its readiness turns 503, and zone B's node routes to all 10 of its targets,
 *       unhealthy ones included; zone A is untouched;</li>
 *   <li>cross-zone on: 14/20 = 70 % healthy: nothing happens, both zones stay in DNS and every
 *       node routes to the 14 healthy targets only.</li>
 * </ul>
 */
class TargetGroupHealthWorkedExampleTest {

  private static final Map<String, String> FIFTY_PERCENT_CROSS_ZONE_OFF = Map.of(
      "load_balancing.cross_zone.enabled", "false",
      "target_group_health.dns_failover.minimum_healthy_targets.percentage", "50",
      "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "50");
  private static final Map<String, String> FIFTY_PERCENT_CROSS_ZONE_ON = Map.of(
      "load_balancing.cross_zone.enabled", "true",
      "target_group_health.dns_failover.minimum_healthy_targets.percentage", "50",
      "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "50");

  private ZoneFleet fleet;

  @AfterEach
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  private List<String> healthyOfZoneB() {
    return fleet.ids("zone-b").subList(6, 10);
  }

  @Test
  void crossZoneOff_sixOfTenFailingInZoneB_pullsZoneBFromDns_andItsNodeRoutesToAllTenOfItsTargets() {
    fleet = ZoneFleet.start(10, FIFTY_PERCENT_CROSS_ZONE_OFF);
    assertThat(fleet.traffic(NODE_B, 30).keySet()).containsExactlyInAnyOrderElementsOf(fleet.ids("zone-b"));
    fleet.eventually(f -> assertThat(f.dnsA()).containsExactlyInAnyOrder(NODE_A, NODE_B));

    fleet.failHealthChecks("zone-b", 6);

    assertThat(fleet.healthByZone()).isEqualTo(Map.of(
        "zone-a", Map.of("healthy", 10L),
        "zone-b", Map.of("healthy", 4L, "unhealthy", 6L)));
    fleet.eventually(f -> {
      assertThat(f.dnsA()).as("zone B's node left DNS").containsExactly(NODE_A);
      assertThat(f.readiness("zone-a").status()).isEqualTo(200);
      assertThat(f.readiness("zone-b").status()).isEqualTo(503);
    });
    JsonObject why = json(fleet.readiness("zone-b"));
    assertThat(why.getString("status")).isEqualTo("DOWN");
    assertThat(why.getJsonArray("failing")).isEqualTo(new JsonArray().add(new JsonObject()
        .put("loadBalancer", "demo").put("dnsName", ZoneFleet.DNS_NAME).put("targetGroups", new JsonArray().add("web"))));
    assertThat(fleet.readiness(null).status()).as("the process: zone A is ready").isEqualTo(200);

    Map<String, Integer> viaB = fleet.traffic(NODE_B, 30);
    assertThat(viaB.keySet()).as("zone B's node: all 10 zone-B targets, healthy and unhealthy")
        .containsExactlyInAnyOrderElementsOf(fleet.ids("zone-b"));
    Map<String, Integer> viaA = fleet.traffic(NODE_A, 30);
    assertThat(viaA.keySet()).as("zone A's node: its own 10 healthy targets")
        .containsExactlyInAnyOrderElementsOf(fleet.ids("zone-a"));
  }

  @Test
  void crossZoneOn_sameSixFailures_changeNothing_andEveryNodeRoutesToTheFourteenHealthyTargets() {
    fleet = ZoneFleet.start(10, FIFTY_PERCENT_CROSS_ZONE_OFF);
    fleet.failHealthChecks("zone-b", 6);
    fleet.eventually(f -> assertThat(f.dnsA()).containsExactly(NODE_A));

    // A hot reload turns cross-zone on; every target keeps its health.
    fleet.reload(FIFTY_PERCENT_CROSS_ZONE_ON);

    assertThat(fleet.healthByZone().get("zone-b")).isEqualTo(Map.of("healthy", 4L, "unhealthy", 6L));
    fleet.eventually(f -> {
      assertThat(f.dnsA()).as("14/20 = 70 %: both zones in DNS").containsExactlyInAnyOrder(NODE_A, NODE_B);
      assertThat(f.readiness("zone-a").status()).isEqualTo(200);
      assertThat(f.readiness("zone-b").status()).isEqualTo(200);
    });
    List<String> fourteen = new ArrayList<>(fleet.ids("zone-a"));
    fourteen.addAll(healthyOfZoneB());
    assertThat(fleet.traffic(NODE_A, 42).keySet()).containsExactlyInAnyOrderElementsOf(fourteen);
    assertThat(fleet.traffic(NODE_B, 42).keySet()).containsExactlyInAnyOrderElementsOf(fourteen);

    // And back off: zone B is pulled again, and its node routes to all of its targets.
    fleet.reload(FIFTY_PERCENT_CROSS_ZONE_OFF);
    fleet.eventually(f -> {
      assertThat(f.dnsA()).containsExactly(NODE_A);
      assertThat(f.readiness("zone-b").status()).isEqualTo(503);
    });
    assertThat(fleet.traffic(NODE_B, 30).keySet()).containsExactlyInAnyOrderElementsOf(fleet.ids("zone-b"));
  }

  @Test
  void crossZoneOn_fromTheStart_withSixFailuresInZoneB_keepsBothZones_andSkipsTheUnhealthy() {
    fleet = ZoneFleet.start(10, FIFTY_PERCENT_CROSS_ZONE_ON);

    fleet.failHealthChecks("zone-b", 6);

    fleet.eventually(f -> {
      assertThat(f.dnsA()).containsExactlyInAnyOrder(NODE_A, NODE_B);
      assertThat(f.readiness("zone-b").status()).isEqualTo(200);
    });
    Map<String, Integer> viaB = fleet.traffic(NODE_B, 42);
    assertThat(viaB.keySet()).doesNotContainAnyElementsOf(fleet.ids("zone-b").subList(0, 6))
        .containsAll(healthyOfZoneB()).containsAll(fleet.ids("zone-a")).hasSize(14);
  }

  @Test
  void everyZoneFailing_failsOpen_inDnsAndReadiness_andEachNodeRoutesToAllOfItsTargets() {
    fleet = ZoneFleet.start(10, FIFTY_PERCENT_CROSS_ZONE_OFF);

    fleet.failHealthChecks("zone-a", 6);
    fleet.failHealthChecks("zone-b", 6);

    fleet.eventually(f -> {
      assertThat(f.dnsA()).as("all zones fail: DNS advertises every zone").containsExactlyInAnyOrder(NODE_A, NODE_B);
      assertThat(f.readiness("zone-a").status()).isEqualTo(200);
      assertThat(f.readiness("zone-b").status()).isEqualTo(200);
      assertThat(f.readiness(null).status()).isEqualTo(200);
    });
    JsonObject b = json(fleet.readiness("zone-b"));
    assertThat(b.getJsonArray("failingOpen")).as("it says why it is up nevertheless").hasSize(1);
    assertThat(fleet.traffic(NODE_A, 30).keySet()).containsExactlyInAnyOrderElementsOf(fleet.ids("zone-a"));
    assertThat(fleet.traffic(NODE_B, 30).keySet()).containsExactlyInAnyOrderElementsOf(fleet.ids("zone-b"));

    // Zone A recovers: fail-open ends, and zone B alone is pulled.
    fleet.passHealthChecks("zone-a", 6);
    fleet.eventually(f -> {
      assertThat(f.dnsA()).containsExactly(NODE_A);
      assertThat(f.readiness("zone-b").status()).isEqualTo(503);
    });
  }
}
