package io.fulcrum.balancer;

/**
 * Round robin over the eligible targets, in registration order (SPEC §4.2), with slow start
 * (§4.6): a target in slow start with weight {@code w} collects {@code w} credit each time its
 * turn comes and is chosen when its credit reaches 1, so over a cycle it gets {@code w} of its
 * share, and the sequence is exact for a given time. Weights count relative to the heaviest
 * eligible target ({@link Scope#maxSlowStartWeight}), which is at full weight unless every target
 * is in slow start. Outside slow start a choice costs O(1); in it, one step per target passed over.
 * The selector of a group's next plan goes on from where this one stood ({@link #turn}).
 * Owned by one event loop.
 */
final class RoundRobinSelector implements TargetSelector {

  private final Scope scope;
  private final Upstream[] targets;
  private final double[] credit;
  private int next;

  /**
   * @param resume where the group's selector before this one stood, or null: this one goes on with
   *               the same target when it is still eligible, else at the same place, so that a new
   *               plan (a health change, a registration) does not send the next request to the
   *               first target again
   */
  RoundRobinSelector(Scope scope, TargetSelector.Turn resume) {
    this.scope = scope;
    this.targets = scope.eligible();
    this.credit = new double[targets.length];
    if (resume != null && targets.length > 0) {
      next = resume.index() % targets.length;
      for (int i = 0; i < targets.length; i++) {
        if (targets[i].key().equals(resume.key())) {
          next = i;
          break;
        }
      }
    }
  }

  @Override
  public TargetSelector.Turn turn() {
    return targets.length == 0 ? null : new TargetSelector.Turn(targets[next].key(), next);
  }

  @Override
  public Upstream choose(long now) {
    int n = targets.length;
    if (n == 0) {
      return null;
    }
    if (!scope.slowStartActive(now)) {
      Upstream u = targets[next];
      next = next + 1 == n ? 0 : next + 1;
      return u;
    }
    int best = -1;
    double top = scope.maxSlowStartWeight(now);
    for (int step = 0; step < n; step++) {
      int i = next;
      next = next + 1 == n ? 0 : next + 1;
      double w = scope.slowStartWeight(i, now) / top;
      if (w >= 1) {
        return targets[i];
      }
      credit[i] += w;
      if (credit[i] >= 1) {
        credit[i] -= 1;
        return targets[i];
      }
      if (best < 0 || credit[i] > credit[best]) {
        best = i;
      }
    }
    // Every target is in slow start and none has a full credit yet: the richest one goes.
    credit[best] -= 1;
    return targets[best];
  }
}
