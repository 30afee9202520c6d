package io.fulcrum.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * A network load balancer's choice of target for a new flow (SPEC §4), with the targets its
 * passive checks pass over: never an avoided one while another may take the flow, its own when all
 * are avoided, and the flows of targets not avoided stay where the hash put them.
 */
class FlowChoiceTest {

  private static Scope scope(Upstream... targets) {
    return new Scope(List.of(targets), null, 0, null, false, false, targets.length, targets.length);
  }

  private static Upstream target(String id) {
    return new Upstream("127.0.0.1:" + id, "127.0.0.1", "127.0.0.1", Integer.parseInt(id), "zone-a");
  }

  @Test
  void anAvoidedTarget_getsNoFlow_andTheOthersKeepTheirs() {
    Upstream x = target("9001");
    Upstream y = target("9002");
    Upstream z = target("9003");
    Scope scope = scope(x, y, z);
    SplittableRandom random = new SplittableRandom(7);
    Map<String, Integer> spread = new HashMap<>();
    for (int i = 0; i < 3000; i++) {
      long hash = random.nextLong();
      Upstream free = FlowChoice.choose(scope, hash, 0, false);
      Upstream passing = FlowChoice.choose(scope, hash, 0, false, u -> u == y);
      assertThat(passing).isNotSameAs(y);
      if (free != y) {
        assertThat(passing).as("a flow whose target is not avoided goes where it would").isSameAs(free);
      }
      spread.merge(passing.port() + "", 1, Integer::sum);
    }
    assertThat(spread).containsOnlyKeys("9001", "9003");
  }

  @Test
  void whenEveryTargetIsAvoided_theFlowGoesToItsOwn() {
    Upstream x = target("9001");
    Upstream y = target("9002");
    Scope scope = scope(x, y);
    Set<Upstream> all = Set.of(x, y);
    for (long hash = 0; hash < 100; hash++) {
      assertThat(FlowChoice.choose(scope, hash, 0, false, all::contains))
          .isSameAs(FlowChoice.choose(scope, hash, 0, false));
    }
  }

  @Test
  void sourceIpStickiness_keepsAClientsTarget_whatever_itsConnectionsDid() {
    Upstream x = target("9001");
    Upstream y = target("9002");
    Scope scope = scope(x, y);
    for (long source = 0; source < 100; source++) {
      assertThat(FlowChoice.choose(scope, source * 31, source, true, u -> u == y))
          .isSameAs(FlowChoice.choose(scope, source * 31, source, true));
    }
  }
}
