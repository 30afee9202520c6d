package io.fulcrum.balancer;

import java.util.random.RandomGenerator;

/**
 * Weighted random (SPEC §4.4): every eligible target with the same weight, unless anomaly
 * mitigation has lowered some; then a binary search over cumulative weights built once per
 * snapshot. Owned by one event loop.
 */
final class WeightedRandomSelector implements TargetSelector {

  private final Upstream[] targets;
  private final double[] cumulative;
  private final RandomGenerator random;

  WeightedRandomSelector(Upstream[] targets, double[] weights, RandomGenerator random) {
    this.targets = targets;
    this.random = random;
    if (weights == null) {
      this.cumulative = null;
    } else {
      this.cumulative = new double[weights.length];
      double sum = 0;
      for (int i = 0; i < weights.length; i++) {
        sum += weights[i];
        cumulative[i] = sum;
      }
    }
  }

  @Override
  public Upstream choose(long now) {
    int n = targets.length;
    if (n == 0) {
      return null;
    }
    if (cumulative == null) {
      return targets[random.nextInt(n)];
    }
    double r = random.nextDouble() * cumulative[n - 1];
    int lo = 0;
    int hi = n - 1;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (cumulative[mid] > r) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return targets[lo];
  }
}
