package io.fulcrum.balancer;

/** {@code load_balancing.algorithm.type}. */
public enum Algorithm {
  ROUND_ROBIN("round_robin"),
  LEAST_OUTSTANDING_REQUESTS("least_outstanding_requests"),
  WEIGHTED_RANDOM("weighted_random");

  private final String wire;

  Algorithm(String wire) {
    this.wire = wire;
  }

  public String wire() {
    return wire;
  }

  public static Algorithm of(String wire) {
    for (Algorithm a : values()) {
      if (a.wire.equals(wire)) {
        return a;
      }
    }
    throw new IllegalArgumentException("unknown algorithm " + wire);
  }
}
