package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The journal keeps the latest events, numbered from 1, and reads them after a number. */
class JournalTest {

  @Test
  void theOldestEventsGo_onceTheJournalIsFull_andTheNumbersGoOn() {
    Journal journal = new Journal(3);
    for (int i = 0; i < 5; i++) {
      journal.add(1000L * i, Journal.TARGET_DRAINING, null, "app", "10.0.0." + i + ":80", "zone-a", null, "draining",
          "Target.DeregistrationInProgress", "deregistration delay 300 s");
    }

    assertThat(journal.after(0)).extracting(Journal.Event::sequence).containsExactly(3L, 4L, 5L);
    assertThat(journal.after(4)).extracting(Journal.Event::target).containsExactly("10.0.0.4:80");
    assertThat(journal.after(5)).isEmpty();
  }

  @Test
  void anEvent_asJson_hasItsTimeInIso8601_andLeavesOutWhatDoesNotApply() {
    Journal journal = new Journal(10);
    journal.add(1_767_225_600_000L, Journal.ZONE_DNS, "web", null, null, "zone-b", "healthy", "failover", "app,api",
        "removed from DNS");

    JsonObject json = journal.after(0).get(0).toJson();

    assertThat(json).isEqualTo(new JsonObject().put("sequence", 1L).put("time", "2026-01-01T00:00:00Z")
        .put("type", "ZoneDnsFailover").put("loadBalancer", "web").put("zone", "zone-b").put("from", "healthy")
        .put("to", "failover").put("reason", "app,api").put("description", "removed from DNS"));
  }
}
