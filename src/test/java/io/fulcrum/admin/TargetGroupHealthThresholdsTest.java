package io.fulcrum.admin;

import static io.fulcrum.admin.ZoneFleet.NODE_A;
import static io.fulcrum.admin.ZoneFleet.NODE_B;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fulcrum.registry.RegistryVerticle;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.slf4j.LoggerFactory;

/**
 * The edges of the target group health thresholds (SPEC §10), on 4 real targets per zone:
 * exactly at a threshold nothing happens, one healthy target fewer the action fires; with a
 * count and a percentage either breach fires; a DNS threshold above the routing one pulls the
 * zone from DNS before its node fails open; {@code off} never pulls a zone. Each case is read
 * three ways: the DNS answer, the zone's readiness, and where zone B's node sends requests.
 */
class TargetGroupHealthThresholdsTest {

  private static final String DNS_COUNT = "target_group_health.dns_failover.minimum_healthy_targets.count";
  private static final String DNS_PERCENTAGE = "target_group_health.dns_failover.minimum_healthy_targets.percentage";
  private static final String ROUTING_COUNT = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count";
  private static final String ROUTING_PERCENTAGE =
      "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage";

  private ZoneFleet fleet;

  @AfterEach
  void stop() {
    if (fleet != null) {
      fleet.close();
    }
  }

  /** Cross-zone off (thresholds per zone) and these thresholds. */
  private void start(String... keyValues) {
    Map<String, String> attributes = new HashMap<>();
    attributes.put("load_balancing.cross_zone.enabled", "false");
    for (int i = 0; i < keyValues.length; i += 2) {
      attributes.put(keyValues[i], keyValues[i + 1]);
    }
    fleet = ZoneFleet.start(4, attributes);
  }

  /** Zone B is (or is not) in the DNS answer and ready. */
  private void assertZoneBInDns(boolean expected) {
    fleet.eventually(f -> {
      if (expected) {
        assertThat(f.dnsA()).containsExactlyInAnyOrder(NODE_A, NODE_B);
      } else {
        assertThat(f.dnsA()).containsExactly(NODE_A);
      }
      assertThat(f.readiness("zone-b").status()).isEqualTo(expected ? 200 : 503);
      assertThat(f.readiness("zone-a").status()).isEqualTo(200);
    });
  }

  /** Requests entering zone B's node reach exactly these zone-B targets (by index, 1-based). */
  private void assertZoneBNodeRoutesTo(int... targets) {
    List<String> expected = new ArrayList<>();
    for (int t : targets) {
      expected.add("b" + t);
    }
    assertThat(fleet.traffic(NODE_B, 24).keySet()).containsExactlyInAnyOrderElementsOf(expected);
  }

  private static final int[] ALL_OF_ZONE_B = {1, 2, 3, 4};

  @Test
  void percentage_exactlyAtTheThreshold_firesNothing_oneHealthyTargetFewer_firesBothActions() {
    start(DNS_PERCENTAGE, "50", ROUTING_PERCENTAGE, "50");

    fleet.failHealthChecks("zone-b", 2);
    assertZoneBInDns(true);
    assertZoneBNodeRoutesTo(3, 4);

    fleet.failHealthChecks("zone-b", 3);
    assertZoneBInDns(false);
    assertZoneBNodeRoutesTo(ALL_OF_ZONE_B);
  }

  @Test
  void count_exactlyAtTheThreshold_firesNothing_oneHealthyTargetFewer_firesBothActions() {
    start(DNS_COUNT, "3", ROUTING_COUNT, "3");

    fleet.failHealthChecks("zone-b", 1);
    assertZoneBInDns(true);
    assertZoneBNodeRoutesTo(2, 3, 4);

    fleet.failHealthChecks("zone-b", 2);
    assertZoneBInDns(false);
    assertZoneBNodeRoutesTo(ALL_OF_ZONE_B);
  }

  /**
   * Both actions with one count and one percentage (the console's unified configuration): with 2
   * of 4 healthy, exactly one of the two is breached, and that is enough.
   */
  @ParameterizedTest(name = "count {0} and {1} %: 2 of 4 healthy breaches only the {2}")
  @CsvSource({"1, 75, percentage", "3, 25, count"})
  void countAndPercentageTogether_eitherBreachFires(String count, String percentage, String which) {
    start(DNS_COUNT, count, DNS_PERCENTAGE, percentage, ROUTING_COUNT, count, ROUTING_PERCENTAGE, percentage);

    fleet.failHealthChecks("zone-b", 1);
    assertZoneBInDns(true);
    assertZoneBNodeRoutesTo(2, 3, 4);

    fleet.failHealthChecks("zone-b", 2);
    assertZoneBInDns(false);
    assertZoneBNodeRoutesTo(ALL_OF_ZONE_B);
  }

