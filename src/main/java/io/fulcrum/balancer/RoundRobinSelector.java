package io.fulcrum.balancer;

/** Round robin over the eligible targets, in registration order. Owned by one event loop. */
final class RoundRobinSelector implements TargetSelector {

  private final Upstream[] targets;
  private int next;

  RoundRobinSelector(Upstream[] targets) {
    this.targets = targets;
  }

  @Override
  public Upstream choose() {
    if (targets.length == 0) {
      return null;
    }
    Upstream u = targets[next];
    next = next + 1 == targets.length ? 0 : next + 1;
    return u;
  }
}
