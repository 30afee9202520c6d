package io.fulcrum.config;

import io.fulcrum.model.Arns;
import io.fulcrum.model.Environment;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.IpAddressType;
import io.fulcrum.model.LoadBalancerType;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetDescription;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetType;
import io.fulcrum.model.Targets;
import io.fulcrum.model.WireEnum;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the target groups, {@code target-groups:}: each group's name, target type, protocol, port,
 * protocol version, IP address type, target optimizer port ({@code target-control-port}),
 * {@code health-check}, {@code attributes} and {@code targets}, with their key paths.
 *
 * <p>Every group whose name is valid and not taken has its ARN put in the name-to-ARN map, even
 * when the group has other problems, so that a forward action naming it is not reported as well.
 * Only groups without problems are returned.
 */
final class TargetGroupParser {

  /** Target group attributes whose values are spelt on/off rather than true/false. */
  private static final Set<String> ON_OFF_ATTRIBUTES = Set.of(TargetGroupAttributes.ANOMALY_MITIGATION,
      TargetGroupAttributes.DNS_FAILOVER_COUNT, TargetGroupAttributes.DNS_FAILOVER_PERCENTAGE,
      TargetGroupAttributes.ROUTING_FAILOVER_PERCENTAGE);

  private TargetGroupParser() {
  }

  static List<TargetGroup> parse(ConfigNode root, Environment env, Map<String, String> arns) {
    List<TargetGroup> out = new ArrayList<>();
    Arns arnBuilder = env.arns();
    for (ConfigNode n : root.objects("target-groups")) {
      String name = n.string("name", null);
      boolean nameOk = TargetGroup.checkName(name, n.at("name"));
      if (nameOk && arns.containsKey(name)) {
        n.at("name").add("a target group named '" + name + "' is already defined");
        nameOk = false;
      }
      String arn = nameOk ? arnBuilder.targetGroup(name, arnBuilder.stableId("targetgroup", name)) : null;
      if (nameOk) {
        arns.put(name, arn);
      }
      TargetGroup tg = parseTargetGroup(n, env, arn, name);
      n.finish();
      if (tg != null && nameOk) {
        out.add(tg);
      }
    }
    return out;
  }

