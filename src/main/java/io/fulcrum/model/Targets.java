package io.fulcrum.model;

import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/** Registration rules for targets (SPEC §8.1, §8.2): what may be registered, and what it resolves to. */
public final class Targets {

  /** The ranges an IPv4 target may always use (RFC 1918 and RFC 6598). */
  public static final List<Cidr> PRIVATE_RANGES = List.of(
      Cidr.parse("10.0.0.0/8"), Cidr.parse("172.16.0.0/12"), Cidr.parse("192.168.0.0/16"), Cidr.parse("100.64.0.0/10"));

  private static final Pattern INSTANCE_ID = Pattern.compile("i-[0-9a-f]{8}([0-9a-f]{9})?");

  private Targets() {
  }

  /**
   * Resolves a registration against the target group and the environment.
   *
   * @return the target, or {@code null} when a problem was recorded
   */
  public static Target resolve(TargetDescription d, TargetType type, Integer groupPort, IpAddressType ipType,
      Environment env, Problems p) {
    if (d.id() == null || d.id().isEmpty()) {
      p.at("id").add("a target id is required");
      return null;
    }
    int port = groupPort == null ? 0 : groupPort;
    if (type == TargetType.LAMBDA) {
      if (d.port() != null) {
        p.at("port").add("a port cannot be specified for lambda targets");
        return null;
      }
      if (d.zone() != null && !d.zone().equals(Target.ALL_ZONES)) {
        p.at("zone").add("the Availability Zone of a lambda target can only be 'all'");
        return null;
      }
      if (!resolveFunction(d.id(), env, p)) {
        return null;
      }
      return new Target(d.id(), 0, Target.ALL_ZONES, null, d.zone() != null);
    }
    if (d.port() != null) {
      if (!p.at("port").checkRange(d.port(), 1, 65535)) {
        return null;
      }
      port = d.port();
    }
    if (type == TargetType.INSTANCE) {
      return resolveInstance(d, port, env, p);
    }
    if (type == TargetType.IP) {
      return resolveIp(d, port, ipType, env, p);
    }
    if (type == TargetType.ALB) {
      return resolveAlb(d, port, env, p);
    }
    p.at("id").add(Problem.INVALID_TARGET, "targets of type '" + type.wire() + "' are not supported");
    return null;
  }

  /**
   * A lambda target names a function of the registry, by name or by its ARN in this deployment's
   * region and account (SPEC §6.1: same account and Region).
   */
  private static boolean resolveFunction(String id, Environment env, Problems p) {
    String name = FunctionDefinition.nameOf(id);
    if (name == null) {
      p.at("id").add("'" + id + "' is not a function name or ARN (expected e.g. my-function or"
          + " arn:aws:lambda:" + env.region() + ":" + env.account() + ":function:my-function)");
      return false;
    }
    if (!id.equals(name) && !id.startsWith(FunctionDefinition.arn(env.region(), env.account(), name))) {
      p.at("id").add(Problem.INVALID_TARGET, "The Lambda function '" + id + "' must be in the same account and Region"
          + " as the target group (" + env.account() + ", " + env.region() + ")");
      return false;
    }
    if (!env.functions().containsKey(name)) {
      p.at("id").add(Problem.INVALID_TARGET, "The specified target does not exist ('" + name
          + "' is not in the function registry" + (env.functions().isEmpty() ? ", which is empty"
          : "; expected one of: " + String.join(", ", new java.util.TreeSet<>(env.functions().keySet()))) + ")");
      return false;
    }
    return true;
  }

  private static Target resolveInstance(TargetDescription d, int port, Environment env, Problems p) {
    if (IpAddresses.isLiteral(d.id()) || !INSTANCE_ID.matcher(d.id()).matches()) {
      p.at("id").add("Instance ID '" + d.id() + "' is not valid");
      return null;
    }
    if (d.zone() != null) {
      p.at("zone").add("an Availability Zone cannot be specified for instance targets; it comes from the instance");
      return null;
    }
    Instance instance = env.instances().get(d.id());
    if (instance == null) {
      p.at("id").add(Problem.INVALID_TARGET,
          "The specified target does not exist or is not in the same VPC as the target group. ('" + d.id()
              + "' is not in the instance inventory)");
      return null;
    }
    if (!instance.running()) {
      p.at("id").add(Problem.INVALID_TARGET,
          "The following targets are not in a running state and cannot be registered: '" + d.id() + "'");
      return null;
    }
    return new Target(d.id(), port, instance.zone(), instance.address(), false);
  }

  /**
   * An {@code alb} target names an application load balancer of this deployment by its ARN; where
   * it is reached ({@link AlbTargets}) and whether it exists ({@link ResourceRules}) depend on the
   * other resources.
   */
  private static Target resolveAlb(TargetDescription d, int port, Environment env, Problems p) {
    String prefix = env.arns().loadBalancer(LoadBalancerType.APPLICATION, "", "");
    prefix = prefix.substring(0, prefix.length() - 1); // ...:loadbalancer/app/
    if (!d.id().startsWith(prefix) || d.id().substring(prefix.length()).split("/", -1).length != 2) {
      p.at("id").add(Problem.INVALID_TARGET, "'" + d.id() + "' is not the ARN of an application load balancer in "
          + env.region() + " of account " + env.account() + " (expected " + prefix + "<name>/<id>)");
      return null;
    }
    if (d.zone() != null) {
      p.at("zone").add("an Availability Zone cannot be specified for alb targets: the load balancer is in its own zones");
      return null;
    }
    return new Target(d.id(), port, Target.ALL_ZONES, null, false);
  }

  private static Target resolveIp(TargetDescription d, int port, IpAddressType ipType, Environment env, Problems p) {
    byte[] addr = IpAddresses.parse(d.id());
    if (addr == null) {
      p.at("id").add("'" + d.id() + "' is not an IP address (target type ip)");
      return null;
    }
    boolean v6 = addr.length == 16;
    if (v6 != (ipType == IpAddressType.IPV6)) {
      p.at("id").add("the IP address '" + d.id() + "' is not an " + (ipType == IpAddressType.IPV6 ? "IPv6" : "IPv4")
          + " address, as the target group's IP address type " + ipType.wire() + " requires");
      return null;
    }
    boolean inVpc = env.vpcCidrs().stream().anyMatch(c -> c.contains(addr));
    boolean privateRange = !v6 && PRIVATE_RANGES.stream().anyMatch(c -> c.contains(addr));
    if (!inVpc && !privateRange) {
      p.at("id").add(Problem.INVALID_TARGET, "The IP address '" + d.id() + "' is publicly routable and cannot be registered"
          + " (expected: " + (v6 ? "" : "10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or ")
          + "one of the VPC CIDRs " + env.vpcCidrs().stream().map(Cidr::toString).collect(Collectors.joining(", ")) + ")");
      return null;
    }
    String zone = Target.ALL_ZONES;
    if (d.zone() != null) {
      if (!d.zone().equals(Target.ALL_ZONES) && !env.zones().contains(d.zone())) {
        p.at("zone").add("'" + d.zone() + "' is not a zone of this deployment (expected: all or one of "
            + String.join(", ", env.zones()) + ")");
        return null;
      }
      zone = d.zone();
    }
    return new Target(IpAddresses.canonical(addr), port, zone, IpAddresses.canonical(addr), d.zone() != null);
  }
}
