package io.fulcrum.api;

import io.fulcrum.model.Environment;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.Resources;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetType;
import io.fulcrum.model.WireEnum;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The target group shapes of the API: the {@code TargetGroup} output element, the health-check
 * parameters of CreateTargetGroup and ModifyTargetGroup, and model problems turned into API errors
 * that name the parameter.
 */
final class TargetGroupShapes {

  static final List<String> PROTOCOLS = Arrays.stream(Protocol.values()).map(Protocol::wire).toList();
  static final List<String> TARGET_TYPES = Arrays.stream(TargetType.values()).map(TargetType::wire).toList();

  /** Where the health-check model records problems, and the API parameter each path is. */
  private static final Map<String, String> HEALTH_CHECK_MEMBERS = Map.of(
      "enabled", "HealthCheckEnabled",
      "protocol", "HealthCheckProtocol",
      "port", "HealthCheckPort",
      "path", "HealthCheckPath",
      "interval-seconds", "HealthCheckIntervalSeconds",
      "timeout-seconds", "HealthCheckTimeoutSeconds",
      "healthy-threshold-count", "HealthyThresholdCount",
      "unhealthy-threshold-count", "UnhealthyThresholdCount",
      "matcher.http-code", "Matcher.HttpCode",
      "matcher.grpc-code", "Matcher.GrpcCode");

  private TargetGroupShapes() {
  }

  /** The {@code TargetGroup} element of SPEC §12.2 (as a list {@code member}). */
  static Xml member(TargetGroup g, Map<String, String> loadBalancerOfGroups) {
    boolean lambda = g.targetType() == TargetType.LAMBDA;
    HealthCheck hc = g.healthCheck();
    Xml m = Xml.el("member")
        .add("TargetGroupArn", g.arn())
        .add("TargetGroupName", g.name());
    if (!lambda) {
      m.add("Protocol", g.protocol() == null ? null : g.protocol().wire())
          .add("Port", g.port())
          .add("VpcId", Environment.VPC_ID);
    }
    m.add("HealthCheckProtocol", hc.protocol().wire());
    if (!lambda) {
      m.add("HealthCheckPort", hc.port());
    }
    m.add("HealthCheckEnabled", hc.enabled())
        .add("HealthCheckIntervalSeconds", hc.intervalSeconds())
        .add("HealthCheckTimeoutSeconds", hc.timeoutSeconds())
        .add("HealthyThresholdCount", hc.healthyThreshold())
        .add("UnhealthyThresholdCount", hc.unhealthyThreshold())
        .add("HealthCheckPath", hc.path());
    if (hc.matcher() != null) {
      m.add(Xml.el("Matcher").add(hc.grpc() ? "GrpcCode" : "HttpCode", hc.matcher().text()));
    }
    String lb = loadBalancerOfGroups.get(g.arn());
    m.add(Xml.strings("LoadBalancerArns", lb == null ? List.of() : List.of(lb)))
        .add("TargetType", g.targetType().wire());
    if (g.protocol() != null && g.protocol().isHttpFamily() && g.protocolVersion() != null) {
      m.add("ProtocolVersion", g.protocolVersion().wire());
    }
    return m.add("IpAddressType", g.ipAddressType().wire())
        .add("TargetControlPort", g.targetControlPort());
  }

