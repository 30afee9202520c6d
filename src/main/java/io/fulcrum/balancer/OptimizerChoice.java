package io.fulcrum.balancer;

import java.util.random.RandomGenerator;

/**
 * Target choice under the target optimizer (SPEC §9, and Fulcrum's decision that the optimizer
 * only filters which targets may take a request): a target takes a request only with a credit its
 * agent granted, taken atomically as it is chosen. The group's own choice (its algorithm, or a
 * stickiness cookie) goes first; when that target has no credit, the others are tried: for least
 * outstanding requests the least busy of those with a credit, otherwise one of them at random, so
 * that no target is favoured. Lock-free: event loops race for the last
 * credit with compare-and-set, and a loser goes on to the next target.
 */
public final class OptimizerChoice {

  private OptimizerChoice() {
  }

  /**
   * A target of {@code scope} whose credit was taken for the request, {@code preferred} when it has
   * one; null when no eligible target has a credit.
   */
  public static Upstream take(Upstream preferred, Scope scope, Algorithm algorithm, RandomGenerator random) {
    if (preferred != null && preferred.takeCredit()) {
      return preferred;
    }
    Upstream[] eligible = scope.eligible();
    int n = eligible.length;
    if (n == 0) {
      return null;
    }
    if (algorithm == Algorithm.LEAST_OUTSTANDING_REQUESTS) {
      // Each failed take means another loop took that credit first: at most n rounds.
      for (int round = 0; round < n; round++) {
        Upstream least = null;
        int fewest = Integer.MAX_VALUE;
        int ties = 0;
        for (Upstream u : eligible) {
          if (u.credits() <= 0) {
            continue;
          }
          int o = u.outstanding();
          if (o < fewest) {
            fewest = o;
            least = u;
            ties = 1;
          } else if (o == fewest && random.nextInt(++ties) == 0) {
            least = u; // each tied target ends up chosen with probability 1/ties
          }
        }
        if (least == null) {
          return null;
        }
        if (least.takeCredit()) {
          return least;
        }
      }
      return null;
    }
    // At random among those with a credit (a random start followed by a scan would favour the
    // target after a run of targets without one).
    int withCredit = 0;
    for (Upstream u : eligible) {
      if (u.credits() > 0) {
        withCredit++;
      }
    }
    if (withCredit == 0) {
      return null;
    }
    int k = withCredit == 1 ? 0 : random.nextInt(withCredit);
    for (Upstream u : eligible) {
      if (u.credits() > 0 && k-- == 0) {
        if (u.takeCredit()) {
          return u;
        }
        break;
      }
    }
    // Another loop took that credit first: any that still has one.
    for (Upstream u : eligible) {
      if (u.takeCredit()) {
        return u;
      }
    }
    return null;
  }
}
