package io.fulcrum.balancer;

/**
 * Chooses a target for a request. Built once per snapshot from a {@link TargetGroupPlan} and
 * owned by one event loop: {@link #choose()} is called only on that loop, so selectors keep plain
 * (non-atomic) state.
 */
public interface TargetSelector {

  /** The chosen target, or {@code null} when there is none to choose. */
  Upstream choose();

  /** The selector for a plan, per its algorithm. */
  static TargetSelector of(TargetGroupPlan plan) {
    return new RoundRobinSelector(plan.eligible());
  }
}
