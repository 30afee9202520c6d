package io.fulcrum.api;

import io.fulcrum.model.AlbTargets;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Environment;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerAttributes;
import io.fulcrum.model.LoadBalancerIpAddressType;
import io.fulcrum.model.LoadBalancerScheme;
import io.fulcrum.model.LoadBalancerType;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Resources;
import io.fulcrum.model.WireEnum;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicReference;
import java.util.regex.Pattern;

/**
 * Load balancer operations: CreateLoadBalancer, DescribeLoadBalancers, DeleteLoadBalancer,
 * DescribeLoadBalancerAttributes, ModifyLoadBalancerAttributes; {@link #register} also registers
 * the listener ({@link ListenerOperations}) and rule ({@link RuleOperations}) operations, and those
 * that change a load balancer's subnets, IP address type and security groups
 * ({@link LoadBalancerSettingsOperations}).
 *
 * <p>Subnets are the deployment's zones: a subnet id is a zone name ({@code zone-a}) or
 * {@code subnet-<zone>} ({@code subnet-zone-a}); a load balancer created without subnets is
 * enabled in every zone that has a node.
 */
public final class LoadBalancerOperations {

  static final int MAX_ATTRIBUTES_PER_CALL = 20;
  private static final Pattern ATTRIBUTE_KEY = Pattern.compile("[a-zA-Z0-9._]+");

  private LoadBalancerOperations() {
  }

  public static void register(ElbApi api) {
    api.register("CreateLoadBalancer", LoadBalancerOperations::create)
        .register("DescribeLoadBalancers", LoadBalancerOperations::describe)
        .register("DeleteLoadBalancer", LoadBalancerOperations::delete)
        .register("DescribeLoadBalancerAttributes", LoadBalancerOperations::describeAttributes)
        .register("ModifyLoadBalancerAttributes", LoadBalancerOperations::modifyAttributes);
    ListenerOperations.register(api);
    ListenerCertificateOperations.register(api);
    ListenerAttributeOperations.register(api);
    SslPolicyOperations.register(api);
    TrustStoreOperations.register(api);
    AccountLimitOperations.register(api);
    LoadBalancerSettingsOperations.register(api);
    CapacityReservationOperations.register(api);
    RuleOperations.register(api);
  }

