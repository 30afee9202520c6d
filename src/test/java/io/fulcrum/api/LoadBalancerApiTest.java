package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.awaitRefused;
import static io.fulcrum.api.LbApiHarness.body;
import static io.fulcrum.api.LbApiHarness.forward;
import static io.fulcrum.api.LbApiHarness.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fulcrum.testing.DnsProbe;
import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.netty.handler.codec.dns.DnsRecordType;
import io.netty.handler.codec.dns.DnsResponseCode;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.AvailabilityZone;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeAccountLimitsResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeLoadBalancersResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.IpAddressType;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Limit;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancer;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerAddress;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerAttribute;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerSchemeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerStateEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Tag;

/** CreateLoadBalancer, DescribeLoadBalancers, DeleteLoadBalancer and the attribute operations through the AWS SDK. */
class LoadBalancerApiTest {

  @TempDir
  Path dir;

  private LbApiHarness h;

  @AfterEach
  void stop() {
    if (h != null) {
      h.close();
    }
  }

  private static String attribute(List<LoadBalancerAttribute> attributes, String key) {
    return attributes.stream().filter(a -> a.key().equals(key)).findFirst().orElseThrow().value();
  }

  @Test
  void createLoadBalancer_isDescribedWithItsZonesNodeAddressesDnsNameAndTags() {
    h = LbApiHarness.start(dir);
    LoadBalancer created = h.elb.createLoadBalancer(b -> b.name("web").subnets("zone-a", "subnet-zone-b")
        .securityGroups("sg-1").tags(Tag.builder().key("team").value("web").build())).loadBalancers().get(0);

    LoadBalancer lb = h.elb.describeLoadBalancers(b -> b.names("web")).loadBalancers().get(0);
    assertThat(lb).isEqualTo(created);
    assertThat(lb.loadBalancerArn())
        .matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/web/[0-9a-f]{16}");
    assertThat(lb.dnsName()).isEqualTo("web.us-east-1.elb.localhost");
    assertThat(lb.canonicalHostedZoneId()).isNotBlank();
    assertThat(lb.type()).isEqualTo(LoadBalancerTypeEnum.APPLICATION);
    assertThat(lb.scheme()).isEqualTo(LoadBalancerSchemeEnum.INTERNET_FACING);
    assertThat(lb.ipAddressType()).isEqualTo(IpAddressType.IPV4);
    assertThat(lb.vpcId()).isEqualTo("vpc-fulcrum");
    assertThat(lb.state().code()).isEqualTo(LoadBalancerStateEnum.ACTIVE);
    assertThat(lb.securityGroups()).containsExactly("sg-1");
    // The control plane's clock: virtual in tests, so the time is exact.
    assertThat(lb.createdTime()).isEqualTo(Instant.ofEpochMilli(VirtualTime.START));
    assertThat(lb.availabilityZones())
        .extracting(AvailabilityZone::zoneName, AvailabilityZone::subnetId,
            z -> z.loadBalancerAddresses().stream().map(LoadBalancerAddress::ipAddress).toList())
        .containsExactly(tuple("zone-a", "subnet-zone-a", List.of("127.0.0.1")),
            tuple("zone-b", "subnet-zone-b", List.of("127.0.0.2")));
    assertThat(h.resources().tagsOf(lb.loadBalancerArn())).isEqualTo(Map.of("team", "web"));
  }