  private static TargetGroup parseTargetGroup(ConfigNode n, Environment env, String arn, String name) {
    int before = n.problems().size();
    TargetType type = n.enumValue("target-type", TargetType.class, TargetType.INSTANCE);
    String protocolText = n.string("protocol", null);
    Integer port = n.integer("port", null);
    String versionText = n.string("protocol-version", null);
    String ipTypeText = n.string("ip-address-type", null);
    Integer controlPort = n.integer("target-control-port", null);
    if (controlPort != null) {
      n.at("target-control-port").checkRange(controlPort, 1, 65535);
      if (type == TargetType.LAMBDA) {
        n.at("target-control-port").add("lambda target groups have no target optimizer (expected: instance or ip)");
      }
    }

    Protocol protocol = null;
    ProtocolVersion version = null;
    IpAddressType ipType = IpAddressType.IPV4;
    if (type == TargetType.LAMBDA) {
      checkLambdaGroup(n, protocolText, port, versionText, ipTypeText);
    } else if (type != null) {
      if (protocolText == null) {
        n.at("protocol").add("A protocol must be specified");
      } else {
        protocol = WireEnum.parse(Protocol.class, protocolText, n.at("protocol"));
        if (protocol != null && !protocol.served()) {
          n.at("protocol").add("'" + protocolText + "' target groups are not available yet (expected: "
              + Protocol.SERVED + ")");
          protocol = null;
        }
      }
      if (type == TargetType.ALB && protocol != null && protocol != Protocol.TCP) {
        n.at("protocol").add("target groups of type alb support only the TCP protocol (a network load balancer's TCP"
            + " listener forwards to the application load balancer's listener on the group's port)");
        protocol = null;
      }
      if (protocol != null && protocol.isNetworkFamily() && controlPort != null) {
        n.at("target-control-port").add("the target optimizer is for HTTP and HTTPS target groups");
      }
      if (port == null) {
        n.at("port").add("A port must be specified");
      } else {
        n.at("port").checkRange(port, 1, 65535);
      }
      boolean network = protocol != null && protocol.isNetworkFamily();
      version = network ? null : ProtocolVersion.HTTP1;
      if (versionText != null && network) {
        n.at("protocol-version").add("a protocol version is only for HTTP and HTTPS target groups");
      } else if (versionText != null) {
        version = WireEnum.parse(ProtocolVersion.class, versionText, n.at("protocol-version"));
      }
      if (ipTypeText != null) {
        ipType = WireEnum.parse(IpAddressType.class, ipTypeText, n.at("ip-address-type"));
        if (ipType == IpAddressType.IPV6 && type != TargetType.IP) {
          n.at("ip-address-type").add("ipv6 target groups only support targets of type ip");
        }
      }
    }

    HealthCheck hc = null;
    int beforeHealthCheck = n.problems().size();
    ConfigNode h = n.object("health-check");
    ConfigNode m = h.object("matcher");
    HealthCheck.Input in = new HealthCheck.Input(
        h.bool("enabled", null), h.string("protocol", null), h.string("port", null), h.string("path", null),
        h.integer("interval-seconds", null), h.integer("timeout-seconds", null),
        h.integer("healthy-threshold-count", null), h.integer("unhealthy-threshold-count", null),
        m.string("http-code", null), m.string("grpc-code", null));
    m.finish();
    h.finish();
    // Resolve unless the health-check keys themselves had the wrong type; other problems of the group do not matter.
    if (type != null && (protocol != null || type == TargetType.LAMBDA) && h.problems().size() == beforeHealthCheck) {
      hc = HealthCheck.resolve(in, type, protocol, version, h.problems());
    }

    Map<String, String> given = n.stringMap("attributes", ON_OFF_ATTRIBUTES);
    TargetGroupAttributes attrs = null;
    if (type != null && (protocol != null || type == TargetType.LAMBDA)) {
      attrs = TargetGroupAttributes.resolve(type, protocol, controlPort != null, null, given, n.at("attributes"));
    }

    List<Target> targets = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    List<ConfigNode> targetNodes = n.objects("targets");
    if (targetNodes.size() > TargetGroupAttributes.MAX_TARGETS) {
      n.at("targets").add("TooManyTargets", targetNodes.size() + " targets is above the maximum "
          + TargetGroupAttributes.MAX_TARGETS + " per target group");
    }
    for (ConfigNode t : targetNodes) {
      String id = t.string("id", null);
      if (type == TargetType.ALB && id != null && !id.startsWith("arn:")) {
        // The config names its application load balancers; their ARNs follow from the names.
        id = env.arns().loadBalancer(LoadBalancerType.APPLICATION, id, env.arns().stableId("loadbalancer", id));
      }
      TargetDescription d = new TargetDescription(id, t.integer("port", null), t.string("zone", null));
      t.finish();
      if (type == null || ipType == null || type != TargetType.LAMBDA && (protocol == null || port == null)) {
        continue;
      }
      Target target = Targets.resolve(d, type, port, ipType, env, t.problems());
      if (target != null && keys.add(target.key())) {
        targets.add(target);
      }
    }
    if (type == TargetType.LAMBDA && targets.size() > 1) {
      n.at("targets").add("TooManyTargets", "a lambda target group has one function; " + targets.size()
          + " are registered");
    }
    if (n.problems().size() > before || hc == null || attrs == null) {
      return null;
    }
    return new TargetGroup(arn, name, type, protocol, port, version, ipType, hc, attrs, targets, controlPort);
  }

  /**
   * A lambda target group has no protocol, port, protocol version or VPC (SPEC §1.2, §7.2); the
   * messages are AWS's.
   */
  private static void checkLambdaGroup(ConfigNode n, String protocolText, Integer port, String versionText,
      String ipTypeText) {
    String notForLambda = " cannot be specified for target groups with target type 'lambda'";
    if (protocolText != null) {
      n.at("protocol").add("Protocol" + notForLambda);
    }
    if (port != null) {
      n.at("port").add("Port" + notForLambda);
    }
    if (n.has("vpc-id")) {
      n.at("vpc-id").add("VPC ID" + notForLambda);
    }
    if (versionText != null) {
      n.at("protocol-version").add(Problem.INVALID_CONFIGURATION, "Protocol version" + notForLambda
          + " (HTTP2 and GRPC protocol versions do not support Lambda functions)");
    }
    if ("ipv6".equals(ipTypeText)) {
      n.at("ip-address-type").add(Problem.INVALID_CONFIGURATION,
          "Lambda functions cannot be registered with a target group of IP address type ipv6");
    } else if (ipTypeText != null && !"ipv4".equals(ipTypeText)) {
      WireEnum.parse(IpAddressType.class, ipTypeText, n.at("ip-address-type"));
    }
  }
}
