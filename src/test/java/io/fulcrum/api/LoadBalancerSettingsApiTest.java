package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.awaitRefused;
import static io.fulcrum.api.LbApiHarness.forward;
import static io.fulcrum.api.LbApiHarness.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TcpTarget;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.AvailabilityZone;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeCapacityReservationResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.EnforceSecurityGroupInboundRulesOnPrivateLinkTrafficEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.IpAddressType;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancer;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerAddress;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerSchemeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ModifyCapacityReservationResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.SetSecurityGroupsResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.SetSubnetsResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroupIpAddressTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * SetSubnets, SetIpAddressType and SetSecurityGroups through the AWS SDK: what they store and
 * describe, what new zones do to the listeners, and every refusal changing nothing; and
 * DescribeCapacityReservation and ModifyCapacityReservation, which have no reservation to tell of.
 */
class LoadBalancerSettingsApiTest {

  private static final String MISSING_LB =
      "arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/nope/0123456789abcdef";

  @TempDir
  Path dir;

  private LbApiHarness h;
  private TcpTarget target;

  @AfterEach
  void stop() {
    if (target != null) {
      target.close();
    }
    if (h != null) {
      h.close();
    }
  }

  private LoadBalancer describe(String arn) {
    return h.elb.describeLoadBalancers(b -> b.loadBalancerArns(arn)).loadBalancers().get(0);
  }

