package io.fulcrum.api;

import static io.fulcrum.api.TargetGroupShapes.wire;

import io.fulcrum.model.Environment;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.IpAddressType;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.Resources;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetType;
import io.vertx.core.Future;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * CreateTargetGroup, DescribeTargetGroups, ModifyTargetGroup and DeleteTargetGroup.
 *
 * <p>Fulcrum runs the target groups of application load balancers (type {@code instance} or
 * {@code ip} with protocol HTTP or HTTPS, and type {@code lambda}) and of network load balancers
 * (type {@code instance} or {@code ip} with protocol TCP, TLS, UDP or TCP_UDP, and type
 * {@code alb} with TCP). Its one "VPC" is {@link Environment#VPC_ID}; any other VPC id is not
 * found.
 */
final class TargetGroupLifecycle {

  static final List<String> PROTOCOL_VERSIONS = Arrays.stream(ProtocolVersion.values()).map(ProtocolVersion::wire)
      .toList();
  static final List<String> IP_ADDRESS_TYPES = Arrays.stream(IpAddressType.values()).map(IpAddressType::wire).toList();
  private static final String LAMBDA_FORBIDS = " cannot be specified for target groups with target type 'lambda'";
  private static final SecureRandom RANDOM = new SecureRandom();

  private TargetGroupLifecycle() {
  }

  static void register(ElbApi api) {
    api.register("CreateTargetGroup", TargetGroupLifecycle::create)
        .register("DescribeTargetGroups", TargetGroupLifecycle::describe)
        .register("ModifyTargetGroup", TargetGroupLifecycle::modify)
        .register("DeleteTargetGroup", TargetGroupLifecycle::delete);
  }

  /** A 16-hex-digit id for a resource the API creates. */
  static String randomId() {
    return HexFormat.of().toHexDigits(RANDOM.nextLong());
  }

  static Future<List<Xml>> create(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String name = v.required(p, "Name");
    String typeText = v.oneOf(p, "TargetType", TargetGroupShapes.TARGET_TYPES);
    String protocolText = v.oneOf(p, "Protocol", TargetGroupShapes.PROTOCOLS);
    String versionText = v.oneOf(p, "ProtocolVersion", PROTOCOL_VERSIONS);
    String ipText = v.oneOf(p, "IpAddressType", IP_ADDRESS_TYPES);
    Integer port = v.range(p, "Port", 1, 65535);
    Integer controlPort = v.range(p, "TargetControlPort", 1, 65535);
    HealthCheck.Input hcInput = TargetGroupShapes.healthCheckInput(p, v);
    Map<String, String> tags = TagOperations.readTags(p, "Tags", v);
    v.throwIfAny();

    Problems nameProblems = new Problems();
    if (!TargetGroup.checkName(name, nameProblems)) {
      throw TargetGroupShapes.fromModel(nameProblems.list(), Map.of());
    }
    TagOperations.checkCount(tags, ResourceLookup.Kind.TARGET_GROUP);

    TargetType type = typeText == null ? TargetType.INSTANCE : wire(TargetType.class, typeText);
    String vpc = p.string("VpcId");
    Protocol protocol = null;
    ProtocolVersion version = null;
    IpAddressType ipType = ipText == null ? IpAddressType.IPV4 : wire(IpAddressType.class, ipText);
    if (type == TargetType.LAMBDA) {
      // moto's checks, in its order, with AWS's wording
      if (protocolText != null) {
        throw ApiError.validation("Protocol" + LAMBDA_FORBIDS);
      }
      if (p.has("Port")) {
        throw ApiError.validation("Port" + LAMBDA_FORBIDS);
      }
      if (vpc != null) {
        throw ApiError.validation("VPC ID" + LAMBDA_FORBIDS);
      }
      if (versionText != null) {
        throw ApiError.validation("ProtocolVersion" + LAMBDA_FORBIDS);
      }
      if (ipType != IpAddressType.IPV4) {
        throw ApiError.validation("IP address type '" + ipText + "'" + LAMBDA_FORBIDS);
      }
      if (controlPort != null) {
        throw ApiError.validation("Target control port" + LAMBDA_FORBIDS);
      }
    } else {
      if (protocolText == null) {
        throw ApiError.validation("A protocol must be specified");
      }
      if (port == null) {
        throw ApiError.validation("A port must be specified");
      }
      if (vpc == null) {
        throw ApiError.validation("A VPC ID must be specified");
      }
      if (!vpc.equals(Environment.VPC_ID)) {
        throw ApiError.validation("The VPC ID '" + vpc + "' is not found (a Fulcrum deployment has one VPC: "
            + Environment.VPC_ID + ")");
      }
      protocol = wire(Protocol.class, protocolText);
      if (type == TargetType.ALB && protocol != Protocol.TCP) {
        throw ApiError.validation("Target groups with target type 'alb' support only the TCP protocol (a network load"
            + " balancer's TCP listener forwards to the application load balancer's listener on the group's port)");
      }
      if (!protocol.served()) {
        throw ApiError.validation("Protocol '" + protocolText + "' target groups are not available yet (expected: "
            + Protocol.SERVED + ")");
      }
      if (protocol.isNetworkFamily()) {
        if (versionText != null) {
          throw ApiError.validation("A protocol version can only be specified for HTTP and HTTPS target groups");
        }
        if (controlPort != null) {
          throw ApiError.validation("A target control port can only be specified for HTTP and HTTPS target groups");
        }
      } else {
        version = versionText == null ? ProtocolVersion.HTTP1 : wire(ProtocolVersion.class, versionText);
      }
      if (ipType == IpAddressType.IPV6 && type != TargetType.IP) {
        throw ApiError.validation("Target groups with IP address type 'ipv6' only support targets of type 'ip'");
      }
    }
    HealthCheck hc = TargetGroupShapes.resolveHealthCheck(hcInput, type, protocol, version);
    TargetGroupAttributes attributes = TargetGroupAttributes.defaults(type, protocol, controlPort != null);
    String arn = ctx.environment().arns().targetGroup(name, randomId());
    TargetGroup candidate = new TargetGroup(arn, name, type, protocol, port, version, ipType, hc, attributes, List.of(),
        controlPort);

    return ctx.mutate(r -> {
      Optional<TargetGroup> existing = r.targetGroupByName(name);
      if (existing.isPresent()) {
        // Idempotent (SPEC §8.3): the same settings give back the group that exists.
        if (sameSettings(existing.get(), candidate)) {
          return r;
        }
        throw ApiError.sender("DuplicateTargetGroupName", "A target group with the specified name already exists.");
      }
      List<TargetGroup> groups = new ArrayList<>(r.targetGroups());
      groups.add(candidate);
      Map<String, Map<String, String>> allTags = new LinkedHashMap<>(r.tags());
      if (!tags.isEmpty()) {
        allTags.put(arn, tags);
      }
      return new Resources(r.loadBalancers(), groups, allTags);
    }).map(r -> {
      TargetGroup g = r.targetGroupByName(name).orElseThrow();
      return List.of(Xml.list("TargetGroups", List.of(g),
          x -> TargetGroupShapes.member(x, ResourceLookup.loadBalancerOfGroups(r))));
    });
  }

  /** Whether a CreateTargetGroup with {@code b}'s settings would make {@code a} (ARN and targets aside). */
  static boolean sameSettings(TargetGroup a, TargetGroup b) {
    return a.targetType() == b.targetType() && a.protocol() == b.protocol() && Objects.equals(a.port(), b.port())
        && a.protocolVersion() == b.protocolVersion() && a.ipAddressType() == b.ipAddressType()
        && a.healthCheck().equals(b.healthCheck()) && Objects.equals(a.targetControlPort(), b.targetControlPort());
  }

  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    Integer pageSize = v.range(p, "PageSize", 1, MarkerPaging.MAX_PAGE_SIZE);
    v.throwIfAny();
    String lbArn = p.string("LoadBalancerArn");
    List<String> arns = p.strings("TargetGroupArns");
    List<String> names = p.strings("Names");
    boolean byLoadBalancer = lbArn != null && !lbArn.isEmpty();
    if ((byLoadBalancer ? 1 : 0) + (arns.isEmpty() ? 0 : 1) + (names.isEmpty() ? 0 : 1) > 1) {
      throw ApiError.validation(
          "Target group names, target group ARNs, and a load balancer ARN cannot be specified at the same time");
    }
    Resources r = ctx.resources();
    Map<String, String> lbOf = ResourceLookup.loadBalancerOfGroups(r);
    Map<String, TargetGroup> found = new LinkedHashMap<>();
    if (byLoadBalancer) {
      r.loadBalancer(lbArn).orElseThrow(ResourceLookup::loadBalancerNotFound);
      r.targetGroups().stream().filter(g -> lbArn.equals(lbOf.get(g.arn()))).forEach(g -> found.put(g.arn(), g));
    } else if (!arns.isEmpty()) {
      arns.forEach(a -> found.put(a, ResourceLookup.targetGroup(r, a)));
    } else if (!names.isEmpty()) {
      for (String n : names) {
        TargetGroup g = r.targetGroupByName(n).orElseThrow(ResourceLookup::targetGroupNotFound);
        found.put(g.arn(), g);
      }
    } else {
      r.targetGroups().forEach(g -> found.put(g.arn(), g));
    }
    List<TargetGroup> sorted = found.values().stream().sorted(Comparator.comparing(TargetGroup::name)).toList();
    MarkerPaging.Page<TargetGroup> page = MarkerPaging.page(sorted, TargetGroup::name, p.string("Marker"), pageSize);
    List<Xml> out = new ArrayList<>();
    out.add(Xml.list("TargetGroups", page.items(), g -> TargetGroupShapes.member(g, lbOf)));
    if (page.nextMarker() != null) {
      out.add(Xml.text("NextMarker", page.nextMarker()));
    }
    return Future.succeededFuture(out);
  }

  static Future<List<Xml>> modify(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String arn = v.required(p, "TargetGroupArn");
    HealthCheck.Input given = TargetGroupShapes.healthCheckInput(p, v);
    v.throwIfAny();
    return ctx.mutate(r -> {
      TargetGroup g = ResourceLookup.targetGroup(r, arn);
      HealthCheck.Input base = g.healthCheck().toInput();
      if (g.targetType() == TargetType.LAMBDA) {
        // A lambda group has no health check port to carry over: the model refuses one.
        base = new HealthCheck.Input(base.enabled(), base.protocol(), null, base.path(), base.intervalSeconds(),
            base.timeoutSeconds(), base.healthyThreshold(), base.unhealthyThreshold(), base.httpCode(), base.grpcCode());
      } else if (g.targetType() == TargetType.ALB) {
        // What an alb group cannot change follows its check protocol: not carried over, so a new protocol gets its own.
        base = new HealthCheck.Input(base.enabled(), base.protocol(), base.port(), base.path(), base.intervalSeconds(),
            null, base.healthyThreshold(), null, null, null);
      } else if ("TCP".equalsIgnoreCase(given.protocol())) {
        // A TCP check has no path nor matcher: those of the HTTP check it replaces are not carried over.
        base = new HealthCheck.Input(base.enabled(), base.protocol(), base.port(), null, base.intervalSeconds(),
            base.timeoutSeconds(), base.healthyThreshold(), base.unhealthyThreshold(), null, null);
      }
      HealthCheck hc = TargetGroupShapes.resolveHealthCheck(TargetGroupShapes.over(base, given), g.targetType(),
          g.protocol(), g.protocolVersion());
      return hc.equals(g.healthCheck()) ? r : TargetGroupShapes.replace(r, g.withHealthCheck(hc));
    }).map(r -> List.of(Xml.list("TargetGroups", List.of(ResourceLookup.targetGroup(r, arn)),
        g -> TargetGroupShapes.member(g, ResourceLookup.loadBalancerOfGroups(r)))));
  }

  static Future<List<Xml>> delete(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String arn = v.required(p, "TargetGroupArn");
    v.throwIfAny();
    if (!arn.startsWith("arn:") || !arn.contains(":targetgroup/")) {
      // Not a group that is gone, but no group at all (a load balancer's ARN, a name): said, not passed over.
      throw ApiError.validation("'" + arn + "' is not a valid target group ARN");
    }
    return ctx.mutate(r -> {
      if (r.targetGroup(arn).isEmpty()) {
        // As on AWS: deleting a group that does not exist (any more) succeeds.
        return r;
      }
      if (ResourceLookup.inUse(r, arn)) {
        throw ApiError.sender("ResourceInUse", "The target group '" + arn + "' is currently in use by a listener or a rule");
      }
      List<TargetGroup> groups = r.targetGroups().stream().filter(g -> !g.arn().equals(arn)).toList();
      Map<String, Map<String, String>> tags = new LinkedHashMap<>(r.tags());
      tags.remove(arn);
      return new Resources(r.loadBalancers(), groups, tags);
    }).map(r -> List.of());
  }
}