  @Test
  void dnsThresholdAboveTheRoutingOne_pullsTheZoneFromDnsBeforeItsNodeRoutesToUnhealthyTargets() {
    start(DNS_COUNT, "3", ROUTING_COUNT, "2");

    fleet.failHealthChecks("zone-b", 2);
    assertZoneBInDns(false);
    assertZoneBNodeRoutesTo(3, 4);

    fleet.failHealthChecks("zone-b", 3);
    assertZoneBInDns(false);
    assertZoneBNodeRoutesTo(ALL_OF_ZONE_B);
  }

  @Test
  void defaults_pullAZoneOnlyWhenItHasNoHealthyTargetLeft() {
    start();

    fleet.failHealthChecks("zone-b", 3);
    assertZoneBInDns(true);
    assertZoneBNodeRoutesTo(4);

    fleet.failHealthChecks("zone-b", 4);
    assertZoneBInDns(false);
    assertZoneBNodeRoutesTo(ALL_OF_ZONE_B);
  }

  @Test
  void dnsFailover_isLoggedWhenAZoneStartsFailing_andWhenItPassesAgain_onlyThen() {
    start(); // every target healthy: both zones pass
    Logger registryLog = (Logger) LoggerFactory.getLogger(RegistryVerticle.class);
    ListAppender<ILoggingEvent> log = new ListAppender<>();
    log.start();
    registryLog.addAppender(log);
    try {
      List<String> expected = new ArrayList<>();

      fleet.failHealthChecks("zone-b", 4);
      expected.add("load balancer demo: zone zone-b fails DNS failover (target groups [web])");
      assertDnsLines(log, expected);

      fleet.failHealthChecks("zone-a", 4);
      expected.add("load balancer demo: zone zone-a fails DNS failover (target groups [web]); every zone fails, so"
          + " DNS advertises all");
      assertDnsLines(log, expected);

      fleet.passHealthChecks("zone-b", 4);
      expected.add("load balancer demo: zone zone-b passes DNS failover again");
      assertDnsLines(log, expected);
      fleet.eventually(f -> assertThat(f.dnsA()).as("zone A still fails").containsExactly(NODE_B));
    } finally {
      registryLog.detachAppender(log);
    }
  }

  /** The registry's lines about DNS failover are exactly these (they come a moment after the data plane's change). */
  private void assertDnsLines(ListAppender<ILoggingEvent> log, List<String> expected) {
    fleet.eventually(f -> assertThat(List.copyOf(log.list).stream().map(ILoggingEvent::getFormattedMessage)
        .filter(m -> m.contains("DNS failover")).toList()).containsExactlyElementsOf(expected));
  }

  @Test
  void dnsCountOff_neverPullsTheZone_evenWithNoHealthyTarget_whileRoutingStillFailsOpen() {
    start(DNS_COUNT, "off");

    fleet.failHealthChecks("zone-b", 4);

    assertThat(fleet.healthByZone().get("zone-b")).containsEntry("unhealthy", 4L);
    assertZoneBInDns(true);
    assertZoneBNodeRoutesTo(ALL_OF_ZONE_B);
  }

  @Test
  void crossZoneOn_countsEveryZoneTogether_soOneZoneLosingAllItsTargetsAtFiftyPercentChangesNothing() {
    fleet = ZoneFleet.start(4, Map.of("load_balancing.cross_zone.enabled", "true", DNS_PERCENTAGE, "50",
        ROUTING_PERCENTAGE, "50"));

    fleet.failHealthChecks("zone-b", 4);
    assertZoneBInDns(true);
    assertThat(fleet.traffic(NODE_B, 24).keySet()).as("4/8 = 50 %: healthy targets only")
        .containsExactlyInAnyOrderElementsOf(fleet.ids("zone-a"));

    // 3/8 is below 50 % everywhere at once: every zone fails, so DNS fails open, and routing too.
    fleet.failHealthChecks("zone-a", 1);
    assertZoneBInDns(true);
    assertThat(ZoneFleet.json(fleet.readiness("zone-b")).getJsonArray("failingOpen")).hasSize(1);
    List<String> all = new ArrayList<>(fleet.ids("zone-a"));
    all.addAll(fleet.ids("zone-b"));
    assertThat(fleet.traffic(NODE_B, 24).keySet()).containsExactlyInAnyOrderElementsOf(all);
  }
}