  /** A network load balancer in both zones balancing across them, with a TCP listener to one target in zone-a. */
  private String networkLoadBalancerServing(String name, int port) {
    String tg = h.elb.createTargetGroup(b -> b.name(name).protocol(ProtocolEnum.TCP).port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.IP)).targetGroups().get(0).targetGroupArn();
    h.elb.registerTargets(b -> b.targetGroupArn(tg)
        .targets(t -> t.id("127.0.0.1").port(target.port()).availabilityZone("zone-a")));
    String lb = h.elb.createLoadBalancer(b -> b.name(name).type(LoadBalancerTypeEnum.NETWORK)
        .subnets("zone-a", "zone-b")).loadBalancers().get(0).loadBalancerArn();
    h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb)
        .attributes(a -> a.key("load_balancing.cross_zone.enabled").value("true")));
    h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.TCP).port(port).defaultActions(forward(tg)));
    return lb;
  }

  private static String ask(String address, int port) {
    try (FlowClient c = FlowClient.connect(null, address, port)) {
      return c.ask("hello");
    }
  }

  @Test
  void setSubnets_withoutAZone_stopsItsNodeAccepting_andWithItAgain_servesThereBeforeTheAnswer() {
    h = LbApiHarness.start(dir);
    target = TcpTarget.start(h.backends, "t");
    int port = Ports.free();
    String lb = networkLoadBalancerServing("edge", port);
    assertThat(ask("127.0.0.2", port)).isEqualTo("t:hello");

    SetSubnetsResponse narrowed = h.elb.setSubnets(b -> b.loadBalancerArn(lb).subnets("subnet-zone-a"));

    assertThat(narrowed.availabilityZones()).extracting(AvailabilityZone::zoneName, AvailabilityZone::subnetId)
        .containsExactly(tuple("zone-a", "subnet-zone-a"));
    assertThat(narrowed.ipAddressType()).isEqualTo(IpAddressType.IPV4);
    assertThat(describe(lb).availabilityZones()).isEqualTo(narrowed.availabilityZones());
    awaitRefused("127.0.0.2", port);
    assertThat(ask("127.0.0.1", port)).isEqualTo("t:hello");

    SetSubnetsResponse widened = h.elb.setSubnets(b -> b.loadBalancerArn(lb)
        .subnetMappings(m -> m.subnetId("zone-b"), m -> m.subnetId("subnet-zone-a")));

    assertThat(widened.availabilityZones()).extracting(AvailabilityZone::zoneName).containsExactly("zone-a", "zone-b");
    assertThat(widened.availabilityZones().get(1).loadBalancerAddresses()).extracting(LoadBalancerAddress::ipAddress)
        .containsExactly("127.0.0.2");
    assertThat(describe(lb).availabilityZones()).isEqualTo(widened.availabilityZones());
    // No waiting: the listener accepts on zone-b's node once SetSubnets has answered.
    assertThat(ask("127.0.0.2", port)).isEqualTo("t:hello");
  }

  @Test
  void setSubnets_isCheckedAsCreateLoadBalancerIs_andARefusedCallChangesNothing() {
    h = LbApiHarness.start(dir);
    String alb = h.createLoadBalancer("web");
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb).subnets("zone-a")), "ValidationError");
    assertThat(h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb).subnets("zone-a", "subnet-0abc")),
        "SubnetNotFound")).hasMessageContaining("'subnet-0abc'");
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb).subnets("zone-a", "subnet-zone-a")),
        "InvalidConfigurationRequest");
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb)
        .subnetMappings(m -> m.subnetId("zone-a").allocationId("eipalloc-1"), m -> m.subnetId("zone-b"))),
        "InvalidConfigurationRequest");
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb).subnets("zone-a")
        .subnetMappings(m -> m.subnetId("zone-b"))), "ValidationError");
    assertThat(h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb)), "ValidationError"))
        .hasMessageContaining("subnets or subnet mappings");
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb).subnets("zone-a", "zone-b")
        .ipAddressType("ipv6")), "ValidationError");
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(alb).subnets("zone-a", "zone-b")
        .enablePrefixForIpv6SourceNat("on")), "ValidationError");
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(MISSING_LB).subnets("zone-a", "zone-b")),
        "LoadBalancerNotFound");
    String internal = h.elb.createLoadBalancer(b -> b.name("inside").scheme(LoadBalancerSchemeEnum.INTERNAL))
        .loadBalancers().get(0).loadBalancerArn();
    h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(internal).subnets("zone-a", "zone-b")
        .ipAddressType(IpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4)), "InvalidConfigurationRequest");

    // Two network load balancers with a listener on one port, each in its own zone: one cannot take the other's.
    int port = Ports.free();
    String tg = h.elb.createTargetGroup(b -> b.name("db").protocol(ProtocolEnum.TCP).port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.IP)).targetGroups().get(0).targetGroupArn();
    String tg2 = h.elb.createTargetGroup(b -> b.name("db2").protocol(ProtocolEnum.TCP).port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.IP)).targetGroups().get(0).targetGroupArn();
    String a = h.elb.createLoadBalancer(b -> b.name("a").type(LoadBalancerTypeEnum.NETWORK).subnets("zone-a"))
        .loadBalancers().get(0).loadBalancerArn();
    String bLb = h.elb.createLoadBalancer(b -> b.name("b").type(LoadBalancerTypeEnum.NETWORK).subnets("zone-b"))
        .loadBalancers().get(0).loadBalancerArn();
    h.elb.createListener(b -> b.loadBalancerArn(a).protocol(ProtocolEnum.TCP).port(port).defaultActions(forward(tg)));
    h.elb.createListener(b -> b.loadBalancerArn(bLb).protocol(ProtocolEnum.TCP).port(port).defaultActions(forward(tg2)));
    assertThat(h.refusedUnchanged(() -> h.elb.setSubnets(b -> b.loadBalancerArn(bLb).subnets("zone-a", "zone-b")),
        "DuplicateListener")).hasMessageContaining("127.0.0.1");

    SetSubnetsResponse done = h.elb.setSubnets(b -> b.loadBalancerArn(alb)
        .subnetMappings(m -> m.subnetId("subnet-zone-b"), m -> m.subnetId("zone-a")).ipAddressType(IpAddressType.DUALSTACK));
    assertThat(done.ipAddressType()).isEqualTo(IpAddressType.DUALSTACK);
    assertThat(done.availabilityZones()).extracting(AvailabilityZone::zoneName).containsExactly("zone-a", "zone-b");
    assertThat(describe(alb).ipAddressType()).isEqualTo(IpAddressType.DUALSTACK);
  }

  /** SPEC §8.2: an IPv6 target group is forwarded to by dualstack load balancers only. */
  @Test
  void ipv6TargetGroups_areForwardedToByDualstackLoadBalancersOnly() {
    h = LbApiHarness.start(dir);
    Backend six = Backend.start(h.backends, "six", "::1", null);
    String lb = h.createLoadBalancer("web");
    String group = h.elb.createTargetGroup(b -> b.name("six").targetType(TargetTypeEnum.IP).protocol(ProtocolEnum.HTTP)
        .port(80).vpcId(ApiGateway.VPC).ipAddressType(TargetGroupIpAddressTypeEnum.IPV6)).targetGroups().get(0).targetGroupArn();
    h.elb.registerTargets(b -> b.targetGroupArn(group).targets(t -> t.id("::1").port(six.port())));
    int port = Ports.free();
    assertThat(h.refusedUnchanged(() -> h.createListener(lb, port, forward(group)), "InvalidConfigurationRequest"))
        .hasMessageContaining("target group 'six' has IP address type ipv6: only a dualstack load balancer");
    String listener = h.createListener(lb, port, LbApiHarness.fixed(404, "none"));
    h.refusedUnchanged(() -> h.createRule(listener, 10, forward(group), LbApiHarness.path("/six")),
        "InvalidConfigurationRequest");

    h.elb.setIpAddressType(b -> b.loadBalancerArn(lb).ipAddressType(IpAddressType.DUALSTACK));
    h.createRule(listener, 10, forward(group), LbApiHarness.path("/six"));
    assertThat(LbApiHarness.body("127.0.0.1", port, "/six")).isEqualTo("six");
    assertThat(h.refusedUnchanged(() -> h.elb.setIpAddressType(b -> b.loadBalancerArn(lb)
        .ipAddressType(IpAddressType.IPV4)), "InvalidConfigurationRequest")).hasMessageContaining("'six'");
    assertThat(describe(lb).ipAddressType()).isEqualTo(IpAddressType.DUALSTACK);
  }

  @Test
  void setIpAddressType_storesIt_andAnInternalOneCannotBeDualstackWithoutPublicIpv4() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    assertThat(h.elb.setIpAddressType(b -> b.loadBalancerArn(lb).ipAddressType(IpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4))
        .ipAddressType()).isEqualTo(IpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4);
    assertThat(describe(lb).ipAddressType()).isEqualTo(IpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4);

    String internal = h.elb.createLoadBalancer(b -> b.name("inside").scheme(LoadBalancerSchemeEnum.INTERNAL))
        .loadBalancers().get(0).loadBalancerArn();
    assertThat(h.refusedUnchanged(() -> h.elb.setIpAddressType(b -> b.loadBalancerArn(internal)
        .ipAddressType(IpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4)), "InvalidConfigurationRequest"))
        .hasMessageContaining("internet-facing");
    assertThat(h.elb.setIpAddressType(b -> b.loadBalancerArn(internal).ipAddressType(IpAddressType.DUALSTACK))
        .ipAddressType()).isEqualTo(IpAddressType.DUALSTACK);
    h.refusedUnchanged(() -> h.elb.setIpAddressType(b -> b.loadBalancerArn(lb).ipAddressType("ipv6")),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.setIpAddressType(b -> b.loadBalancerArn(lb)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.setIpAddressType(b -> b.loadBalancerArn(MISSING_LB)
        .ipAddressType(IpAddressType.IPV4)), "LoadBalancerNotFound");
    assertThat(describe(lb).ipAddressType()).isEqualTo(IpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4);
  }

  @Test
  void setSecurityGroups_replacesThem_butANetworkOneCreatedWithoutAnyCannotGetSome() {
    h = LbApiHarness.start(dir);
    String alb = h.elb.createLoadBalancer(b -> b.name("web").securityGroups("sg-1")).loadBalancers().get(0)
        .loadBalancerArn();
    SetSecurityGroupsResponse set = h.elb.setSecurityGroups(b -> b.loadBalancerArn(alb)
        .securityGroups("sg-2", "sg-3", "sg-2"));
    assertThat(set.securityGroupIds()).containsExactly("sg-2", "sg-3");
    assertThat(set.enforceSecurityGroupInboundRulesOnPrivateLinkTraffic()).isNull();
    assertThat(describe(alb).securityGroups()).containsExactly("sg-2", "sg-3");

    h.refusedUnchanged(() -> h.elb.setSecurityGroups(b -> b.loadBalancerArn(alb).securityGroups("sg-1", " ")),
        "InvalidSecurityGroup");
    h.refusedUnchanged(() -> h.elb.setSecurityGroups(b -> b.loadBalancerArn(alb).securityGroups("sg-1")
        .enforceSecurityGroupInboundRulesOnPrivateLinkTraffic("off")), "InvalidConfigurationRequest");
    h.refusedUnchanged(() -> h.elb.setSecurityGroups(b -> b.loadBalancerArn(alb)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.setSecurityGroups(b -> b.loadBalancerArn(MISSING_LB).securityGroups("sg-1")),
        "LoadBalancerNotFound");

    String bare = h.elb.createLoadBalancer(b -> b.name("bare").type(LoadBalancerTypeEnum.NETWORK)).loadBalancers()
        .get(0).loadBalancerArn();
    assertThat(h.refusedUnchanged(() -> h.elb.setSecurityGroups(b -> b.loadBalancerArn(bare).securityGroups("sg-1")),
        "InvalidConfigurationRequest")).hasMessageContaining("created without security groups");

    String nlb = h.elb.createLoadBalancer(b -> b.name("edge").type(LoadBalancerTypeEnum.NETWORK).securityGroups("sg-1"))
        .loadBalancers().get(0).loadBalancerArn();
    h.refusedUnchanged(() -> h.elb.setSecurityGroups(b -> b.loadBalancerArn(nlb).securityGroups("sg-1")
        .enforceSecurityGroupInboundRulesOnPrivateLinkTraffic("maybe")), "ValidationError");
    SetSecurityGroupsResponse nlbSet = h.elb.setSecurityGroups(b -> b.loadBalancerArn(nlb).securityGroups("sg-4")
        .enforceSecurityGroupInboundRulesOnPrivateLinkTraffic(EnforceSecurityGroupInboundRulesOnPrivateLinkTrafficEnum.OFF));
    assertThat(nlbSet.securityGroupIds()).containsExactly("sg-4");
    assertThat(nlbSet.enforceSecurityGroupInboundRulesOnPrivateLinkTraffic())
        .isEqualTo(EnforceSecurityGroupInboundRulesOnPrivateLinkTrafficEnum.OFF);
    assertThat(describe(nlb).securityGroups()).containsExactly("sg-4");
  }

  @Test
  void newSubnetsIpAddressTypeAndSecurityGroups_surviveARestart() {
    h = LbApiHarness.start(dir);
    String lb = h.elb.createLoadBalancer(b -> b.name("edge").type(LoadBalancerTypeEnum.NETWORK).securityGroups("sg-1"))
        .loadBalancers().get(0).loadBalancerArn();
    h.elb.setSubnets(b -> b.loadBalancerArn(lb).subnets("zone-b"));
    h.elb.setIpAddressType(b -> b.loadBalancerArn(lb).ipAddressType(IpAddressType.DUALSTACK));
    h.elb.setSecurityGroups(b -> b.loadBalancerArn(lb).securityGroups("sg-2"));
    LoadBalancer before = describe(lb);
    h.close();

    h = LbApiHarness.start(dir);
    LoadBalancer after = describe(lb);
    assertThat(after).isEqualTo(before);
    assertThat(after.availabilityZones()).extracting(AvailabilityZone::zoneName).containsExactly("zone-b");
    assertThat(after.ipAddressType()).isEqualTo(IpAddressType.DUALSTACK);
    assertThat(after.securityGroups()).containsExactly("sg-2");
  }

  @Test
  void describeCapacityReservation_answersAsForALoadBalancerWithoutOne() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    DescribeCapacityReservationResponse r = h.elb.describeCapacityReservation(b -> b.loadBalancerArn(lb));
    assertThat(r.minimumLoadBalancerCapacity()).isNull();
    assertThat(r.decreaseRequestsRemaining()).isZero();
    assertThat(r.lastModifiedTime()).isNull();
    assertThat(r.capacityReservationState()).isEmpty();

    refused(() -> h.elb.describeCapacityReservation(b -> b.loadBalancerArn(MISSING_LB)), "LoadBalancerNotFound");
    refused(() -> h.elb.describeCapacityReservation(b -> { }), "ValidationError");
  }

  /** There are no IPAM pools: adding one is refused as in CreateLoadBalancer; removing the ipv4 one changes nothing. */
  @Test
  void modifyIpPools_refusesAPool_andRemovingNoneChangesNothing() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    LoadBalancer before = describe(lb);

    assertThat(h.elb.modifyIpPools(b -> b.loadBalancerArn(lb).removeIpamPoolsWithStrings("ipv4")).ipamPools()).isNull();
    assertThat(describe(lb)).isEqualTo(before);
    assertThat(h.refusedUnchanged(() -> h.elb.modifyIpPools(b -> b.loadBalancerArn(lb)
        .ipamPools(i -> i.ipv4IpamPoolId("ipam-pool-0123456789abcdef0"))), "ValidationError"))
        .hasMessageContaining("IpamPools is not supported");
    h.refusedUnchanged(() -> h.elb.modifyIpPools(b -> b.loadBalancerArn(lb).removeIpamPoolsWithStrings("ipv6")),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyIpPools(b -> b.loadBalancerArn(MISSING_LB).removeIpamPoolsWithStrings("ipv4")),
        "LoadBalancerNotFound");
  }

  @Test
  void modifyCapacityReservation_refusesAReservation_andAResetChangesNothing() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    assertThat(h.refusedUnchanged(() -> h.elb.modifyCapacityReservation(b -> b.loadBalancerArn(lb)
        .minimumLoadBalancerCapacity(c -> c.capacityUnits(100))), "OperationNotPermitted"))
        .hasMessageContaining("no capacity reservations");
    h.refusedUnchanged(() -> h.elb.modifyCapacityReservation(b -> b.loadBalancerArn(lb)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyCapacityReservation(b -> b.loadBalancerArn(lb)
        .resetCapacityReservation(false)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyCapacityReservation(b -> b.loadBalancerArn(lb)
        .minimumLoadBalancerCapacity(c -> c.capacityUnits(100)).resetCapacityReservation(true)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyCapacityReservation(b -> b.loadBalancerArn(MISSING_LB)
        .minimumLoadBalancerCapacity(c -> c.capacityUnits(100))), "LoadBalancerNotFound");

    var before = h.resources();
    byte[] state = h.state();
    ModifyCapacityReservationResponse reset = h.elb.modifyCapacityReservation(b -> b.loadBalancerArn(lb)
        .resetCapacityReservation(true));
    assertThat(reset.minimumLoadBalancerCapacity()).isNull();
    assertThat(reset.decreaseRequestsRemaining()).isZero();
    assertThat(reset.capacityReservationState()).isEmpty();
    assertThat(h.resources()).isSameAs(before);
    assertThat(h.state()).isEqualTo(state);
  }
}