  static Future<List<Xml>> create(QueryParams p, ApiContext ctx) {
    Environment env = ctx.environment();
    String name = p.required("Name");
    Problems nameProblems = new Problems();
    if (!LoadBalancer.checkName(name, nameProblems)) {
      throw ApiError.validation(nameProblems.list().get(0).message());
    }
    String typeText = p.string("Type");
    if (typeText != null && !List.of("application", "network", "gateway").contains(typeText)) {
      throw ApiError.constraint(typeText, "type", "satisfy enum value set: [application, network, gateway]");
    }
    if ("gateway".equals(typeText)) {
      throw ApiError.validation("gateway load balancers are not available in Fulcrum (expected: application or network)");
    }
    LoadBalancerType type = "network".equals(typeText) ? LoadBalancerType.NETWORK : LoadBalancerType.APPLICATION;
    LoadBalancerScheme scheme = wireEnum(p, "Scheme", LoadBalancerScheme.class, LoadBalancerScheme.INTERNET_FACING);
    LoadBalancerIpAddressType ipType = wireEnum(p, "IpAddressType", LoadBalancerIpAddressType.class,
        LoadBalancerIpAddressType.IPV4);
    checkIpAddressType(scheme, ipType);
    for (String unsupported : List.of("CustomerOwnedIpv4Pool", "IpamPools", "EnablePrefixForIpv6SourceNat")) {
      if (p.hasAny(unsupported)) {
        throw ApiError.validation(unsupported + " is not supported by Fulcrum");
      }
    }
    List<String> zones = zones(p, env, type);
    List<String> securityGroups = securityGroups(p);
    Map<String, String> tags = ResourceTagList.parse(p, "Tags");
    AtomicReference<String> created = new AtomicReference<>();
    return ctx.mutate(r -> {
      Optional<LoadBalancer> existing = LbResources.byName(r, name);
      if (existing.isPresent()) {
        LoadBalancer lb = existing.get();
        if (lb.type() == type && lb.scheme() == scheme && lb.ipAddressType() == ipType
            && Set.copyOf(lb.zones()).equals(Set.copyOf(zones))
            && Set.copyOf(lb.securityGroups()).equals(Set.copyOf(securityGroups))) {
          created.set(lb.arn());
          return r;
        }
        throw LbResources.refusal("DuplicateLoadBalancerName", "A load balancer with the same name '" + name
            + "' exists, but with different settings");
      }
      for (LoadBalancer other : r.loadBalancers()) {
        if (other.name().equalsIgnoreCase(name)) {
          // Its DNS name would be the other's: DNS names do not tell letter cases apart.
          throw LbResources.refusal("DuplicateLoadBalancerName", "A load balancer named '" + other.name()
              + "' exists, and its DNS name would be this one's (names that differ only in letter case share one)");
        }
      }
      Arns arns = env.arns();
      String arn = arns.loadBalancer(type, name, LbResources.newId(r));
      String dns = (scheme == LoadBalancerScheme.INTERNAL ? "internal-" : "") + arns.dnsName(name, ctx.dnsDomain());
      LoadBalancer lb = new LoadBalancer(arn, name, type, dns, zones, LoadBalancerAttributes.defaults(type), List.of(),
          scheme, ipType, securityGroups, Instant.ofEpochMilli(ctx.now()));
      created.set(arn);
      List<LoadBalancer> lbs = new ArrayList<>(r.loadBalancers());
      lbs.add(lb);
      return LbResources.withTags(new Resources(lbs, r.targetGroups(), r.tags()), arn, tags);
    }).map(r -> List.of(Xml.list("LoadBalancers", List.of(LbResources.loadBalancer(r, created.get())),
        lb -> LoadBalancerXml.loadBalancer(lb, env))));
  }

  /** An IP address type the scheme allows: {@code dualstack-without-public-ipv4} only for internet-facing. */
  static void checkIpAddressType(LoadBalancerScheme scheme, LoadBalancerIpAddressType ipType) {
    if (scheme == LoadBalancerScheme.INTERNAL && ipType == LoadBalancerIpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4) {
      throw ApiError.sender("InvalidConfigurationRequest",
          "IP address type 'dualstack-without-public-ipv4' is only for internet-facing load balancers");
    }
  }

  /** The ids of {@code SecurityGroups}, each once, in the order given; an empty id is {@code InvalidSecurityGroup}. */
  static List<String> securityGroups(QueryParams p) {
    List<String> securityGroups = new ArrayList<>(new LinkedHashSet<>(p.strings("SecurityGroups")));
    for (String sg : securityGroups) {
      if (sg.isBlank()) {
        throw ApiError.sender("InvalidSecurityGroup", "A security group id must not be empty");
      }
    }
    return securityGroups;
  }

