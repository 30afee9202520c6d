package io.fulcrum.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fulcrum.model.Action;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class ForwardRouteTest {

  private static ForwardRoute route(int... weights) {
    List<Action.WeightedTargetGroup> groups = new java.util.ArrayList<>();
    for (int i = 0; i < weights.length; i++) {
      groups.add(new Action.WeightedTargetGroup("tg-" + i, "tg-" + i, weights[i]));
    }
    return new ForwardRoute(1, new Action.Forward(groups, false, 0), null);
  }

  private static Map<String, Integer> spread(ForwardRoute r, int n, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      counts.merge(String.valueOf(r.choose(random)), 1, Integer::sum);
    }
    return counts;
  }

  @Test
  void weights_spreadInProportion_within1Point5Percent_over10000RequestsWithAFixedSeed() {
    // 10 / 20 / 70: with 10,000 draws the standard deviation of a share is at most 0.46 %, so
    // 1.5 points is over 3 sigma; the fixed seed makes the run reproducible.
    Map<String, Integer> counts = spread(route(10, 20, 70), 10_000, 42);
    assertThat(counts.get("tg-0") / 10_000.0).isCloseTo(0.10, within(0.015));
    assertThat(counts.get("tg-1") / 10_000.0).isCloseTo(0.20, within(0.015));
    assertThat(counts.get("tg-2") / 10_000.0).isCloseTo(0.70, within(0.015));
  }

  @Test
  void weightZero_neverReceivesTraffic() {
    Map<String, Integer> counts = spread(route(0, 5, 999, 0, 1), 10_000, 7);
    assertThat(counts).doesNotContainKeys("tg-0", "tg-3");
    assertThat(counts.keySet()).containsExactlyInAnyOrder("tg-1", "tg-2", "tg-4");
  }

  @Test
  void allWeightsZero_choosesNothing() {
    assertThat(route(0, 0).choose(new SplittableRandom(1))).isNull();
  }

  @Test
  void singleGroup_alwaysReceivesTraffic_evenWithWeightZero() {
    assertThat(route(0).choose(new SplittableRandom(1))).isEqualTo("tg-0");
    assertThat(route(0).weighted()).isFalse();
  }

  @Test
  void sameSeed_givesTheSameSequence() {
    ForwardRoute r = route(1, 1, 1);
    SplittableRandom a = new SplittableRandom(99);
    SplittableRandom b = new SplittableRandom(99);
    for (int i = 0; i < 100; i++) {
      assertThat(r.choose(a)).isEqualTo(r.choose(b));
    }
  }
}
