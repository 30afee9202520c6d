package io.fulcrum.balancer;

import static io.fulcrum.balancer.Plans.a;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The three algorithms and slow start, with exact sequences where the algorithm is deterministic. */
class SelectorsTest {

  private static final long T0 = 1_767_225_600_000L;

  private static List<String> picks(TargetSelector s, int n, long now) {
    List<String> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(s.choose(now).key());
    }
    return out;
  }

  private static Scope scope(int targets, Map<String, String> attributes, Map<String, Long> slowStart) {
    TargetGroup g = Plans.group(targets, 0, attributes);
    return Plans.plan(g, Plans.health(g, TargetHealth.HEALTHY, Map.of()), slowStart).scope("zone-a");
  }

  @Test
  void roundRobin_givesTheExactSequence() {
    TargetSelector rr = TargetSelector.of(Algorithm.ROUND_ROBIN, scope(3, Map.of(), Map.of()), new SplittableRandom(1));
    assertThat(picks(rr, 7, T0)).containsExactly(a(1), a(2), a(3), a(1), a(2), a(3), a(1));
  }

  /**
   * A selector of the group's next plan goes on from the turn of the one before: with the target
   * it would have taken next when that one is still eligible, else at the same place.
   */
  @Test
  void roundRobin_goesOnFromTheTurnOfTheSelectorBefore() {
    TargetSelector before = TargetSelector.of(Algorithm.ROUND_ROBIN, scope(3, Map.of(), Map.of()), new SplittableRandom(1));
    assertThat(picks(before, 2, T0)).containsExactly(a(1), a(2));
    assertThat(before.turn()).isEqualTo(new TargetSelector.Turn(a(3), 2));

    TargetSelector same = TargetSelector.of(Algorithm.ROUND_ROBIN, scope(3, Map.of(), Map.of()), new SplittableRandom(1),
        before.turn());
    assertThat(picks(same, 3, T0)).containsExactly(a(3), a(1), a(2));

    TargetGroup g = Plans.group(3, 0, Map.of());
    Scope withoutA1 = Plans.plan(g, Plans.health(g, TargetHealth.HEALTHY, Map.of(a(1), TargetHealth.TIMEOUT)))
        .scope("zone-a");
    TargetSelector moved = TargetSelector.of(Algorithm.ROUND_ROBIN, withoutA1, new SplittableRandom(1), before.turn());
    assertThat(picks(moved, 3, T0)).as("a3, at another place now").containsExactly(a(3), a(2), a(3));

    Scope withoutA3 = Plans.plan(g, Plans.health(g, TargetHealth.HEALTHY, Map.of(a(3), TargetHealth.TIMEOUT)))
        .scope("zone-a");
    TargetSelector gone = TargetSelector.of(Algorithm.ROUND_ROBIN, withoutA3, new SplittableRandom(1), before.turn());
    assertThat(picks(gone, 3, T0)).as("a3 is not eligible: its place, 2 of 2, is the first").containsExactly(a(1), a(2),
        a(1));
  }

  @Test
  void slowStart_atAQuarterOfItsDuration_givesTheTargetEveryFourthTurn() {
    // a3 entered slow start 25 s ago with a 100 s duration: weight 0.25.
    Map<String, String> attrs = Map.of("slow_start.duration_seconds", "100");
    Scope s = scope(3, attrs, Map.of(a(3), T0 - 25_000));
    TargetSelector rr = TargetSelector.of(Algorithm.ROUND_ROBIN, s, new SplittableRandom(1));
    assertThat(picks(rr, 9, T0)).containsExactly(a(1), a(2), a(1), a(2), a(1), a(2), a(1), a(2), a(3));
  }

  @Test
  void slowStart_weightIsLinear_withAOnePercentFloor_andEndsAtItsDuration() {
    Map<String, String> attrs = Map.of("slow_start.duration_seconds", "100");
    Scope s = scope(2, attrs, Map.of(a(2), T0));
    assertThat(s.slowStartWeight(1, T0)).isEqualTo(0.01);
    assertThat(s.slowStartWeight(1, T0 + 50_000)).isCloseTo(0.5, within(1e-9));
    assertThat(s.slowStartWeight(1, T0 + 100_000)).isEqualTo(1.0);
    assertThat(s.slowStartWeight(0, T0)).isEqualTo(1.0);
    assertThat(s.slowStartActive(T0 + 99_999)).isTrue();
    assertThat(s.slowStartActive(T0 + 100_000)).isFalse();
    // Once over, plain round robin again.
    TargetSelector rr = TargetSelector.of(Algorithm.ROUND_ROBIN, s, new SplittableRandom(1));
    assertThat(picks(rr, 4, T0 + 100_000)).containsExactly(a(1), a(2), a(1), a(2));
  }

  @Test
  void slowStart_share_growsWithElapsedTime() {
    Map<String, String> attrs = Map.of("slow_start.duration_seconds", "100");
    Scope s = scope(2, attrs, Map.of(a(2), T0));
    for (int pct : new int[] {10, 50, 80}) {
      TargetSelector rr = TargetSelector.of(Algorithm.ROUND_ROBIN, s, new SplittableRandom(1));
      long now = T0 + pct * 1000L;
      long toNew = picks(rr, 1000, now).stream().filter(a(2)::equals).count();
      // The newcomer's turns are worth pct % of a turn: its share is w / (1 + w).
      double w = pct / 100.0;
      assertThat(toNew / 1000.0).isCloseTo(w / (1 + w), within(0.01));
    }
  }

  @Test
  void slowStart_whenEveryTargetIsInIt_turnsCountRelativeToTheHeaviest() {
    // a1 entered slow start 40 s ago, a2 and a3 20 s ago (100 s duration): weights 0.4, 0.2, 0.2,
    // so relative to a1: 1, 0.5, 0.5. a1 goes every turn, a2 and a3 every second one.
    Map<String, String> attrs = Map.of("slow_start.duration_seconds", "100");
    Scope s = scope(3, attrs, Map.of(a(1), T0 - 40_000, a(2), T0 - 20_000, a(3), T0 - 20_000));
    assertThat(s.maxSlowStartWeight(T0)).isCloseTo(0.4, within(1e-9));
    TargetSelector rr = TargetSelector.of(Algorithm.ROUND_ROBIN, s, new SplittableRandom(1));
    assertThat(picks(rr, 8, T0)).containsExactly(a(1), a(1), a(2), a(3), a(1), a(1), a(2), a(3));
  }

  @Test
  void slowStart_whenEveryTargetEnteredItTogether_isPlainRoundRobin() {
    Map<String, String> attrs = Map.of("slow_start.duration_seconds", "100");
    Scope s = scope(3, attrs, Map.of(a(1), T0, a(2), T0, a(3), T0));
    TargetSelector rr = TargetSelector.of(Algorithm.ROUND_ROBIN, s, new SplittableRandom(1));
    assertThat(picks(rr, 6, T0 + 1_000)).containsExactly(a(1), a(2), a(3), a(1), a(2), a(3));
  }

  @Test
  void slowStart_withOneTargetAtFullWeight_weighsTurnsAbsolutely() {
    Map<String, String> attrs = Map.of("slow_start.duration_seconds", "100");
    Scope s = scope(2, attrs, Map.of(a(2), T0 - 25_000));
    assertThat(s.maxSlowStartWeight(T0)).isEqualTo(1.0);
  }

  @Test
  void leastOutstanding_picksTheFewestInFlight_acrossEventLoops_randomAmongTies() {
    Scope s = scope(3, Map.of("load_balancing.algorithm.type", "least_outstanding_requests"), Map.of());
    Upstream[] t = s.eligible();
    t[0].dispatched();
    t[0].dispatched();
    t[1].dispatched();
    TargetSelector lor = TargetSelector.of(Algorithm.LEAST_OUTSTANDING_REQUESTS, s, new SplittableRandom(7));
    assertThat(lor.choose(T0).key()).isEqualTo(a(3));
    t[2].dispatched();
    t[2].dispatched();
    t[0].completed();
    t[0].completed();
    // a1 has 0, a2 1, a3 2.
    assertThat(lor.choose(T0).key()).isEqualTo(a(1));
    t[1].completed();
    t[2].completed();
    t[2].completed();
    Map<String, Integer> ties = new HashMap<>();
    for (int i = 0; i < 3000; i++) {
      ties.merge(lor.choose(T0).key(), 1, Integer::sum);
    }
    assertThat(ties.values()).allSatisfy(n -> assertThat(n / 3000.0).isCloseTo(1 / 3.0, within(0.05)));
  }

  @Test
  void leastOutstanding_overManyTargets_avoidsTheBusyOnes() {
    Scope s = scope(100, Map.of("load_balancing.algorithm.type", "least_outstanding_requests"), Map.of());
    Upstream[] t = s.eligible();
    for (int i = 0; i < 50; i++) {
      for (int k = 0; k < 10; k++) {
        t[i].dispatched();
      }
    }
    TargetSelector lor = TargetSelector.of(Algorithm.LEAST_OUTSTANDING_REQUESTS, s, new SplittableRandom(3));
    int toBusy = 0;
    for (int i = 0; i < 10_000; i++) {
      String key = lor.choose(T0).key();
      if (Integer.parseInt(key.substring(key.lastIndexOf('.') + 1, key.indexOf(':'))) <= 50) {
        toBusy++;
      }
    }
    // Two random choices: a busy target is chosen only when both are busy, about a quarter of the time.
    assertThat(toBusy / 10_000.0).isCloseTo(0.25, within(0.02));
  }

  @Test
  void weightedRandom_spreadsEvenly_withAFixedSeed() {
    Scope s = scope(4, Map.of("load_balancing.algorithm.type", "weighted_random"), Map.of());
    TargetSelector wr = TargetSelector.of(Algorithm.WEIGHTED_RANDOM, s, new SplittableRandom(42));
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      counts.merge(wr.choose(T0).key(), 1, Integer::sum);
    }
    // 10,000 draws over 4: a share's standard deviation is 0.43 %; 1.5 points is over 3 sigma.
    assertThat(counts.values()).allSatisfy(n -> assertThat(n / 10_000.0).isCloseTo(0.25, within(0.015)));
  }

  @Test
  void weightedRandom_followsMitigationWeights() {
    TargetGroup g = Plans.group(4, 0, Map.of("load_balancing.algorithm.type", "weighted_random",
        "load_balancing.algorithm.anomaly_mitigation", "on"));
    TargetGroupPlan plan = TargetGroupPlan.build(new TargetGroupPlan.Inputs(g, List.of("zone-a", "zone-b"),
        Plans.health(g, TargetHealth.HEALTHY, Map.of()), List.of(), Map.of(), Map.of(a(4), 0.25),
        t -> new Upstream(t.key(), t.id(), t.address(), t.port(), t.zone())));
    TargetSelector wr = TargetSelector.of(Algorithm.WEIGHTED_RANDOM, plan.scope("zone-a"), new SplittableRandom(5));
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < 10_000; i++) {
      counts.merge(wr.choose(T0).key(), 1, Integer::sum);
    }
    // Weights 1, 1, 1, 0.25: shares 4/13 each and 1/13.
    assertThat(counts.get(a(4)) / 10_000.0).isCloseTo(1 / 13.0, within(0.01));
    assertThat(counts.get(a(1)) / 10_000.0).isCloseTo(4 / 13.0, within(0.02));
  }

  @Test
  void weightedRandom_aliasTables_holdEachTargetsExactShare() {
    double[] weights = {1, 0.25, 1, 0.5, 0.01, 1, 0.125};
    int n = weights.length;
    double[] keep = new double[n];
    int[] alias = new int[n];
    WeightedRandomSelector.buildAlias(weights, keep, alias);
    double sum = 0;
    for (double w : weights) {
      sum += w;
    }
    double[] share = new double[n];
    for (int i = 0; i < n; i++) {
      share[i] += keep[i] / n;
      share[alias[i]] += (1 - keep[i]) / n;
    }
    for (int i = 0; i < n; i++) {
      assertThat(share[i]).isCloseTo(weights[i] / sum, within(1e-12));
    }
  }

  @Test
  void upstreamCounters_countInFlightRequestsAndTotals() {
    Upstream u = new Upstream("10.0.1.1:80", "10.0.1.1", "10.0.1.1", 80, "zone-a");
    u.dispatched();
    u.dispatched();
    u.completed();
    u.failed();
    assertThat(u.outstanding()).isEqualTo(1);
    assertThat(u.requestCount()).isEqualTo(2);
    assertThat(u.errorCount()).isEqualTo(1);
  }

  @Test
  void emptyScope_choosesNothing() {
    TargetGroup g = Plans.group(0, 1, Map.of("load_balancing.cross_zone.enabled", "false"));
    Scope s = Plans.plan(g, Plans.health(g, TargetHealth.HEALTHY, Map.of())).scope("zone-a");
    for (Algorithm alg : Algorithm.values()) {
      assertThat(TargetSelector.of(alg, s, new SplittableRandom(1)).choose(T0)).isNull();
    }
  }
}
