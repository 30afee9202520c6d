package io.fulcrum.observe;

/**
 * A histogram of durations, as Prometheus reads one: counts per bucket and the sum of every
 * duration. Plain fields, written by the owning event loop only, added up by {@link Meters#collect}.
 * Used for {@code TargetResponseTime} and {@code ELBAuthLatency}.
 */
public final class LatencyHistogram {

  /**
   * The buckets' upper bounds, in seconds: from a millisecond (a target or an IdP next door) to ten
   * seconds.
   */
  static final double[] BOUNDS = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
  private static final long[] BOUNDS_NANOS = new long[BOUNDS.length];

  static {
    for (int i = 0; i < BOUNDS.length; i++) {
      BOUNDS_NANOS[i] = Math.round(BOUNDS[i] * 1e9);
    }
  }

  /** Durations per {@link #BOUNDS} bucket (not cumulative), the last past every bound. */
  final long[] counts = new long[BOUNDS.length + 1];
  long sumNanos;

  /** One duration of {@code nanos} (a negative one, from a clock that stepped back, counts as 0). */
  public void record(long nanos) {
    int i = 0;
    while (i < BOUNDS_NANOS.length && nanos > BOUNDS_NANOS[i]) {
      i++;
    }
    counts[i]++;
    sumNanos += Math.max(0, nanos);
  }

  /** How many durations were recorded. */
  public long count() {
    long n = 0;
    for (long c : counts) {
      n += c;
    }
    return n;
  }

  void addTo(LatencyHistogram total) {
    for (int i = 0; i < counts.length; i++) {
      total.counts[i] += counts[i];
    }
    total.sumNanos += sumNanos;
  }
}
