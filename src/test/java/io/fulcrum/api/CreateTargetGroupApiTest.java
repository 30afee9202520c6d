package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.VPC;
import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.CreateTargetGroupRequest;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Tag;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/** CreateTargetGroup through the real AWS SDK: defaults, every parameter, idempotency and each refusal. */
class CreateTargetGroupApiTest {

  @TempDir
  Path data;

  private ApiGateway api;
  private List<TargetGroup> before;

  @BeforeEach
  void start() {
    api = ApiGateway.start(data);
    before = api.allGroups();
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private CreateTargetGroupRequest.Builder ip(String name) {
    return CreateTargetGroupRequest.builder().name(name).protocol("HTTP").port(80).vpcId(VPC).targetType("ip");
  }

  /** The call fails with exactly this code and message, and the groups are as they were. */
  private void refused(CreateTargetGroupRequest.Builder request, String code, String message) {
    assertAwsError(() -> api.elb.createTargetGroup(request.build()), code, message);
    assertThat(api.allGroups()).isEqualTo(before);
  }

  @Test
  void create_returnsTheGroupWithTheAlbDefaults() {
    TargetGroup g = api.elb.createTargetGroup(ip("api-web").build()).targetGroups().get(0);

    assertThat(g.targetGroupArn()).matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/api-web/[0-9a-f]{16}");
    assertThat(g.targetGroupName()).isEqualTo("api-web");
    assertThat(g.protocolAsString()).isEqualTo("HTTP");
    assertThat(g.port()).isEqualTo(80);
    assertThat(g.vpcId()).isEqualTo(VPC);
    assertThat(g.healthCheckProtocolAsString()).isEqualTo("HTTP");
    assertThat(g.healthCheckPort()).isEqualTo("traffic-port");
    assertThat(g.healthCheckEnabled()).isTrue();
    assertThat(g.healthCheckIntervalSeconds()).isEqualTo(30);
    assertThat(g.healthCheckTimeoutSeconds()).isEqualTo(5);
    assertThat(g.healthyThresholdCount()).isEqualTo(5);
    assertThat(g.unhealthyThresholdCount()).isEqualTo(2);
    assertThat(g.healthCheckPath()).isEqualTo("/");
    assertThat(g.matcher().httpCode()).isEqualTo("200");
    assertThat(g.matcher().grpcCode()).isNull();
    assertThat(g.loadBalancerArns()).isEmpty();
    assertThat(g.targetTypeAsString()).isEqualTo("ip");
    assertThat(g.protocolVersion()).isEqualTo("HTTP1");
    assertThat(g.ipAddressTypeAsString()).isEqualTo("ipv4");
    assertThat(g.targetControlPort()).isNull();
    assertThat(api.group("api-web")).isEqualTo(g);
  }

  @Test
  void create_grpcGroup_getsTheGrpcHealthCheckDefaults() {
    refused(ip("x").protocolVersion("GRPC").matcher(m -> m.httpCode("200")), "InvalidConfigurationRequest",
        "target groups with protocol version GRPC use a grpc-code matcher, not http-code");
    TargetGroup g = api.elb.createTargetGroup(ip("api-grpc").protocolVersion("GRPC").build()).targetGroups().get(0);

    assertThat(g.protocolVersion()).isEqualTo("GRPC");
    assertThat(g.healthCheckPath()).isEqualTo("/AWS.ALB/healthcheck");
    assertThat(g.matcher().grpcCode()).isEqualTo("12");
    assertThat(g.matcher().httpCode()).isNull();
    assertThat(api.elb.createTargetGroup(ip("api-h2").protocolVersion("HTTP2").build()).targetGroups().get(0)
        .protocolVersion()).isEqualTo("HTTP2");
  }

  @Test
  void create_takesEveryParameter_andReportsThem() {
    TargetGroup g = api.elb.createTargetGroup(b -> b.name("full").protocol("HTTPS").port(8443).vpcId(VPC)
        .targetType(TargetTypeEnum.INSTANCE).protocolVersion("HTTP1").ipAddressType("ipv4")
        .healthCheckProtocol("HTTP").healthCheckPort("8080").healthCheckEnabled(true).healthCheckPath("/health?deep=1")
        .healthCheckIntervalSeconds(10).healthCheckTimeoutSeconds(3).healthyThresholdCount(3).unhealthyThresholdCount(4)
        .matcher(m -> m.httpCode("200-299,302")).targetControlPort(7001)
        .tags(Tag.builder().key("team").value("web").build(), Tag.builder().key("empty").value("").build()))
        .targetGroups().get(0);

    assertThat(g.protocolAsString()).isEqualTo("HTTPS");
    assertThat(g.port()).isEqualTo(8443);
    assertThat(g.targetTypeAsString()).isEqualTo("instance");
    assertThat(g.healthCheckPort()).isEqualTo("8080");
    assertThat(g.healthCheckPath()).isEqualTo("/health?deep=1");
    assertThat(List.of(g.healthCheckIntervalSeconds(), g.healthCheckTimeoutSeconds(), g.healthyThresholdCount(),
        g.unhealthyThresholdCount())).containsExactly(10, 3, 3, 4);
    assertThat(g.matcher().httpCode()).isEqualTo("200-299,302");
    assertThat(g.targetControlPort()).isEqualTo(7001);
    assertThat(api.elb.describeTags(b -> b.resourceArns(g.targetGroupArn())).tagDescriptions().get(0).tags())
        .extracting(Tag::key, Tag::value).containsExactly(
            org.assertj.core.groups.Tuple.tuple("team", "web"), org.assertj.core.groups.Tuple.tuple("empty", ""));
  }

  @Test
  void create_isIdempotent_sameSettingsGiveBackTheGroup_otherSettingsAreDuplicateTargetGroupName() {
    String first = api.elb.createTargetGroup(ip("twice").healthCheckPath("/h").build()).targetGroups().get(0)
        .targetGroupArn();
    String second = api.elb.createTargetGroup(ip("twice").healthCheckPath("/h").build()).targetGroups().get(0)
        .targetGroupArn();

    assertThat(second).isEqualTo(first);
    before = api.allGroups();
    refused(ip("twice").healthCheckPath("/other"), "DuplicateTargetGroupName",
        "A target group with the specified name already exists.");
    refused(ip("web"), "DuplicateTargetGroupName", "A target group with the specified name already exists.");
  }

  @Test
  void lambdaGroup_omitsProtocolPortVpcAndHealthCheckPort_andHasLambdaDefaults() {
    TargetGroup g = api.elb.createTargetGroup(b -> b.name("fn").targetType(TargetTypeEnum.LAMBDA)).targetGroups().get(0);

    assertThat(g.protocol()).isNull();
    assertThat(g.port()).isNull();
    assertThat(g.vpcId()).isNull();
    assertThat(g.healthCheckPort()).isNull();
    assertThat(g.protocolVersion()).isNull();
    assertThat(g.healthCheckEnabled()).isFalse();
    assertThat(g.healthCheckIntervalSeconds()).isEqualTo(35);
    assertThat(g.healthCheckTimeoutSeconds()).isEqualTo(30);
    assertThat(g.unhealthyThresholdCount()).isEqualTo(5);
    assertThat(g.targetTypeAsString()).isEqualTo("lambda");
  }

  @Test
  void lambdaGroup_refusesProtocolPortAndVpcId_withMotosMessages() {
    refused(CreateTargetGroupRequest.builder().name("fn").targetType("lambda").protocol("HTTP"), "ValidationError",
        "Protocol cannot be specified for target groups with target type 'lambda'");
    refused(CreateTargetGroupRequest.builder().name("fn").targetType("lambda").port(8080), "ValidationError",
        "Port cannot be specified for target groups with target type 'lambda'");
    refused(CreateTargetGroupRequest.builder().name("fn").targetType("lambda").vpcId("non-existing"), "ValidationError",
        "VPC ID cannot be specified for target groups with target type 'lambda'");
    refused(CreateTargetGroupRequest.builder().name("fn").targetType("lambda").targetControlPort(3000),
        "ValidationError", "Target control port cannot be specified for target groups with target type 'lambda'");
  }

  @Test
  void instanceAndIpGroups_needProtocolPortAndTheDeploymentsVpc() {
    refused(CreateTargetGroupRequest.builder().name("x").port(80).vpcId(VPC), "ValidationError",
        "A protocol must be specified");
    refused(CreateTargetGroupRequest.builder().name("x").protocol("HTTP").vpcId(VPC), "ValidationError",
        "A port must be specified");
    refused(CreateTargetGroupRequest.builder().name("x").protocol("HTTP").port(80), "ValidationError",
        "A VPC ID must be specified");
    refused(ip("x").vpcId("vpc-0abc"), "ValidationError",
        "The VPC ID 'vpc-0abc' is not found (a Fulcrum deployment has one VPC: vpc-fulcrum)");
  }

  @Test
  void names_followAwsRules() {
    refused(ip("a".repeat(33)), "ValidationError",
        "Target group name '" + "a".repeat(33) + "' cannot be longer than '32' characters");
    refused(ip("bad_name"), "ValidationError",
        "Target group name 'bad_name' can only contain characters that are alphanumeric characters or hyphens(-)");
    refused(ip("-lead"), "ValidationError", "Target group name '-lead' cannot begin or end with '-'");
    refused(CreateTargetGroupRequest.builder().protocol("HTTP").port(80).vpcId(VPC), "ValidationError",
        "1 validation error detected: Value null at 'name' failed to satisfy constraint: Member must not be null");
    assertThat(api.elb.createTargetGroup(ip("A" + "b-".repeat(15) + "9").build()).targetGroups())
        .hasSize(1);
  }

  @Test
  void ranges_areRefusedInAwsWording() {
    refused(ip("x").healthCheckIntervalSeconds(301), "ValidationError",
        "1 validation error detected: Value '301' at 'healthCheckIntervalSeconds' failed to satisfy constraint:"
            + " Member must have value less than or equal to 300");
    refused(ip("x").healthCheckTimeoutSeconds(1), "ValidationError",
        "1 validation error detected: Value '1' at 'healthCheckTimeoutSeconds' failed to satisfy constraint:"
            + " Member must have value greater than or equal to 2");
    refused(ip("x").port(70000).healthyThresholdCount(11), "ValidationError",
        "2 validation errors detected: Value '70000' at 'port' failed to satisfy constraint: Member must have value"
            + " less than or equal to 65535; Value '11' at 'healthyThresholdCount' failed to satisfy constraint:"
            + " Member must have value less than or equal to 10");
    refused(ip("x").unhealthyThresholdCount(1), "ValidationError",
        "1 validation error detected: Value '1' at 'unhealthyThresholdCount' failed to satisfy constraint:"
            + " Member must have value greater than or equal to 2");
    refused(ip("x").healthCheckPath("/" + "p".repeat(1024)), "ValidationError",
        "1 validation error detected: Value '/" + "p".repeat(1024) + "' at 'healthCheckPath' failed to satisfy"
            + " constraint: Member must have length less than or equal to 1024");
    refused(ip("x").healthCheckPort("0"), "ValidationError",
        "1 validation error detected: Value '0' at 'healthCheckPort' failed to satisfy constraint: Member must be"
            + " traffic-port or a port number from 1 to 65535");
    refused(ip("x").targetControlPort(0), "ValidationError",
        "1 validation error detected: Value '0' at 'targetControlPort' failed to satisfy constraint: Member must"
            + " have value greater than or equal to 1");
  }

  @Test
  void enums_areRefusedInAwsWording_andUnsupportedValuesSaySo() {
    refused(ip("x").protocol("FTP"), "ValidationError",
        "1 validation error detected: Value 'FTP' at 'protocol' failed to satisfy constraint: Member must satisfy enum"
            + " value set: [HTTP, HTTPS, TCP, TLS, UDP, TCP_UDP, GENEVE, QUIC, TCP_QUIC]");
    refused(ip("x").targetType("container"), "ValidationError",
        "1 validation error detected: Value 'container' at 'targetType' failed to satisfy constraint: Member must"
            + " satisfy enum value set: [instance, ip, lambda, alb]");
    refused(ip("x").protocol("TCP_QUIC"), "ValidationError",
        "Protocol 'TCP_QUIC' target groups are not available yet (expected: HTTP, HTTPS, TCP, TLS, UDP or TCP_UDP)");
    refused(ip("x").targetType("instance").ipAddressType("ipv6"), "ValidationError",
        "Target groups with IP address type 'ipv6' only support targets of type 'ip'");
  }

  @Test
  void healthCheckRules_areTheModelsWithTheirCodes() {
    refused(ip("x").healthCheckIntervalSeconds(10).healthCheckTimeoutSeconds(10), "InvalidConfigurationRequest",
        "Health check timeout '10' must be smaller than the interval '10'");
    refused(ip("x").healthCheckEnabled(false), "InvalidConfigurationRequest",
        "health checks cannot be disabled for target groups with target type 'ip'");
    refused(ip("x").healthCheckProtocol("TCP"), "InvalidConfigurationRequest",
        "TCP health checks are not supported for target groups with the HTTP protocol (expected: HTTP or HTTPS)");
    refused(ip("x").matcher(m -> m.httpCode("600")), "ValidationError",
        "Matcher.HttpCode: '600' has a code outside 200-499 (expected codes 200-499 as a code, a list or a range,"
            + " e.g. \"200\", \"200,201\", \"200-499\")");
    refused(ip("x").healthCheckPath("health"), "ValidationError", "HealthCheckPath: 'health' must start with '/'");
  }

  @Test
  void tags_atMost50_eachKeyOnce_withinTheirLengths() {
    List<Tag> tags = new ArrayList<>();
    for (int i = 0; i < 51; i++) {
      tags.add(Tag.builder().key("k" + i).value("v").build());
    }
    refused(ip("x").tags(tags), "TooManyTags",
        "The quota for the number of tags that can be assigned to a target group has been reached (51 tags; at most 50)");
    refused(ip("x").tags(Tag.builder().key("k").value("1").build(), Tag.builder().key("k").value("2").build()),
        "DuplicateTagKeys", "Tag key was specified more than once: k");
    refused(ip("x").tags(Tag.builder().key("k".repeat(129)).value("v").build()), "ValidationError",
        "1 validation error detected: Value '" + "k".repeat(129) + "' at 'tags.1.member.key' failed to satisfy"
            + " constraint: Member must have length less than or equal to 128");
    refused(ip("x").tags(Tag.builder().key("k").value("v".repeat(257)).build()), "ValidationError",
        "1 validation error detected: Value '" + "v".repeat(257) + "' at 'tags.1.member.value' failed to satisfy"
            + " constraint: Member must have length less than or equal to 256");

    assertThat(api.elb.createTargetGroup(ip("x").tags(tags.subList(0, 50)).build()).targetGroups()).hasSize(1);
  }
}
