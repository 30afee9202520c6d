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

  /**
   * Where the selector stands in its turns, for the selector of the group's next plan to go on
   * from there; null for an algorithm without turns.
   */
  default Turn turn() {
    return null;
  }

  /**
   * The target round robin takes next, and its place among the eligible targets (the place serves
   * when the target is no longer eligible).
   */
  record Turn(String key, int index) {
  }

  /** The selector for a scope, per the group's algorithm. */
  static TargetSelector of(Algorithm algorithm, Scope scope, RandomGenerator random) {
    return of(algorithm, scope, random, null);
  }

  /**
   * The selector for a scope, per the group's algorithm, going on from {@code resume} (the turn
   * of the selector of the group's plan before; null: from the first target).
   */
  static TargetSelector of(Algorithm algorithm, Scope scope, RandomGenerator random, Turn resume) {
    return switch (algorithm) {
      case ROUND_ROBIN -> new RoundRobinSelector(scope, resume);
      case LEAST_OUTSTANDING_REQUESTS -> new LeastOutstandingSelector(scope.eligible(), random);
      case WEIGHTED_RANDOM -> new WeightedRandomSelector(scope.eligible(), scope.weights(), random);
    };
  }
}
