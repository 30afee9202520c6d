package io.fulcrum.health;

import io.fulcrum.model.TargetHealth;

/**
 * The outcome of one health check.
 *
 * @param passed    whether the target passed
 * @param failure   for a failed check, the unhealthy health it points to (reason and description)
 * @param code      the HTTP status or gRPC code received, or -1
 * @param latencyMillis how long the check took
 * @param logReason for a failed check, the reason code of ALB's health check log ({@code TimedOut},
 *                  {@code ConnectionReset}, {@code ResponseCodeMismatch}, {@code TargetError},
 *                  {@code InternalError}, {@code GRPCStatusHeaderEmpty}, {@code GRPCUnexpectedStatus})
 */
public record CheckResult(boolean passed, TargetHealth failure, int code, long latencyMillis, String logReason) {

  public static CheckResult pass(int code, long latencyMillis) {
    return new CheckResult(true, null, code, latencyMillis, null);
  }

  /**
   * A failed check, with the health check log's reason that {@code failure} points to: a timeout is
   * {@code TimedOut}, an answer with a 5xx status {@code TargetError}, another status
   * {@code ResponseCodeMismatch}, an internal error {@code InternalError}, and anything else (refused,
   * reset, closed, malformed, TLS) {@code ConnectionReset}.
   */
  public static CheckResult fail(TargetHealth failure, int code, long latencyMillis) {
    String reason;
    if (failure.equals(TargetHealth.TIMEOUT)) {
      reason = "TimedOut";
    } else if (failure.equals(TargetHealth.INTERNAL_ERROR)) {
      reason = "InternalError";
    } else if ("Target.ResponseCodeMismatch".equals(failure.reason())) {
      reason = code >= 500 && code <= 599 ? "TargetError" : "ResponseCodeMismatch";
    } else {
      reason = "ConnectionReset";
    }
    return new CheckResult(false, failure, code, latencyMillis, reason);
  }

  /** A failed check with the health check log's reason given. */
  public static CheckResult fail(TargetHealth failure, int code, long latencyMillis, String logReason) {
    return new CheckResult(false, failure, code, latencyMillis, logReason);
  }
}
