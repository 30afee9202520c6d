package io.fulcrum.api;

import io.fulcrum.model.Environment;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerIpAddressType;
import io.fulcrum.model.LoadBalancerType;
import io.vertx.core.Future;
import java.util.List;

/**
 * SetSubnets, SetIpAddressType, SetSecurityGroups and ModifyIpPools: a load balancer's zones, IP
 * address type, security groups and IPAM pools, parsed and checked as CreateLoadBalancer does. New zones apply as any change
 * does: before the answer, the listeners accept on the nodes of the zones enabled and no longer on
 * the others. IP address type and security groups are stored and described; they change nothing
 * Fulcrum serves.
 */
final class LoadBalancerSettingsOperations {

  private static final String ENFORCE_PRIVATE_LINK = "EnforceSecurityGroupInboundRulesOnPrivateLinkTraffic";

  private LoadBalancerSettingsOperations() {
  }

  static void register(ElbApi api) {
    api.register("SetSubnets", LoadBalancerSettingsOperations::setSubnets)
        .register("SetIpAddressType", LoadBalancerSettingsOperations::setIpAddressType)
        .register("SetSecurityGroups", LoadBalancerSettingsOperations::setSecurityGroups)
        .register("ModifyIpPools", LoadBalancerSettingsOperations::modifyIpPools);
  }

  /**
   * {@code IpamPools} is a {@code ValidationError}, as in CreateLoadBalancer; {@code RemoveIpamPools}
   * ({@code ipv4}, the only member AWS takes) is accepted and answered as AWS answers for a load
   * balancer left without pools: no {@code IpamPools}. Nothing changes either way.
   */
  static Future<List<Xml>> modifyIpPools(QueryParams p, ApiContext ctx) {
    String arn = p.required("LoadBalancerArn");
    for (String pool : p.strings("RemoveIpamPools")) {
      if (!pool.equals("ipv4")) {
        throw ApiError.validation("Value '" + pool + "' at 'removeIpamPools' failed to satisfy constraint: Member must"
            + " satisfy enum value set: [ipv4]");
      }
    }
    if (p.hasAny("IpamPools")) {
      throw ApiError.validation("IpamPools is not supported by Fulcrum");
    }
    LbResources.loadBalancer(ctx.resources(), arn);
    return Future.succeededFuture(List.of());
  }

  /**
   * Replaces the enabled zones by those of {@code Subnets} or {@code SubnetMappings} (one is
   * required), and the IP address type when given. Answers the zones as DescribeLoadBalancers does.
   */
  static Future<List<Xml>> setSubnets(QueryParams p, ApiContext ctx) {
    Environment env = ctx.environment();
    String arn = p.required("LoadBalancerArn");
    if (p.strings("Subnets").isEmpty() && p.structs("SubnetMappings").isEmpty()) {
      throw ApiError.validation("You must specify either subnets or subnet mappings");
    }
    if (p.hasAny("EnablePrefixForIpv6SourceNat")) {
      throw ApiError.validation("EnablePrefixForIpv6SourceNat is not supported by Fulcrum");
    }
    LoadBalancerIpAddressType given = LoadBalancerOperations.wireEnum(p, "IpAddressType",
        LoadBalancerIpAddressType.class, null);
    return ctx.mutate(r -> {
      LoadBalancer lb = LbResources.loadBalancer(r, arn);
      List<String> zones = LoadBalancerOperations.zones(p, env, lb.type());
      LoadBalancerIpAddressType ipType = given == null ? lb.ipAddressType() : given;
      LoadBalancerOperations.checkIpAddressType(lb.scheme(), ipType);
      LoadBalancer next = lb.withZones(zones).withIpAddressType(ipType);
      return next.equals(lb) ? r : LbResources.replace(r, next);
    }).map(r -> {
      LoadBalancer lb = LbResources.loadBalancer(r, arn);
      return List.of(LoadBalancerXml.availabilityZones(lb, env), Xml.text("IpAddressType", lb.ipAddressType().wire()));
    });
  }

  static Future<List<Xml>> setIpAddressType(QueryParams p, ApiContext ctx) {
    String arn = p.required("LoadBalancerArn");
    p.required("IpAddressType");
    LoadBalancerIpAddressType ipType = LoadBalancerOperations.wireEnum(p, "IpAddressType",
        LoadBalancerIpAddressType.class, null);
    return ctx.mutate(r -> {
      LoadBalancer lb = LbResources.loadBalancer(r, arn);
      LoadBalancerOperations.checkIpAddressType(lb.scheme(), ipType);
      return lb.ipAddressType() == ipType ? r : LbResources.replace(r, lb.withIpAddressType(ipType));
    }).map(r -> List.of(Xml.text("IpAddressType", LbResources.loadBalancer(r, arn).ipAddressType().wire())));
  }

  /**
   * Replaces the security groups. As on AWS, a network load balancer created without security
   * groups cannot be given any, and {@code EnforceSecurityGroupInboundRulesOnPrivateLinkTraffic} is
   * for network load balancers; it is answered as given, not stored (there is no PrivateLink).
   */
  static Future<List<Xml>> setSecurityGroups(QueryParams p, ApiContext ctx) {
    String arn = p.required("LoadBalancerArn");
    if (!p.hasAny("SecurityGroups")) {
      p.required("SecurityGroups");
    }
    List<String> securityGroups = LoadBalancerOperations.securityGroups(p);
    String enforce = p.string(ENFORCE_PRIVATE_LINK);
    if (enforce != null && !enforce.equals("on") && !enforce.equals("off")) {
      throw ApiError.constraint(enforce, QueryParams.lowerFirst(ENFORCE_PRIVATE_LINK), "satisfy enum value set: [on, off]");
    }
    return ctx.mutate(r -> {
      LoadBalancer lb = LbResources.loadBalancer(r, arn);
      if (lb.type() == LoadBalancerType.NETWORK && lb.securityGroups().isEmpty()) {
        throw LbResources.refusal("InvalidConfigurationRequest", "Network load balancer '" + lb.name()
            + "' was created without security groups: it cannot be given any");
      }
      if (enforce != null && lb.type() != LoadBalancerType.NETWORK) {
        throw LbResources.refusal("InvalidConfigurationRequest", ENFORCE_PRIVATE_LINK
            + " is for network load balancers only");
      }
      return lb.securityGroups().equals(securityGroups) ? r : LbResources.replace(r, lb.withSecurityGroups(securityGroups));
    }).map(r -> List.of(Xml.strings("SecurityGroupIds", LbResources.loadBalancer(r, arn).securityGroups()),
        Xml.text(ENFORCE_PRIVATE_LINK, enforce)));
  }
}
