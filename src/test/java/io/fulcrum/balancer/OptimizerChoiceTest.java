package io.fulcrum.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class OptimizerChoiceTest {

  private static Upstream target(int i) {
    return new Upstream("10.0.0." + i + ":80", "10.0.0." + i, "10.0.0." + i, 80, "zone-a");
  }

  private static Scope scope(Upstream... targets) {
    return new Scope(List.of(targets), null, 0, null, false, false, targets.length, targets.length);
  }

  @Test
  void preferredTargetWithACredit_takesIt() {
    Upstream a = target(1);
    Upstream b = target(2);
    a.grantCredits(1);
    b.grantCredits(1);
    assertThat(OptimizerChoice.take(a, scope(a, b), Algorithm.ROUND_ROBIN, new SplittableRandom(1))).isSameAs(a);
    assertThat(a.credits()).isZero();
    assertThat(b.credits()).isEqualTo(1);
  }

  @Test
  void preferredTargetWithout_givesWayToOneWithACredit_andNoneLeftIsNull() {
    Upstream a = target(1);
    Upstream b = target(2);
    Upstream c = target(3);
    c.grantCredits(2);
    SplittableRandom random = new SplittableRandom(7);
    assertThat(OptimizerChoice.take(a, scope(a, b, c), Algorithm.WEIGHTED_RANDOM, random)).isSameAs(c);
    assertThat(OptimizerChoice.take(a, scope(a, b, c), Algorithm.ROUND_ROBIN, random)).isSameAs(c);
    assertThat(OptimizerChoice.take(a, scope(a, b, c), Algorithm.ROUND_ROBIN, random)).isNull();
    assertThat(List.of(a.credits(), b.credits(), c.credits())).containsOnly(0);
  }

  @Test
  void leastOutstanding_takesTheLeastBusyOfThoseWithACredit() {
    Upstream idle = target(1);
    Upstream busy = target(2);
    Upstream busier = target(3);
    busy.dispatched();
    busier.dispatched();
    busier.dispatched();
    busy.grantCredits(1);
    busier.grantCredits(1);
    // idle has no credit: it may take nothing however idle it is
    assertThat(OptimizerChoice.take(idle, scope(idle, busy, busier), Algorithm.LEAST_OUTSTANDING_REQUESTS,
        new SplittableRandom(3))).isSameAs(busy);
  }

  @Test
  void fallback_spreadsOverTargetsWithCredits() {
    List<Upstream> targets = new ArrayList<>();
    for (int i = 1; i <= 4; i++) {
      targets.add(target(i));
    }
    Upstream none = targets.get(0);
    SplittableRandom random = new SplittableRandom(11);
    Scope scope = scope(targets.toArray(Upstream[]::new));
    int[] taken = new int[4];
    for (int round = 0; round < 400; round++) {
      targets.subList(1, 4).forEach(u -> u.grantCredits(1));
      Upstream u = OptimizerChoice.take(none, scope, Algorithm.ROUND_ROBIN, random);
      taken[targets.indexOf(u)]++;
      targets.forEach(t -> {
        while (t.takeCredit()) {
          // back to no credit
        }
      });
    }
    assertThat(taken[0]).isZero();
    for (int i = 1; i < 4; i++) {
      assertThat(taken[i]).as("target %d", i).isBetween(80, 190);
    }
  }
}
