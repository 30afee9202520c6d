package io.fulcrum.balancer;

import java.util.random.RandomGenerator;

/**
 * Least outstanding requests (SPEC §4.3): the target with the fewest requests in flight across
 * every event loop (atomic counters, no lock), at random among ties. Up to
 * {@value #EXACT_LIMIT} targets every counter is read; beyond, the lesser of two random targets
 * (power of two choices, as Envoy does) keeps a choice O(1) while still steering away from busy
 * targets: at 1,000 targets a choice costs no more than the full scan of {@value #EXACT_LIMIT}
 * does. Owned by one event loop.
 */
final class LeastOutstandingSelector implements TargetSelector {

  static final int EXACT_LIMIT = 32;

  private final Upstream[] targets;
  private final RandomGenerator random;

  LeastOutstandingSelector(Upstream[] targets, RandomGenerator random) {
    this.targets = targets;
    this.random = random;
  }

  @Override
  public Upstream choose(long now) {
    int n = targets.length;
    if (n == 0) {
      return null;
    }
    if (n == 1) {
      return targets[0];
    }
    if (n > EXACT_LIMIT) {
      // Both indexes from one 64-bit draw, each half scaled by a multiply instead of a bounded
      // nextInt's division and retry loop (the bias, under n / 2^32, is immaterial).
      long r = random.nextLong();
      int a = (int) (((r >>> 32) * n) >>> 32);
      int b = (int) (((r & 0xffff_ffffL) * (n - 1)) >>> 32);
      b += 1 - ((b - a) >>> 31); // b >= a ? b + 1 : b, without a branch to mispredict
      Upstream ua = targets[a];
      Upstream ub = targets[b];
      int oa = ua.outstanding();
      int ob = ub.outstanding();
      return oa < ob ? ua : ob < oa ? ub : random.nextBoolean() ? ua : ub;
    }
    Upstream chosen = null;
    int least = Integer.MAX_VALUE;
    int ties = 0;
    for (Upstream u : targets) {
      int o = u.outstanding();
      if (o < least) {
        least = o;
        chosen = u;
        ties = 1;
      } else if (o == least && random.nextInt(++ties) == 0) {
        // Reservoir sampling: each tied target ends up chosen with probability 1/ties.
        chosen = u;
      }
    }
    return chosen;
  }
}
