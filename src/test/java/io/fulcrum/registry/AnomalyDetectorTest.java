package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.model.AnomalyDetection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Detection against peers, halving per bucket, the 50 % cap and the linear recovery, exactly. */
class AnomalyDetectorTest {

  private final AnomalyDetector detector = new AnomalyDetector();

  private static List<Upstream> targets(int n) {
    List<Upstream> out = new ArrayList<>();
    for (int i = 1; i <= n; i++) {
      out.add(new Upstream("t" + i + ":80", "t" + i, "10.0.0." + i, 80, "zone-a"));
    }
    return out;
  }

  /** One bucket of traffic: {@code perTarget} requests each, with the given error counts. */
  private static void traffic(List<Upstream> targets, int perTarget, int... errors) {
    for (int i = 0; i < targets.size(); i++) {
      Upstream u = targets.get(i);
      for (int r = 0; r < perTarget; r++) {
        u.dispatched();
        u.completed();
      }
      for (int e = 0; e < (i < errors.length ? errors[i] : 0); e++) {
        u.failed();
      }
    }
  }

  private boolean tick(List<Upstream> targets, int healthy, boolean mitigate) {
    return detector.tick(Map.of("*", targets), healthy, mitigate);
  }

  @Test
  void oneTargetFailingWhilePeersDoNot_isAnomalous_andItsWeightHalvesEachBucket_toAFloor() {
    List<Upstream> t = targets(4);
    List<Double> weights = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      traffic(t, 100, 50);
      tick(t, 4, true);
      weights.add(detector.weights().getOrDefault("t1:80", 1.0));
    }
    assertThat(weights).containsExactly(0.5, 0.25, 0.125, 0.0625, 0.03125, 0.015625, 0.01, 0.01, 0.01);
    assertThat(detector.results()).containsEntry("t1:80", new AnomalyDetection(true, true))
        .containsEntry("t2:80", AnomalyDetection.NORMAL);
  }

  /**
   * A target registered again in another zone gets new counters (a new Upstream, counting from
   * zero): its window goes on from there, and a target still failing stays anomalous.
   */
  @Test
  void targetWhoseCountersAreNew_keepsItsWindow_andStaysAnomalousWhileItFails() {
    List<Upstream> t = targets(4);
    for (int i = 0; i < 3; i++) {
      traffic(t, 1000, 500);
      tick(t, 4, true);
    }
    assertThat(detector.weights()).containsEntry("t1:80", 0.125);

    // Fewer requests per bucket than its old counters had in all: read against those, its window would be
    // negative once the buckets before the change have left it, and the target normal.
    t.set(0, new Upstream("t1:80", "t1", "10.0.0.1", 80, "all"));
    for (int i = 0; i < AnomalyDetector.BUCKETS; i++) {
      traffic(t, 20, 10);
      tick(t, 4, true);
      assertThat(detector.results()).as("bucket %d after the change", i + 1)
          .containsEntry("t1:80", new AnomalyDetection(true, true));
    }
    assertThat(detector.weights()).containsEntry("t1:80", 0.01);
  }

  @Test
  void detection_runsWithoutMitigation_whenTheGroupDoesNotMitigate() {
    List<Upstream> t = targets(4);
    traffic(t, 100, 50);
    assertThat(tick(t, 4, false)).isFalse();
    assertThat(detector.weights()).isEmpty();
    assertThat(detector.results().get("t1:80")).isEqualTo(new AnomalyDetection(true, false));
  }

  @Test
  void fewerThanThreeHealthyTargets_detectNothing() {
    List<Upstream> t = targets(4);
    traffic(t, 100, 50);
    tick(t, 2, true);
    assertThat(detector.results().get("t1:80")).isEqualTo(AnomalyDetection.NORMAL);
  }

  @Test
  void errorsBelowTheAbsoluteFloor_orLikeThePeers_areNormal() {
    List<Upstream> t = targets(4);
    traffic(t, 100, 4);
    tick(t, 4, true);
    assertThat(detector.results().get("t1:80").anomalous()).as("4 %: under the 5 % floor").isFalse();
    traffic(t, 100, 30, 20, 20, 20);
    tick(t, 4, true);
    assertThat(detector.results().get("t1:80").anomalous()).as("not above twice the peers' median").isFalse();
  }

  @Test
  void neverMoreThanHalfOfAZonesTargets_areMitigated_theWorstFirst() {
    // Cross-zone off: zone-a's two targets both fail while zone-b's four do not. Both are anomalous
    // against the group, but only one of zone-a's two may be mitigated: the worse one.
    List<Upstream> t = targets(6);
    traffic(t, 100, 40, 60);
    detector.tick(Map.of("zone-a", t.subList(0, 2), "zone-b", t.subList(2, 6)), 6, true);
    assertThat(detector.results().get("t1:80").anomalous()).isTrue();
    assertThat(detector.results().get("t2:80").anomalous()).isTrue();
    assertThat(detector.weights()).containsOnlyKeys("t2:80");
  }

  @Test
  void whenMostTargetsFail_noneStandsOutFromItsPeers() {
    List<Upstream> t = targets(4);
    traffic(t, 100, 40, 60, 50, 0);
    tick(t, 4, true);
    assertThat(detector.results().values()).allMatch(r -> !r.anomalous());
    assertThat(detector.weights()).isEmpty();
  }

  @Test
  void recoveredTarget_climbsBackLinearly_overTheWindow() {
    List<Upstream> t = targets(4);
    traffic(t, 100, 50);
    tick(t, 4, true);
    traffic(t, 100, 50);
    tick(t, 4, true);
    assertThat(detector.weights()).containsEntry("t1:80", 0.25);
    List<Double> ramp = new ArrayList<>();
    // Healthy traffic from now on; the old errors leave the 60 s window bucket by bucket.
    for (int i = 0; i < 12 && (ramp.isEmpty() || ramp.get(ramp.size() - 1) < 1); i++) {
      traffic(t, 100);
      tick(t, 4, true);
      ramp.add(detector.weights().getOrDefault("t1:80", 1.0));
    }
    // Still anomalous while the errors are in the window (halving on), then +1/6 per bucket.
    int firstRise = 0;
    while (ramp.get(firstRise + 1) <= ramp.get(firstRise)) {
      firstRise++;
    }
    List<Double> climb = ramp.subList(firstRise, ramp.size());
    for (int i = 1; i < climb.size(); i++) {
      assertThat(climb.get(i) - climb.get(i - 1)).isBetween(0.0, 1.0 / 6 + 1e-9);
    }
    assertThat(ramp.get(ramp.size() - 1)).isEqualTo(1.0);
    assertThat(detector.results().get("t1:80")).isEqualTo(AnomalyDetection.NORMAL);
  }

  /** One bucket of traffic: {@code requests[i]} requests to target i, {@code errors[i]} of them failed. */
  private static void trafficEach(List<Upstream> targets, int[] requests, int[] errors) {
    for (int i = 0; i < targets.size(); i++) {
      Upstream u = targets.get(i);
      for (int r = 0; r < requests[i]; r++) {
        u.dispatched();
        u.completed();
      }
      for (int e = 0; e < errors[i]; e++) {
        u.failed();
      }
    }
  }

  /**
   * A target mitigated down to its floor gets too few requests to fill a window: what it gets is
   * still judged. Failing every one, it stays mitigated (it came back to a tenth of the traffic
   * every minute or so, each request failing, as too few requests counted as normal); answering
   * them, it climbs back.
   */
  @Test
  void mitigatedTargetWithFewRequests_staysMitigatedWhileTheyFail_andClimbsBackWhenTheyDoNot() {
    List<Upstream> t = targets(4);
    for (int i = 0; i < 9; i++) {
      traffic(t, 100, 100);
      tick(t, 4, true);
    }
    assertThat(detector.weights()).containsEntry("t1:80", 0.01);
    for (int i = 0; i < 12; i++) {
      trafficEach(t, new int[] {1, 100, 100, 100}, new int[] {1, 0, 0, 0});
      tick(t, 4, true);
      assertThat(detector.weights()).as("bucket %d", i).containsEntry("t1:80", 0.01);
    }
    assertThat(detector.results()).containsEntry("t1:80", new AnomalyDetection(true, true));

    for (int i = 0; i < 12; i++) {
      trafficEach(t, new int[] {1, 100, 100, 100}, new int[] {0, 0, 0, 0});
      tick(t, 4, true);
    }
    assertThat(detector.weights().getOrDefault("t1:80", 1.0)).isEqualTo(1.0);
    assertThat(detector.results().get("t1:80")).isEqualTo(AnomalyDetection.NORMAL);
  }
}
