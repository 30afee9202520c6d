package io.fulcrum.balancer;

import java.util.random.RandomGenerator;

/**
 * Weighted random (SPEC §4.4): every eligible target with the same weight, unless anomaly
 * mitigation has lowered some. Then Vose's alias method, with its tables built once per snapshot:
 * a choice is one uniform slot and one coin weighted by that slot's share, so it costs the same
 * at 10 targets as at 1,000 (a binary search over cumulative weights costs a mispredicted branch
 * per level). Owned by one event loop.
 */
final class WeightedRandomSelector implements TargetSelector {

  private final Upstream[] targets;
  /** Per slot: the probability of keeping the slot's own target; otherwise {@link #alias} is taken. */
  private final double[] keep;
  private final int[] alias;
  private final RandomGenerator random;

  WeightedRandomSelector(Upstream[] targets, double[] weights, RandomGenerator random) {
    this.targets = targets;
    this.random = random;
    if (weights == null || targets.length == 0) {
      this.keep = null;
      this.alias = null;
    } else {
      int n = weights.length;
      this.keep = new double[n];
      this.alias = new int[n];
      buildAlias(weights, keep, alias);
    }
  }

  /** Vose's alias tables for {@code weights} (each above 0, as mitigation floors them at 1 %). */
  static void buildAlias(double[] weights, double[] keep, int[] alias) {
    int n = weights.length;
    double sum = 0;
    for (double w : weights) {
      sum += w;
    }
    double[] scaled = new double[n];
    int[] small = new int[n];
    int[] large = new int[n];
    int ns = 0;
    int nl = 0;
    for (int i = 0; i < n; i++) {
      scaled[i] = weights[i] * n / sum;
      if (scaled[i] < 1) {
        small[ns++] = i;
      } else {
        large[nl++] = i;
      }
    }
    while (ns > 0 && nl > 0) {
      int s = small[--ns];
      int l = large[--nl];
      keep[s] = scaled[s];
      alias[s] = l;
      scaled[l] = scaled[l] + scaled[s] - 1;
      if (scaled[l] < 1) {
        small[ns++] = l;
      } else {
        large[nl++] = l;
      }
    }
    // What is left is 1 up to rounding.
    while (nl > 0) {
      int l = large[--nl];
      keep[l] = 1;
      alias[l] = l;
    }
    while (ns > 0) {
      int s = small[--ns];
      keep[s] = 1;
      alias[s] = s;
    }
  }

  @Override
  public Upstream choose(long now) {
    int n = targets.length;
    if (n == 0) {
      return null;
    }
    int i = random.nextInt(n);
    if (keep == null) {
      return targets[i];
    }
    return random.nextDouble() < keep[i] ? targets[i] : targets[alias[i]];
  }
}
