package io.fulcrum.balancer;

import java.util.random.RandomGenerator;

/**
 * Chooses a target for a request. Built once per snapshot from a {@link Scope} by the group's
 * algorithm and owned by one event loop: {@link #choose(long)} is called only on that loop, so
 * selectors keep plain (non-atomic) state.
 */
public interface TargetSelector {

  /**
   * The chosen target, or {@code null} when there is none to choose.
   *
   * @param now the time (epoch millis), for slow start
   */
  Upstream choose(long now);

  /** The selector for a scope, per the group's algorithm. */
  static TargetSelector of(Algorithm algorithm, Scope scope, RandomGenerator random) {
    return switch (algorithm) {
      case ROUND_ROBIN -> new RoundRobinSelector(scope);
      case LEAST_OUTSTANDING_REQUESTS -> new LeastOutstandingSelector(scope.eligible(), random);
      case WEIGHTED_RANDOM -> new WeightedRandomSelector(scope.eligible(), scope.weights(), random);
    };
  }
}