  @Test
  void createdLoadBalancer_resolvesThroughTheDnsResponder_toTheNodesOfItsZones() {
    h = LbApiHarness.start(dir);
    String dns = h.elb.createLoadBalancer(b -> b.name("web")).loadBalancers().get(0).dnsName();

    try (DnsProbe probe = new DnsProbe("127.0.0.1", h.gateway.dnsPort())) {
      // The responder follows the registry's zone status, published as the change is applied.
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> probe.query(dns, DnsRecordType.A).code()
          == DnsResponseCode.NOERROR);
      assertThat(probe.query(dns, DnsRecordType.A).addresses()).containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2");
    }
  }

  @Test
  void createLoadBalancer_withoutSubnets_isEnabledInEveryZone_andInternalOnesGetAnInternalDnsName() {
    h = LbApiHarness.start(dir);
    LoadBalancer lb = h.elb.createLoadBalancer(b -> b.name("inside").scheme(LoadBalancerSchemeEnum.INTERNAL)
        .ipAddressType(IpAddressType.DUALSTACK)).loadBalancers().get(0);

    assertThat(lb.availabilityZones()).extracting(AvailabilityZone::zoneName).containsExactly("zone-a", "zone-b");
    assertThat(lb.scheme()).isEqualTo(LoadBalancerSchemeEnum.INTERNAL);
    assertThat(lb.ipAddressType()).isEqualTo(IpAddressType.DUALSTACK);
    assertThat(lb.dnsName()).isEqualTo("internal-inside.us-east-1.elb.localhost");
  }

  @Test
  void createLoadBalancer_again_withTheSameSettings_answersTheSameLoadBalancer() {
    h = LbApiHarness.start(dir);
    String first = h.createLoadBalancer("web");
    String second = h.createLoadBalancer("web");

    assertThat(second).isEqualTo(first);
    assertThat(h.elb.describeLoadBalancers().loadBalancers()).hasSize(1);
  }

  @Test
  void createLoadBalancer_withTheNameOfOneWithOtherSettings_isDuplicateLoadBalancerName() {
    h = LbApiHarness.start(dir);
    h.createLoadBalancer("web");

    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").scheme(LoadBalancerSchemeEnum.INTERNAL)),
        "DuplicateLoadBalancerName");
  }

  /** DNS names do not tell letter cases apart: two load balancers whose names differ only in case would share one. */
  @Test
  void createLoadBalancer_withTheNameOfAnotherInOtherLetterCase_isDuplicateLoadBalancerName() {
    h = LbApiHarness.start(dir);
    h.createLoadBalancer("web");

    assertThat(h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("WEB")), "DuplicateLoadBalancerName")
        .awsErrorDetails().errorMessage()).startsWith("A load balancer named 'web' exists");
  }

  @ParameterizedTest
  @ValueSource(strings = {"-web", "web-", "internal-web", "my_lb", "abcdefghijklmnopqrstuvwxyz0123456"})
  void createLoadBalancer_withABadName_isValidationError(String name) {
    h = LbApiHarness.start(dir);
    assertThat(h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name(name)), "ValidationError"))
        .hasMessageContaining("'" + name + "' is not a load balancer name");
  }

  @Test
  void createLoadBalancer_withSubnetsThatAreNoZones_orTwiceTheSameZone_orOneZoneOfTwo_isRefused() {
    h = LbApiHarness.start(dir);
    assertThat(h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").subnets("zone-a", "subnet-0abc")),
        "SubnetNotFound")).hasMessageContaining("'subnet-0abc'").hasMessageContaining("subnet-zone-a");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").subnets("zone-a", "subnet-zone-a")),
        "InvalidConfigurationRequest");
    assertThat(h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").subnets("zone-a")),
        "ValidationError")).hasMessageContaining("At least two subnets");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").subnets("zone-a")
        .subnetMappings(m -> m.subnetId("zone-b"))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web")
        .subnetMappings(m -> m.subnetId("zone-a").allocationId("eipalloc-1"), m -> m.subnetId("zone-b"))),
        "InvalidConfigurationRequest");
  }

  @Test
  void createLoadBalancer_withSubnetMappings_usesTheirZones() {
    h = LbApiHarness.start(dir);
    LoadBalancer lb = h.elb.createLoadBalancer(b -> b.name("web")
        .subnetMappings(m -> m.subnetId("subnet-zone-b"), m -> m.subnetId("zone-a"))).loadBalancers().get(0);
    assertThat(lb.availabilityZones()).extracting(AvailabilityZone::zoneName).containsExactly("zone-a", "zone-b");
  }

  @Test
  void createLoadBalancer_ofAnotherTypeOrWithUnknownEnums_isValidationError() {
    h = LbApiHarness.start(dir);
    assertThat(h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("gwlb").type(LoadBalancerTypeEnum.GATEWAY)),
        "ValidationError")).hasMessageContaining("gateway load balancers are not available");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").scheme("private")), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").ipAddressType("ipv6")), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").scheme(LoadBalancerSchemeEnum.INTERNAL)
        .ipAddressType(IpAddressType.DUALSTACK_WITHOUT_PUBLIC_IPV4)), "InvalidConfigurationRequest");
  }

  @Test
  void createLoadBalancer_withDuplicateOrTooManyTags_isRefused() {
    h = LbApiHarness.start(dir);
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").tags(Tag.builder().key("a").value("1").build(),
        Tag.builder().key("a").value("2").build())), "DuplicateTagKeys");
    List<Tag> tags = IntStream.rangeClosed(1, 51).mapToObj(i -> Tag.builder().key("k" + i).value("v").build()).toList();
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").tags(tags)), "TooManyTags");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("web").tags(Tag.builder().key("aws:x").build())),
        "ValidationError");
  }

  @Test
  void createLoadBalancer_beyondFiftyLoadBalancers_isTooManyLoadBalancers_butNetworkOnesCountApart() {
    StringBuilder seed = new StringBuilder("load-balancers:\n");
    IntStream.rangeClosed(1, 50).forEach(i -> seed.append("  - {name: lb").append(i).append("}\n"));
    h = LbApiHarness.start(dir, seed.toString(), 1);
    assertThat(h.elb.describeLoadBalancers().loadBalancers()).hasSize(50);

    h.refusedUnchanged(() -> h.createLoadBalancer("one-more"), "TooManyLoadBalancers");
    h.elb.createLoadBalancer(b -> b.name("net").type(LoadBalancerTypeEnum.NETWORK).subnets("zone-a"));
    assertThat(h.elb.describeLoadBalancers().loadBalancers()).hasSize(51);
  }

  /**
   * DescribeAccountLimits lists the quotas Fulcrum enforces at the values it enforces them (the
   * tests of each refusal use the same values), under AWS's names, paged; none of a gateway load
   * balancer's.
   */
  @Test
  void describeAccountLimits_listsTheQuotasEnforced_paged() {
    h = LbApiHarness.start(dir);

    List<Limit> all = h.elb.describeAccountLimits(b -> { }).limits();
    assertThat(all).extracting(Limit::name, Limit::max).containsExactly(
        tuple("application-load-balancers", "50"),
        tuple("condition-values-per-alb-rule", "5"),
        tuple("condition-wildcards-per-alb-rule", "5"),
        tuple("listeners-per-application-load-balancer", "50"),
        tuple("listeners-per-network-load-balancer", "50"),
        tuple("network-load-balancers", "50"),
        tuple("rules-per-application-load-balancer", "100"),
        tuple("target-groups", "3000"),
        tuple("target-groups-per-action-on-application-load-balancer", "5"),
        tuple("target-groups-per-action-on-network-load-balancer", "5"),
        tuple("target-groups-per-application-load-balancer", "100"),
        tuple("targets-per-application-load-balancer", "1000"),
        tuple("targets-per-network-load-balancer", "3000"));

    DescribeAccountLimitsResponse first = h.elb.describeAccountLimits(b -> b.pageSize(10));
    DescribeAccountLimitsResponse rest = h.elb.describeAccountLimits(b -> b.marker(first.nextMarker()));
    assertThat(first.limits()).hasSize(10);
    assertThat(rest.nextMarker()).isNull();
    assertThat(Stream.concat(first.limits().stream(), rest.limits().stream()).toList())
        .isEqualTo(all);
    refused(() -> h.elb.describeAccountLimits(b -> b.pageSize(401)), "ValidationError");
  }

  @Test
  void describeLoadBalancers_byArnsOrNames_andUnknownOnesAreLoadBalancerNotFound() {
    h = LbApiHarness.start(dir);
    String a = h.createLoadBalancer("a");
    String b = h.createLoadBalancer("b");
    h.createLoadBalancer("c");

    assertThat(h.elb.describeLoadBalancers(r -> r.loadBalancerArns(b, a)).loadBalancers())
        .extracting(LoadBalancer::loadBalancerName).containsExactly("b", "a");
    assertThat(h.elb.describeLoadBalancers(r -> r.names("c")).loadBalancers())
        .extracting(LoadBalancer::loadBalancerName).containsExactly("c");
    refused(() -> h.elb.describeLoadBalancers(r -> r.names("a", "nope")), "LoadBalancerNotFound");
    refused(() -> h.elb.describeLoadBalancers(r -> r.loadBalancerArns(a.replace("/a/", "/x/"))), "LoadBalancerNotFound");
    refused(() -> h.elb.describeLoadBalancers(r -> r.loadBalancerArns(a).names("a")), "ValidationError");
  }

  @Test
  void describeLoadBalancers_pagesWithMarkers_andGivesNoNextMarkerOnTheLastPage() {
    h = LbApiHarness.start(dir);
    List.of("a", "b", "c", "d", "e").forEach(h::createLoadBalancer);

    List<String> seen = new ArrayList<>();
    DescribeLoadBalancersResponse page = h.elb.describeLoadBalancers(r -> r.pageSize(2));
    int pages = 1;
    seen.addAll(page.loadBalancers().stream().map(LoadBalancer::loadBalancerName).toList());
    while (page.nextMarker() != null) {
      String marker = page.nextMarker();
      page = h.elb.describeLoadBalancers(r -> r.pageSize(2).marker(marker));
      seen.addAll(page.loadBalancers().stream().map(LoadBalancer::loadBalancerName).toList());
      pages++;
    }
    assertThat(pages).isEqualTo(3);
    assertThat(seen).containsExactly("a", "b", "c", "d", "e");
    assertThat(h.elb.describeLoadBalancers(r -> r.pageSize(5)).nextMarker()).isNull();
    assertThat(h.elb.describeLoadBalancersPaginator(r -> r.pageSize(1)).loadBalancers())
        .extracting(LoadBalancer::loadBalancerName).containsExactly("a", "b", "c", "d", "e");
    refused(() -> h.elb.describeLoadBalancers(r -> r.pageSize(0)), "ValidationError");
    refused(() -> h.elb.describeLoadBalancers(r -> r.pageSize(401)), "ValidationError");
    refused(() -> h.elb.describeLoadBalancers(r -> r.marker("not-a-marker")), "ValidationError");
  }

  @Test
  void deleteLoadBalancer_removesIt_andItsListenersStopAccepting() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    h.createListener(lb, port, forward(h.tg("blue")));
    assertThat(body("127.0.0.1", port, "/")).isEqualTo("blue");

    h.elb.deleteLoadBalancer(b -> b.loadBalancerArn(lb));

    assertThat(h.elb.describeLoadBalancers().loadBalancers()).isEmpty();
    assertThat(h.resources().tags()).isEmpty();
    awaitRefused("127.0.0.1", port);
    awaitRefused("127.0.0.2", port);
    // The target groups stay, free to serve another load balancer.
    assertThat(h.resources().targetGroups()).hasSize(2);
  }

  @Test
  void deleteLoadBalancer_thatDoesNotExist_succeeds_butAMalformedArnIsValidationError() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    h.elb.deleteLoadBalancer(b -> b.loadBalancerArn(lb));
    h.elb.deleteLoadBalancer(b -> b.loadBalancerArn(lb));

    refused(() -> h.elb.deleteLoadBalancer(b -> b.loadBalancerArn("web")), "ValidationError");
  }

  @Test
  void deleteLoadBalancer_withDeletionProtection_isOperationNotPermitted_andItKeepsServing() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    h.createListener(lb, port, forward(h.tg("blue")));
    h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb)
        .attributes(a -> a.key("deletion_protection.enabled").value("true")));

    h.refusedUnchanged(() -> h.elb.deleteLoadBalancer(b -> b.loadBalancerArn(lb)), "OperationNotPermitted");
    assertThat(body("127.0.0.2", port, "/")).isEqualTo("blue");
  }

  @Test
  void describeLoadBalancerAttributes_givesEveryAttributeWithItsDefault() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");

    List<LoadBalancerAttribute> attributes = h.elb.describeLoadBalancerAttributes(b -> b.loadBalancerArn(lb))
        .attributes();
    assertThat(attributes).extracting(LoadBalancerAttribute::key).contains("deletion_protection.enabled",
        "idle_timeout.timeout_seconds", "routing.http2.enabled", "routing.http.xff_header_processing.mode",
        "routing.http.desync_mitigation_mode", "client_keep_alive.seconds", "load_balancing.cross_zone.enabled");
    assertThat(attribute(attributes, "idle_timeout.timeout_seconds")).isEqualTo("60");
    assertThat(attribute(attributes, "deletion_protection.enabled")).isEqualTo("false");
    refused(() -> h.elb.describeLoadBalancerAttributes(b -> b.loadBalancerArn(lb.replace("/web/", "/nope/"))),
        "LoadBalancerNotFound");
  }

  @Test
  void modifyLoadBalancerAttributes_changesWhatIsGiven_andAnswersTheWholeSet() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int all = h.elb.describeLoadBalancerAttributes(b -> b.loadBalancerArn(lb)).attributes().size();

    List<LoadBalancerAttribute> answer = h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb).attributes(
        a -> a.key("idle_timeout.timeout_seconds").value("120"),
        a -> a.key("routing.http.xff_header_processing.mode").value("remove"))).attributes();

    assertThat(answer).hasSize(all);
    assertThat(attribute(answer, "idle_timeout.timeout_seconds")).isEqualTo("120");
    assertThat(attribute(answer, "routing.http.xff_header_processing.mode")).isEqualTo("remove");
    assertThat(attribute(answer, "routing.http2.enabled")).isEqualTo("true");
    assertThat(h.elb.describeLoadBalancerAttributes(b -> b.loadBalancerArn(lb)).attributes()).isEqualTo(answer);
    assertThat(h.resources().loadBalancers().get(0).attributes().idleTimeoutSeconds()).isEqualTo(120);
  }

  @Test
  void modifyLoadBalancerAttributes_withABadValueOrKey_isValidationError_andChangesNothing() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");

    assertThat(h.refusedUnchanged(() -> h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb).attributes(
        a -> a.key("routing.http2.enabled").value("false"), a -> a.key("idle_timeout.timeout_seconds").value("4001"))),
        "ValidationError")).hasMessageContaining("idle_timeout.timeout_seconds").hasMessageContaining("1-4000");
    assertThat(h.refusedUnchanged(() -> h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb)
        .attributes(a -> a.key("idle_timeout").value("5"))), "ValidationError"))
        .hasMessageContaining("'idle_timeout' is not recognized");
    List<LoadBalancerAttribute> many = IntStream.rangeClosed(1, 21).mapToObj(i -> LoadBalancerAttribute.builder()
        .key("idle_timeout.timeout_seconds").value(String.valueOf(i)).build()).toList();
    h.refusedUnchanged(() -> h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb).attributes(many)),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb + "0")
        .attributes(a -> a.key("idle_timeout.timeout_seconds").value("5"))), "LoadBalancerNotFound");
    assertThat(h.refusedUnchanged(() -> h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb)
        .attributes(a -> a.key("health_check_logs.s3.enabled").value("true"))), "ValidationError"))
        .hasMessageContaining("a bucket is required while health_check_logs.s3.enabled is true");
    assertThat(h.refusedUnchanged(() -> h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb)
        .attributes(a -> a.key("connection_logs.s3.enabled").value("true"))), "ValidationError"))
        .hasMessageContaining("a bucket is required while connection_logs.s3.enabled is true");
    List<LoadBalancerAttribute> logs = h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb).attributes(
        a -> a.key("health_check_logs.s3.enabled").value("true"), a -> a.key("health_check_logs.s3.bucket")
            .value("hc-logs"))).attributes();
    assertThat(attribute(logs, "health_check_logs.s3.enabled")).isEqualTo("true");
    assertThat(h.resources().loadBalancers().get(0).attributes().healthCheckLogBucket()).isEqualTo("hc-logs");
    List<LoadBalancerAttribute> connections = h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb).attributes(
        a -> a.key("connection_logs.s3.enabled").value("true"), a -> a.key("connection_logs.s3.bucket")
            .value("conn-logs"), a -> a.key("connection_logs.s3.prefix").value("edge"))).attributes();
    assertThat(attribute(connections, "connection_logs.s3.enabled")).isEqualTo("true");
    assertThat(h.resources().loadBalancers().get(0).attributes().connectionLogBucket()).isEqualTo("conn-logs");
    assertThat(h.resources().loadBalancers().get(0).attributes().connectionLogPrefix()).isEqualTo("edge");
  }

  @Test
  void createdLoadBalancer_andItsCreationTime_surviveARestart() {
    h = LbApiHarness.start(dir);
    LoadBalancer created = h.elb.createLoadBalancer(b -> b.name("web")).loadBalancers().get(0);
    h.close();

    h = LbApiHarness.start(dir);
    assertThat(h.elb.describeLoadBalancers().loadBalancers()).containsExactly(created);
  }

  @Test
  void aLoadBalancerTheConfigFileSeeded_wasCreatedWhenTheApiTookItOver_andKeepsThatTime() {
    h = LbApiHarness.start(dir, "load-balancers:\n  - {name: seeded}\n", 1);
    LoadBalancer seeded = h.elb.describeLoadBalancers().loadBalancers().get(0);
    assertThat(seeded.createdTime()).as("the state file was seeded then").isEqualTo(Instant.ofEpochMilli(VirtualTime.START));
    h.close();

    h = LbApiHarness.start(dir);
    assertThat(h.elb.describeLoadBalancers().loadBalancers()).containsExactly(seeded);
  }

  @Test
  void everyChange_isOperationNotPermitted_whenTheConfigFileOwnsTheResources() {
    int port = Ports.free();
    try (Gateway gateway = Gateway.start(TestVertx.create(), ElbClients.CREDENTIALS_YAML + """
        load-balancers:
          - name: demo
            listeners: [{protocol: HTTP, port: %d, default-actions: [{type: fixed-response, status-code: 200}]}]
        """.formatted(port));
        ElasticLoadBalancingV2Client elb = ElbClients.client(gateway.controlPort())) {
      String lb = elb.describeLoadBalancers().loadBalancers().get(0).loadBalancerArn();

      refused(() -> elb.createLoadBalancer(b -> b.name("web")), "OperationNotPermitted");
      refused(() -> elb.deleteLoadBalancer(b -> b.loadBalancerArn(lb)), "OperationNotPermitted");
      refused(() -> elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(lb)
          .attributes(a -> a.key("idle_timeout.timeout_seconds").value("5"))), "OperationNotPermitted");
      refused(() -> elb.setSubnets(b -> b.loadBalancerArn(lb).subnets("zone-a")), "OperationNotPermitted");
      refused(() -> elb.setIpAddressType(b -> b.loadBalancerArn(lb).ipAddressType(IpAddressType.DUALSTACK)),
          "OperationNotPermitted");
      refused(() -> elb.setSecurityGroups(b -> b.loadBalancerArn(lb).securityGroups("sg-1")), "OperationNotPermitted");
      assertThat(elb.describeLoadBalancers().loadBalancers()).extracting(LoadBalancer::loadBalancerName)
          .containsExactly("demo");
      assertThat(elb.describeLoadBalancers().loadBalancers().get(0).createdTime()).isNull();
    }
  }
}
