package io.fulcrum.balancer;

/**
 * A target-group health threshold (SPEC §10): a minimum count and/or percentage of healthy
 * targets, each possibly off. The action fires when either is breached; exactly at the threshold
 * is not breached. Percentages are of the registered targets in scope.
 *
 * @param count      minimum healthy targets; 0 when off
 * @param percentage minimum healthy percentage (1-100); 0 when off
 */
public record Thresholds(int count, int percentage) {

  public boolean breached(int healthy, int registered) {
    if (count > 0 && healthy < count) {
      return true;
    }
    return percentage > 0 && (long) healthy * 100 < (long) percentage * registered;
  }
}