  /**
   * The health-check parameters given (each null when absent), with AWS's field constraints
   * recorded in {@code v}: ranges, path length, protocol enum, and the port's form.
   */
  static HealthCheck.Input healthCheckInput(QueryParams p, Violations v) {
    String protocol = v.oneOf(p, "HealthCheckProtocol", PROTOCOLS);
    String path = v.length(p, "HealthCheckPath", 1, HealthCheck.MAX_PATH_LENGTH);
    Integer interval = v.range(p, "HealthCheckIntervalSeconds", HealthCheck.MIN_INTERVAL, HealthCheck.MAX_INTERVAL);
    Integer timeout = v.range(p, "HealthCheckTimeoutSeconds", HealthCheck.MIN_TIMEOUT, HealthCheck.MAX_TIMEOUT);
    Integer healthy = v.range(p, "HealthyThresholdCount", HealthCheck.MIN_THRESHOLD, HealthCheck.MAX_THRESHOLD);
    Integer unhealthy = v.range(p, "UnhealthyThresholdCount", HealthCheck.MIN_THRESHOLD, HealthCheck.MAX_THRESHOLD);
    String port = p.string("HealthCheckPort");
    if (port != null && !port.equals(HealthCheck.TRAFFIC_PORT)) {
      Integer n = null;
      try {
        n = Integer.parseInt(port);
      } catch (NumberFormatException e) {
        // reported below
      }
      if (n == null || n < 1 || n > 65535) {
        v.add(p, "HealthCheckPort", port, "be traffic-port or a port number from 1 to 65535");
        port = null;
      }
    }
    return new HealthCheck.Input(p.bool("HealthCheckEnabled"), protocol, port, path, interval, timeout, healthy,
        unhealthy, p.string("Matcher.HttpCode"), p.string("Matcher.GrpcCode"));
  }

  /** {@code given} over {@code base}, field by field; a matcher given replaces the whole matcher. */
  static HealthCheck.Input over(HealthCheck.Input base, HealthCheck.Input given) {
    boolean matcherGiven = given.httpCode() != null || given.grpcCode() != null;
    return new HealthCheck.Input(
        given.enabled() != null ? given.enabled() : base.enabled(),
        given.protocol() != null ? given.protocol() : base.protocol(),
        given.port() != null ? given.port() : base.port(),
        given.path() != null ? given.path() : base.path(),
        given.intervalSeconds() != null ? given.intervalSeconds() : base.intervalSeconds(),
        given.timeoutSeconds() != null ? given.timeoutSeconds() : base.timeoutSeconds(),
        given.healthyThreshold() != null ? given.healthyThreshold() : base.healthyThreshold(),
        given.unhealthyThreshold() != null ? given.unhealthyThreshold() : base.unhealthyThreshold(),
        matcherGiven ? given.httpCode() : base.httpCode(),
        matcherGiven ? given.grpcCode() : base.grpcCode());
  }

  /** Resolves health-check settings with the model; its first problem becomes the API error. */
  static HealthCheck resolveHealthCheck(HealthCheck.Input in, TargetType type, Protocol protocol,
      ProtocolVersion version) {
    Problems problems = new Problems();
    HealthCheck hc = HealthCheck.resolve(in, type, protocol, version, problems);
    if (hc == null) {
      throw fromModel(problems.list(), HEALTH_CHECK_MEMBERS);
    }
    return hc;
  }

  /**
   * The API error for the first problem the model found. A {@code ValidationError} names the
   * parameter ({@code HealthCheckPath: '/a b' contains whitespace}); the other codes carry AWS's
   * own sentences, which name what they are about.
   */
  static ApiError fromModel(List<Problem> problems, Map<String, String> members) {
    Problem p = problems.get(0);
    String member = members.get(p.path());
    String message = p.message();
    if (member != null && Problem.VALIDATION_ERROR.equals(p.code()) && !message.contains(member)) {
      message = member + ": " + message;
    }
    return ApiError.sender(p.code(), message);
  }

  /** The resources with {@code g} in place of the group of the same ARN. */
  static Resources replace(Resources r, TargetGroup g) {
    List<TargetGroup> groups = new ArrayList<>(r.targetGroups());
    groups.replaceAll(x -> x.arn().equals(g.arn()) ? g : x);
    return new Resources(r.loadBalancers(), groups, r.tags());
  }

  /** Parses an enum value already checked against its value set. */
  static <E extends Enum<E> & WireEnum> E wire(Class<E> type, String text) {
    return text == null ? null : WireEnum.parse(type, text).orElseThrow();
  }
}
