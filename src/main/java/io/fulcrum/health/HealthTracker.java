package io.fulcrum.health;

import io.fulcrum.bus.HealthReport.Check;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The health state machine of one target in one target group (SPEC §1.6, §2.4):
 * <ul>
 *   <li>{@code initial}: {@code Elb.RegistrationInProgress} until the first check goes out, then
 *       {@code Elb.InitialHealthChecking}; one passing check makes it healthy, the unhealthy
 *       threshold of consecutive failures makes it unhealthy;</li>
 *   <li>{@code healthy} becomes unhealthy after {@code unhealthyThreshold} consecutive failures
 *       (at one failure fewer it still serves);</li>
 *   <li>{@code unhealthy} becomes healthy after {@code healthyThreshold} consecutive passes; its
 *       reason follows the latest failure;</li>
 *   <li>any pass resets the failure streak and any failure the pass streak.</li>
 * </ul>
 * Every check and every transition is kept in a bounded history. Used on one context only.
 */
public final class HealthTracker {

  /** How many check results the history keeps per target. */
  public static final int HISTORY = 64;

  private TargetHealth health = TargetHealth.REGISTRATION_IN_PROGRESS;
  private int passes;
  private int failures;
  private final ArrayDeque<Check> history = new ArrayDeque<>();

  public TargetHealth health() {
    return health;
  }

  /** A check is about to be sent; the first one moves registration to initial checking. */
  public boolean checkStarted(long now) {
    if (health == TargetHealth.REGISTRATION_IN_PROGRESS) {
      return set(TargetHealth.INITIAL_HEALTH_CHECKING, now);
    }
    return false;
  }

  /**
   * Applies a check result with the group's current thresholds.
   *
   * @return whether the health changed (state, reason or description)
   */
  public boolean record(CheckResult r, int healthyThreshold, int unhealthyThreshold, long now) {
    return record(r, healthyThreshold, unhealthyThreshold, false, now);
  }

  /**
   * Applies a check result; with {@code drainFirst} (a network load balancer's group that keeps an
   * unhealthy target's connections for a draining interval) a healthy target that fails becomes
   * {@code unhealthy.draining} rather than {@code unhealthy}, until {@link #drainingOver} or its
   * recovery.
   *
   * @return whether the health changed (state, reason or description)
   */
  public boolean record(CheckResult r, int healthyThreshold, int unhealthyThreshold, boolean drainFirst, long now) {
    TargetHealth next = health;
    TargetState state = health.state();
    if (r.passed()) {
      failures = 0;
      passes++;
      if (state == TargetState.INITIAL
          || (state == TargetState.UNHEALTHY || state == TargetState.UNHEALTHY_DRAINING) && passes >= healthyThreshold) {
        next = TargetHealth.HEALTHY;
      }
    } else {
      passes = 0;
      failures++;
      if (state == TargetState.UNHEALTHY) {
        next = r.failure();
      } else if (state == TargetState.UNHEALTHY_DRAINING) {
        next = r.failure().draining();
      } else if (failures >= unhealthyThreshold) {
        next = drainFirst && state == TargetState.HEALTHY ? r.failure().draining() : r.failure();
      }
    }
    addHistory(new Check(now, r.passed(), r.latencyMillis(), next, false));
    return set(next, now);
  }

  /** The draining interval of an {@code unhealthy.draining} target is over: it is {@code unhealthy}. */
  public boolean drainingOver(long now) {
    return set(health.drained(), now);
  }

  private boolean set(TargetHealth next, long now) {
    if (next.equals(health)) {
      return false;
    }
    health = next;
    addHistory(new Check(now, next.healthy(), -1, next, true));
    return true;
  }

  private void addHistory(Check e) {
    if (history.size() == HISTORY) {
      history.removeFirst();
    }
    history.addLast(e);
  }

  /** The last {@value #HISTORY} checks and transitions, oldest first. */
  public List<Check> history() {
    return new ArrayList<>(history);
  }

  public int consecutivePasses() {
    return passes;
  }

  public int consecutiveFailures() {
    return failures;
  }
}
