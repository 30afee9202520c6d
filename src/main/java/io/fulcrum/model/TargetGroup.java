package io.fulcrum.model;

import java.util.List;

/**
 * A target group with its resolved health check, attributes and registered targets. Immutable.
 *
 * @param protocol        {@code null} for lambda target groups
 * @param port            {@code null} for lambda target groups
 * @param protocolVersion {@code null} for non-HTTP target groups
 * @param targetControlPort the port of the target optimizer's agent on each target (ELBv2
 *                          {@code TargetControlPort}), or {@code null}; with it the target
 *                          optimizer is on (SPEC §9)
 */
public record TargetGroup(
    String arn,
    String name,
    TargetType targetType,
    Protocol protocol,
    Integer port,
    ProtocolVersion protocolVersion,
    IpAddressType ipAddressType,
    HealthCheck healthCheck,
    TargetGroupAttributes attributes,
    List<Target> targets,
    Integer targetControlPort) {

  public static final int MAX_NAME_LENGTH = 32;

  public TargetGroup {
    targets = List.copyOf(targets);
  }

  /** A target group without a target control port. */
  public TargetGroup(String arn, String name, TargetType targetType, Protocol protocol, Integer port,
      ProtocolVersion protocolVersion, IpAddressType ipAddressType, HealthCheck healthCheck,
      TargetGroupAttributes attributes, List<Target> targets) {
    this(arn, name, targetType, protocol, port, protocolVersion, ipAddressType, healthCheck, attributes, targets, null);
  }

  public TargetGroupKind kind() {
    return TargetGroupKind.of(targetType, protocol);
  }

  public TargetGroup withTargets(List<Target> newTargets) {
    return new TargetGroup(arn, name, targetType, protocol, port, protocolVersion, ipAddressType, healthCheck,
        attributes, newTargets, targetControlPort);
  }

  public TargetGroup withHealthCheck(HealthCheck newHealthCheck) {
    return new TargetGroup(arn, name, targetType, protocol, port, protocolVersion, ipAddressType, newHealthCheck,
        attributes, targets, targetControlPort);
  }

  public TargetGroup withAttributes(TargetGroupAttributes newAttributes) {
    return new TargetGroup(arn, name, targetType, protocol, port, protocolVersion, ipAddressType, healthCheck,
        newAttributes, targets, targetControlPort);
  }

  /** Checks a name per SPEC §8.3; records a problem and returns false when invalid. */
  public static boolean checkName(String name, Problems p) {
    if (name == null || name.isEmpty()) {
      p.add("a name is required (1-32 letters, digits and hyphens)");
      return false;
    }
    if (name.length() > MAX_NAME_LENGTH) {
      p.add("Target group name '" + name + "' cannot be longer than '32' characters");
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
        p.add("Target group name '" + name + "' can only contain characters that are alphanumeric characters or hyphens(-)");
        return false;
      }
    }
    if (name.startsWith("-") || name.endsWith("-")) {
      p.add("Target group name '" + name + "' cannot begin or end with '-'");
      return false;
    }
    return true;
  }
}
