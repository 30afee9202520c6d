package io.fulcrum.health;

import io.fulcrum.model.TargetHealth;

/**
 * The outcome of one health check.
 *
 * @param passed    whether the target passed
 * @param failure   for a failed check, the unhealthy health it points to (reason and description)
 * @param code      the HTTP status or gRPC code received, or -1
 * @param latencyMillis how long the check took
 */
public record CheckResult(boolean passed, TargetHealth failure, int code, long latencyMillis) {

  public static CheckResult pass(int code, long latencyMillis) {
    return new CheckResult(true, null, code, latencyMillis);
  }

  public static CheckResult fail(TargetHealth failure, int code, long latencyMillis) {
    return new CheckResult(false, failure, code, latencyMillis);
  }
}
