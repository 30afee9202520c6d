package io.fulcrum.bus;

import io.fulcrum.model.TargetHealth;
import java.util.List;
import java.util.Map;

/**
 * The health checker's account of one target group: each target's health, the port probed, and
 * its recent checks and transitions (for DescribeTargetHealth, metrics and the journal).
 */
public record HealthReport(String groupArn, Map<String, TargetReport> targets) {

  public HealthReport {
    targets = Map.copyOf(targets);
  }

  /**
   * @param health          the current health
   * @param healthCheckPort the port probed, or 0 when the target is not checked
   * @param history         recent checks and transitions, oldest first
   */
  public record TargetReport(TargetHealth health, int healthCheckPort, List<Check> history) {
    public TargetReport {
      history = List.copyOf(history);
    }
  }

  /**
   * One recorded check or transition.
   *
   * @param time          epoch millis
   * @param passed        the check's result, or for a transition whether it was to healthy
   * @param latencyMillis the check's duration; -1 for a transition
   * @param health        the health after it
   * @param transition    whether the state changed here
   */
  public record Check(long time, boolean passed, long latencyMillis, TargetHealth health, boolean transition) {
  }
}