  /**
   * The zones of {@code Subnets} or {@code SubnetMappings}, in node order; every zone when neither is
   * given. ALB's rule of at least two zones applies when the deployment has two.
   */
  static List<String> zones(QueryParams p, Environment env, LoadBalancerType type) {
    List<String> ids = new ArrayList<>(p.strings("Subnets"));
    List<QueryParams> mappings = p.structs("SubnetMappings");
    if (!ids.isEmpty() && !mappings.isEmpty()) {
      throw ApiError.validation("You can specify subnets or subnet mappings, not both");
    }
    for (int i = 0; i < mappings.size(); i++) {
      QueryParams m = mappings.get(i);
      String where = "SubnetMappings.member." + (i + 1);
      if (m.string("SubnetId") == null) {
        throw ApiError.validation(where + ": a SubnetId is required");
      }
      if (m.has("AllocationId")) {
        throw ApiError.sender("InvalidConfigurationRequest", where
            + ": Elastic IP addresses cannot be given here; each zone answers on its node's address");
      }
      for (String addressMember : List.of("PrivateIPv4Address", "IPv6Address", "SourceNatIpv6Prefix")) {
        if (m.has(addressMember)) {
          throw ApiError.sender("InvalidConfigurationRequest", where + ": " + addressMember
              + " cannot be given here; each zone answers on its node's address");
        }
      }
      ids.add(m.string("SubnetId"));
    }
    if (ids.isEmpty()) {
      return env.zones();
    }
    Set<String> chosen = new HashSet<>();
    for (String id : ids) {
      String zone = id;
      if (!env.zones().contains(zone) && id.startsWith(LoadBalancerXml.SUBNET_PREFIX)) {
        zone = id.substring(LoadBalancerXml.SUBNET_PREFIX.length());
      }
      if (!env.zones().contains(zone)) {
        List<String> expected = new ArrayList<>();
        env.zones().forEach(z -> expected.add(z + " or " + LoadBalancerXml.SUBNET_PREFIX + z));
        throw ApiError.sender("SubnetNotFound", "The subnet ID '" + id + "' is not valid: a subnet is a zone with a"
            + " node (expected " + String.join(", ", expected) + ")");
      }
      if (!chosen.add(zone)) {
        throw ApiError.sender("InvalidConfigurationRequest", "A load balancer cannot be attached to multiple subnets"
            + " in the same Availability Zone ('" + zone + "')");
      }
    }
    if (type == LoadBalancerType.APPLICATION && chosen.size() < 2 && env.zones().size() >= 2) {
      throw ApiError.validation("At least two subnets in two different Availability Zones must be specified");
    }
    return env.zones().stream().filter(chosen::contains).toList();
  }

  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    List<String> arns = p.strings("LoadBalancerArns");
    List<String> names = p.strings("Names");
    if (!arns.isEmpty() && !names.isEmpty()) {
      throw ApiError.validation("Load balancer names and load balancer ARNs cannot be specified at the same time");
    }
    Resources r = ctx.resources();
    List<LoadBalancer> selected = new ArrayList<>();
    if (!arns.isEmpty()) {
      new LinkedHashSet<>(arns).forEach(arn -> selected.add(LbResources.loadBalancer(r, arn)));
    } else if (!names.isEmpty()) {
      for (String name : new LinkedHashSet<>(names)) {
        selected.add(LbResources.byName(r, name).orElseThrow(() -> LbResources.refusal("LoadBalancerNotFound",
            "One or more load balancers not found")));
      }
    } else {
      selected.addAll(r.loadBalancers());
    }
    MarkerPaging.Page<LoadBalancer> page = MarkerPaging.page(selected, p);
    Environment env = ctx.environment();
    return Future.succeededFuture(List.of(
        Xml.list("LoadBalancers", page.items(), lb -> LoadBalancerXml.loadBalancer(lb, env)),
        Xml.text("NextMarker", page.nextMarker())));
  }

  /** Deleting a load balancer that does not exist succeeds, as in AWS. */
  static Future<List<Xml>> delete(QueryParams p, ApiContext ctx) {
    String arn = p.required("LoadBalancerArn");
    if (!arn.startsWith("arn:") || !arn.contains(":loadbalancer/")) {
      throw ApiError.validation("'" + arn + "' is not a valid load balancer ARN");
    }
    return ctx.mutate(r -> {
      LoadBalancer lb = r.loadBalancer(arn).orElse(null);
      if (lb == null) {
        return r;
      }
      if ("true".equals(lb.attributes().get(LoadBalancerAttributes.DELETION_PROTECTION))) {
        throw LbResources.refusal("OperationNotPermitted", "Load balancer '" + arn
            + "' cannot be deleted because deletion protection is enabled");
      }
      List<String> registering = AlbTargets.groupsRegistering(r, arn);
      if (!registering.isEmpty()) {
        throw LbResources.refusal("ResourceInUse", "Load balancer '" + arn + "' cannot be deleted because it is"
            + " registered as a target of target group " + String.join(", ", registering) + "; deregister it first");
      }
      List<LoadBalancer> lbs = new ArrayList<>(r.loadBalancers());
      lbs.remove(lb);
      List<String> gone = new ArrayList<>(List.of(arn));
      for (Listener l : lb.listeners()) {
        gone.addAll(LbResources.arnsOf(l));
      }
      return LbResources.withoutTags(new Resources(lbs, r.targetGroups(), r.tags()), gone);
    }).map(r -> List.of());
  }

  static Future<List<Xml>> describeAttributes(QueryParams p, ApiContext ctx) {
    LoadBalancer lb = LbResources.loadBalancer(ctx.resources(), p.required("LoadBalancerArn"));
    return Future.succeededFuture(List.of(LoadBalancerXml.attributes(lb.attributes().asMap())));
  }

  /** Changes the attributes given; the others keep their values. Answers with the whole set. */
  static Future<List<Xml>> modifyAttributes(QueryParams p, ApiContext ctx) {
    String arn = p.required("LoadBalancerArn");
    Map<String, String> changes = attributeChanges(p);
    return ctx.mutate(r -> {
      LoadBalancer lb = LbResources.loadBalancer(r, arn);
      Problems problems = new Problems();
      LoadBalancerAttributes next = LoadBalancerAttributes.resolve(lb.type(), lb.attributes(), changes, problems);
      refuseAttributes(problems, "Load balancer");
      return next.equals(lb.attributes()) ? r : LbResources.replace(r, lb.withAttributes(next));
    }).map(r -> List.of(LoadBalancerXml.attributes(LbResources.loadBalancer(r, arn).attributes().asMap())));
  }

  /**
   * The request's {@code Attributes}, key to value, checked as AWS checks them before it looks at
   * the keys: at least one (or the empty list given), at most 20, keys of letters, digits, dots and
   * underscores up to 256 characters, values up to 1024.
   */
  static Map<String, String> attributeChanges(QueryParams p) {
    List<QueryParams> given = p.structs("Attributes");
    if (given.isEmpty() && !p.has("Attributes")) {
      p.required("Attributes");
    }
    if (given.size() > MAX_ATTRIBUTES_PER_CALL) {
      throw ApiError.constraint(given.size() + " attributes", "attributes", "have length less than or equal to "
          + MAX_ATTRIBUTES_PER_CALL);
    }
    Map<String, String> changes = new LinkedHashMap<>();
    for (int i = 0; i < given.size(); i++) {
      String key = given.get(i).string("Key");
      if (key == null || key.length() > 256 || !ATTRIBUTE_KEY.matcher(key).matches()) {
        throw ApiError.constraint(key, "attributes." + (i + 1) + ".member.key",
            "satisfy regular expression pattern: ^[a-zA-Z0-9._]+$");
      }
      String value = given.get(i).string("Value");
      if (value != null && value.length() > 1024) {
        throw ApiError.constraint(value, "attributes." + (i + 1) + ".member.value", "have length less than or equal to 1024");
      }
      changes.put(key, value);
    }
    return changes;
  }

  /** Refuses the change when resolving attributes recorded a problem: its code, and the key in the message. */
  static void refuseAttributes(Problems problems, String owner) {
    if (!problems.isEmpty()) {
      Problem first = problems.list().get(0);
      String message = first.message().startsWith(owner + " attribute") ? first.message()
          : owner + " attribute '" + first.path() + "': " + first.message();
      throw new InvalidModelException(List.of(new Problem("", first.code(), message)));
    }
  }

  /** An optional enum parameter, refused in AWS's words when it is not one of the values. */
  static <E extends Enum<E> & WireEnum> E wireEnum(QueryParams p, String member, Class<E> type, E def) {
    String text = p.string(member);
    if (text == null) {
      return def;
    }
    return WireEnum.parse(type, text).orElseThrow(() -> ApiError.constraint(text, QueryParams.lowerFirst(member),
        "satisfy enum value set: [" + WireEnum.expected(type) + "]"));
  }
}
