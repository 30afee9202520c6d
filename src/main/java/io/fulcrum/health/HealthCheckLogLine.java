package io.fulcrum.health;

import io.fulcrum.bus.Registrations;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroupKind;
import io.fulcrum.observe.LoopLog;

/**
 * One line of ALB's health check log: each check's result, its fields separated by spaces, in
 * ALB's order: {@code type time latency target_addr target_group_id status status_code reason_code
 * elb ip_address}, for example {@code http 2025-10-31T12:44:59.875678Z 0.019 172.31.20.97:80 web
 * PASS 200 - app/shop/50dc6c495c0c9188 10.0.0.5}.
 */
final class HealthCheckLogLine {

  private HealthCheckLogLine() {
  }

  /**
   * Appends the line of a check that started at {@code startedAt} (epoch millis) and ended with
   * {@code result}.
   */
  static void append(LoopLog.Lines lines, long startedAt, Registrations.Group group, Target target, int port,
      CheckResult result) {
    StringBuilder b = lines.start(startedAt + result.latencyMillis());
    b.append(type(group)).append(' ');
    lines.time(startedAt * 1000).append(' ');
    lines.seconds(result.latencyMillis() * 1_000_000).append(' ');
    if (group.kind() == TargetGroupKind.ALB_LAMBDA) {
      // The function's ARN, for a target registered by its name too.
      String id = target.id();
      b.append(id.startsWith("arn:") ? id : "arn:aws:lambda:" + lines.destination().region() + ":"
          + lines.destination().account() + ":function:" + id);
    } else {
      String address = target.address();
      (address.indexOf(':') >= 0 ? b.append('[').append(address).append(']') : b.append(address)).append(':')
          .append(port);
    }
    b.append(' ').append(group.name()).append(' ').append(result.passed() ? "PASS" : "FAIL").append(' ');
    if (result.code() < 0) {
      b.append('-');
    } else {
      b.append(result.code());
    }
    b.append(' ').append(result.passed() || result.logReason() == null ? "-" : result.logReason())
        .append(' ').append(lines.destination().loadBalancer())
        .append(' ').append(lines.destination().nodeAddress());
    lines.end();
  }

  /** How the check went: {@code http}, {@code https}, {@code grpc} (gRPC's checks, over HTTP/2) or {@code lambda}. */
  static String type(Registrations.Group group) {
    if (group.kind() == TargetGroupKind.ALB_LAMBDA) {
      return "lambda";
    }
    if (group.healthCheck().grpc()) {
      return "grpc";
    }
    return group.healthCheck().protocol() == Protocol.HTTPS ? "https" : "http";
  }
}
