package io.fulcrum.api;

import static io.fulcrum.api.ApiGateway.assertAwsError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroupAttribute;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * DescribeTargetGroupAttributes and ModifyTargetGroupAttributes through the real AWS SDK: the full
 * set in AWS's order, the full set after a change (SPEC §12.3), and the constraints of SPEC §3.2
 * with their codes; a refused change changes nothing.
 */
class TargetGroupAttributesApiTest {

  @TempDir
  Path data;

  private ApiGateway api;
  private String arn;

  @BeforeEach
  void start() {
    api = ApiGateway.start(data);
    arn = api.createIpGroup("attrs");
  }

  @AfterEach
  void stop() {
    api.close();
  }

  private Map<String, String> describe(String groupArn) {
    Map<String, String> out = new LinkedHashMap<>();
    api.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(groupArn)).attributes()
        .forEach(a -> out.put(a.key(), a.value()));
    return out;
  }

  private static TargetGroupAttribute attr(String key, String value) {
    return TargetGroupAttribute.builder().key(key).value(value).build();
  }

  private void refused(String code, String message, TargetGroupAttribute... attributes) {
    Map<String, String> before = describe(arn);
    assertAwsError(() -> api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn).attributes(attributes)),
        code, message);
    assertThat(describe(arn)).isEqualTo(before);
  }

  @Test
  void describe_givesEveryAttributeWithDefaults_inAwsOrder() {
    assertThat(api.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(arn)).attributes())
        .extracting(TargetGroupAttribute::key, TargetGroupAttribute::value).containsExactly(
            tuple("stickiness.enabled", "false"),
            tuple("deregistration_delay.timeout_seconds", "300"),
            tuple("stickiness.app_cookie.cookie_name", ""),
            tuple("stickiness.type", "lb_cookie"),
            tuple("stickiness.lb_cookie.duration_seconds", "86400"),
            tuple("slow_start.duration_seconds", "0"),
            tuple("stickiness.app_cookie.duration_seconds", "86400"),
            tuple("load_balancing.algorithm.type", "round_robin"),
            tuple("load_balancing.algorithm.anomaly_mitigation", "off"),
            tuple("load_balancing.cross_zone.enabled", "use_load_balancer_configuration"),
            tuple("target_group_health.dns_failover.minimum_healthy_targets.count", "1"),
            tuple("target_group_health.dns_failover.minimum_healthy_targets.percentage", "off"),
            tuple("target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "1"),
            tuple("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "off"));
  }

  @Test
  void modify_answersWithTheFullSetAfterTheChange_asInTheSpecExample() {
    List<TargetGroupAttribute> after = api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn).attributes(
        attr("deregistration_delay.timeout_seconds", "600"), attr("stickiness.enabled", "true"),
        attr("stickiness.lb_cookie.duration_seconds", "3600"))).attributes();

    assertThat(after).extracting(TargetGroupAttribute::key, TargetGroupAttribute::value).containsExactly(
        tuple("stickiness.enabled", "true"),
        tuple("deregistration_delay.timeout_seconds", "600"),
        tuple("stickiness.app_cookie.cookie_name", ""),
        tuple("stickiness.type", "lb_cookie"),
        tuple("stickiness.lb_cookie.duration_seconds", "3600"),
        tuple("slow_start.duration_seconds", "0"),
        tuple("stickiness.app_cookie.duration_seconds", "86400"),
        tuple("load_balancing.algorithm.type", "round_robin"),
        tuple("load_balancing.algorithm.anomaly_mitigation", "off"),
        tuple("load_balancing.cross_zone.enabled", "use_load_balancer_configuration"),
        tuple("target_group_health.dns_failover.minimum_healthy_targets.count", "1"),
        tuple("target_group_health.dns_failover.minimum_healthy_targets.percentage", "off"),
        tuple("target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "1"),
        tuple("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "off"));
    assertThat(describe(arn)).containsEntry("deregistration_delay.timeout_seconds", "600");
    // The registry routes by it: the group's resolved attributes changed too.
    assertThat(api.gateway.fulcrum().registry().resources().targetGroup(arn).orElseThrow().attributes()
        .lbCookieDurationSeconds()).isEqualTo(3600);
  }

  @Test
  void modify_bothFailoverThresholdsAt50Percent_asTheSeedCommandSets() {
    Map<String, String> after = new LinkedHashMap<>();
    api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn).attributes(
        attr("target_group_health.dns_failover.minimum_healthy_targets.percentage", "50"),
        attr("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "50")))
        .attributes().forEach(a -> after.put(a.key(), a.value()));

    assertThat(after).containsEntry("target_group_health.dns_failover.minimum_healthy_targets.percentage", "50")
        .containsEntry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "50")
        .hasSize(14);
  }

  @Test
  void algorithmConstraints_areInvalidConfigurationRequest() {
    refused("InvalidConfigurationRequest",
        "Anomaly mitigation is supported only with the weighted_random load balancing algorithm",
        attr("load_balancing.algorithm.anomaly_mitigation", "on"));
    refused("InvalidConfigurationRequest", "Slow start mode is not supported with the least outstanding requests algorithm",
        attr("load_balancing.algorithm.type", "least_outstanding_requests"), attr("slow_start.duration_seconds", "30"));
    refused("InvalidConfigurationRequest", "The weighted random routing algorithm can not be used with slow start mode",
        attr("load_balancing.algorithm.type", "weighted_random"), attr("slow_start.duration_seconds", "30"));

    assertThat(api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn).attributes(
        attr("load_balancing.algorithm.type", "weighted_random"),
        attr("load_balancing.algorithm.anomaly_mitigation", "on"))).attributes())
        .contains(attr("load_balancing.algorithm.anomaly_mitigation", "on"));
  }

  @Test
  void stickinessConstraints_haveTheirCodes() {
    refused("InvalidConfigurationRequest",
        "You must set an application cookie name to enable stickiness of type 'app_cookie'",
        attr("stickiness.enabled", "true"), attr("stickiness.type", "app_cookie"));
    refused("InvalidConfigurationRequest", "Stickiness type 'source_ip' is not supported for target groups with the HTTP"
        + " protocol", attr("stickiness.type", "source_ip"));
    refused("ValidationError", "stickiness.app_cookie.cookie_name: 'AWSALBAPP-1' is not valid (an"
        + " application cookie name cannot start with AWSALB, AWSALBAPP or AWSALBTG)", attr("stickiness.app_cookie.cookie_name", "AWSALBAPP-1"));
  }

  @Test
  void valueRanges_areValidationErrors() {
    refused("ValidationError", "'deregistration_delay.timeout_seconds' value '3601' must be between '0-3600' inclusive",
        attr("deregistration_delay.timeout_seconds", "3601"));
    refused("ValidationError", "slow_start.duration_seconds: '10' is not valid (expected 0 (off) or 30-900)",
        attr("slow_start.duration_seconds", "10"));
    refused("ValidationError", "stickiness.lb_cookie.duration_seconds: '0' is not valid (expected 1-604800)",
        attr("stickiness.lb_cookie.duration_seconds", "0"));
    refused("ValidationError", "Target group attribute key 'waf.fail_open.enabled' is not recognized",
        attr("waf.fail_open.enabled", "true"));
    refused("ValidationError", "1 validation error detected: Value 'bad key' at 'attributes.1.member.key' failed to"
        + " satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9._]+$", attr("bad key", "1"));
  }

  @Test
  void failoverThresholds_dnsMustNotBeBelowRouting() {
    refused("InvalidConfigurationRequest", "the DNS failover threshold (1) must be greater than or equal to the routing"
        + " failover threshold (2)",
        attr("target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "2"));
  }

  @Test
  void crossZoneOff_isRefusedWhileATargetIsRegisteredInZoneAll() {
    api.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id("10.0.0.1").availabilityZone("all")));

    refused("InvalidConfigurationRequest", "a target in zone 'all' cannot be registered while"
        + " load_balancing.cross_zone.enabled is false (expected one of: zone-a, zone-b)",
        attr("load_balancing.cross_zone.enabled", "false"));
  }

  @Test
  void lambdaGroups_haveTheirOwnSet_andNoDeregistrationDelay() {
    String fn = api.elb.createTargetGroup(b -> b.name("fn").targetType(TargetTypeEnum.LAMBDA)).targetGroups().get(0)
        .targetGroupArn();

    assertThat(describe(fn)).containsExactly(Map.entry("stickiness.enabled", "false"),
        Map.entry("stickiness.type", "lb_cookie"), Map.entry("stickiness.lb_cookie.duration_seconds", "86400"),
        Map.entry("lambda.multi_value_headers.enabled", "false"));
    assertAwsError(() -> api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(fn).attributes(
            attr("deregistration_delay.timeout_seconds", "10"))), "InvalidConfigurationRequest",
        "A target group with target type 'lambda' does not support the attribute deregistration_delay.timeout_seconds");
  }

  @Test
  void targetOptimizerGroup_listsFulcrumsQueueKeyAfterAwsKeys_andOtherGroupsRefuseIt() {
    String optimized = api.elb.createTargetGroup(b -> b.name("gpu").protocol("HTTP").port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.IP).targetControlPort(3000)).targetGroups().get(0).targetGroupArn();
    Map<String, String> plain = describe(arn);
    Map<String, String> withOptimizer = describe(optimized);
    assertThat(plain).doesNotContainKey("fulcrum.target_optimizer.queue_timeout_ms");
    assertThat(List.copyOf(withOptimizer.keySet())).hasSize(plain.size() + 1).endsWith(
        "fulcrum.target_optimizer.queue_timeout_ms").startsWith(plain.keySet().toArray(String[]::new));
    assertThat(withOptimizer).containsEntry("fulcrum.target_optimizer.queue_timeout_ms", "0");

    api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(optimized)
        .attributes(attr("fulcrum.target_optimizer.queue_timeout_ms", "2500")));
    assertThat(describe(optimized)).containsEntry("fulcrum.target_optimizer.queue_timeout_ms", "2500");
    assertAwsError(() -> api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(optimized)
        .attributes(attr("fulcrum.target_optimizer.queue_timeout_ms", "60001"))), "ValidationError",
        "fulcrum.target_optimizer.queue_timeout_ms: '60001' is not valid (expected 0-60000)");
    refused("InvalidConfigurationRequest", "fulcrum.target_optimizer.queue_timeout_ms applies only to target groups"
        + " with a target control port (the target optimizer)", attr("fulcrum.target_optimizer.queue_timeout_ms", "100"));
  }

  @Test
  void unknownGroup_isTargetGroupNotFound_andAttributesAreRequired() {
    assertAwsError(() -> api.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(arn + "0")), "TargetGroupNotFound",
        "One or more target groups not found");
    assertAwsError(() -> api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn + "0")
        .attributes(attr("stickiness.enabled", "true"))), "TargetGroupNotFound", "One or more target groups not found");
    assertAwsError(() -> api.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn)), "ValidationError",
        "1 validation error detected: Value null at 'attributes' failed to satisfy constraint: Member must not be null");
  }
}
