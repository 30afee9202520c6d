package io.fulcrum.model;

import static io.fulcrum.model.TargetGroupAttributes.ALGORITHM;
import static io.fulcrum.model.TargetGroupAttributes.ANOMALY_MITIGATION;
import static io.fulcrum.model.TargetGroupAttributes.APP_COOKIE_NAME;
import static io.fulcrum.model.TargetGroupAttributes.DEREGISTRATION_DELAY;
import static io.fulcrum.model.TargetGroupAttributes.DNS_FAILOVER_COUNT;
import static io.fulcrum.model.TargetGroupAttributes.DNS_FAILOVER_PERCENTAGE;
import static io.fulcrum.model.TargetGroupAttributes.ROUTING_FAILOVER_COUNT;
import static io.fulcrum.model.TargetGroupAttributes.ROUTING_FAILOVER_PERCENTAGE;
import static io.fulcrum.model.TargetGroupAttributes.SLOW_START;
import static io.fulcrum.model.TargetGroupAttributes.STICKINESS_ENABLED;
import static io.fulcrum.model.TargetGroupAttributes.STICKINESS_TYPE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.entry;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Target group attributes: defaults and order (SPEC §3.1), values, and the constraints of §3.2. */
class TargetGroupAttributesTest {

  private static final String IC = Problem.INVALID_CONFIGURATION;
  private static final String VE = Problem.VALIDATION_ERROR;

  record Result(TargetGroupAttributes attributes, List<Problem> problems) {
  }

  private static Result resolve(TargetType type, Protocol protocol, TargetGroupAttributes base, String... kv) {
    Map<String, String> given = new LinkedHashMap<>();
    for (int i = 0; i < kv.length; i += 2) {
      given.put(kv[i], kv[i + 1]);
    }
    Problems problems = new Problems();
    TargetGroupAttributes a = TargetGroupAttributes.resolve(type, protocol, base, given, problems);
    return new Result(a, problems.list());
  }

  private static Result alb(String... kv) {
    return resolve(TargetType.IP, Protocol.HTTP, null, kv);
  }

  private static TargetGroupAttributes ok(Result r) {
    assertThat(r.problems()).isEmpty();
    assertThat(r.attributes()).isNotNull();
    return r.attributes();
  }

  private static void rejected(Result r, Problem... expected) {
    assertThat(r.problems()).containsExactly(expected);
    assertThat(r.attributes()).isNull();
  }

  @Nested
  class Defaults {

    /** SPEC §3.1: "Typical full ALB instance/ip attribute set as returned by AWS today (a real dump)". */
    @Test
    void albIpGroup_hasAwsDefaultSet_inAwsOrder() {
      Map<String, String> all = TargetGroupAttributes.defaults(TargetType.IP, Protocol.HTTP).asMap();
      assertThat(all).containsExactly(
          entry("stickiness.enabled", "false"),
          entry("deregistration_delay.timeout_seconds", "300"),
          entry("stickiness.app_cookie.cookie_name", ""),
          entry("stickiness.type", "lb_cookie"),
          entry("stickiness.lb_cookie.duration_seconds", "86400"),
          entry("slow_start.duration_seconds", "0"),
          entry("stickiness.app_cookie.duration_seconds", "86400"),
          entry("load_balancing.algorithm.type", "round_robin"),
          entry("load_balancing.algorithm.anomaly_mitigation", "off"),
          entry("load_balancing.cross_zone.enabled", "use_load_balancer_configuration"),
          entry("target_group_health.dns_failover.minimum_healthy_targets.count", "1"),
          entry("target_group_health.dns_failover.minimum_healthy_targets.percentage", "off"),
          entry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "1"),
          entry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "off"));
    }

    @Test
    void albInstanceHttpsGroup_hasTheSameSetAsAnIpGroup() {
      assertThat(TargetGroupAttributes.defaults(TargetType.INSTANCE, Protocol.HTTPS).asMap())
          .containsExactlyEntriesOf(TargetGroupAttributes.defaults(TargetType.IP, Protocol.HTTP).asMap());
    }

    @Test
    void albDefaults_readThroughTheTypedAccessors() {
      TargetGroupAttributes a = TargetGroupAttributes.defaults(TargetType.IP, Protocol.HTTP);
      assertThat(a.kind()).isEqualTo(TargetGroupKind.ALB);
      assertThat(a.deregistrationDelaySeconds()).isEqualTo(300);
      assertThat(a.stickinessEnabled()).isFalse();
      assertThat(a.stickinessType()).isEqualTo("lb_cookie");
      assertThat(a.appCookieName()).isEmpty();
      assertThat(a.appCookieDurationSeconds()).isEqualTo(86400);
      assertThat(a.lbCookieDurationSeconds()).isEqualTo(86400);
      assertThat(a.slowStartSeconds()).isZero();
      assertThat(a.algorithm()).isEqualTo("round_robin");
      assertThat(a.anomalyMitigation()).isFalse();
      assertThat(a.crossZone()).isEqualTo("use_load_balancer_configuration");
      assertThat(a.dnsFailoverCount()).isEqualTo(1);
      assertThat(a.dnsFailoverPercentage()).isZero();
      assertThat(a.routingFailoverCount()).isEqualTo(1);
      assertThat(a.routingFailoverPercentage()).isZero();
      assertThat(a.multiValueHeaders()).isFalse();
    }

    @Test
    void lambdaGroup_hasMultiValueHeaders_andNoDelayHealthOrAlgorithmKeys() {
      TargetGroupAttributes a = TargetGroupAttributes.defaults(TargetType.LAMBDA, null);
      assertThat(a.kind()).isEqualTo(TargetGroupKind.ALB_LAMBDA);
      assertThat(a.asMap()).containsEntry("lambda.multi_value_headers.enabled", "false")
          .containsEntry("stickiness.enabled", "false")
          .doesNotContainKeys(DEREGISTRATION_DELAY, ALGORITHM, SLOW_START, DNS_FAILOVER_COUNT, ROUTING_FAILOVER_COUNT,
              TargetGroupAttributes.CROSS_ZONE);
      assertThat(a.deregistrationDelaySeconds()).isZero();
    }

    @Test
    void nlbTcpIpGroup_hasTheNlbSet_withClientIpPreservationOff() {
      assertThat(TargetGroupAttributes.defaults(TargetType.IP, Protocol.TCP).asMap()).containsOnly(
          entry("deregistration_delay.timeout_seconds", "300"),
          entry("deregistration_delay.connection_termination.enabled", "false"),
          entry("stickiness.enabled", "false"),
          entry("stickiness.type", "source_ip"),
          entry("proxy_protocol_v2.enabled", "false"),
          entry("preserve_client_ip.enabled", "false"),
          entry("load_balancing.cross_zone.enabled", "use_load_balancer_configuration"),
          entry("target_group_health.dns_failover.minimum_healthy_targets.count", "1"),
          entry("target_group_health.dns_failover.minimum_healthy_targets.percentage", "off"),
          entry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "1"),
          entry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "off"),
          entry("target_health_state.unhealthy.connection_termination.enabled", "true"),
          entry("target_health_state.unhealthy.draining_interval_seconds", "0"));
    }

    @ParameterizedTest(name = "{0} {1}: preserve_client_ip={2}, connection_termination={3}")
    @CsvSource({
        "IP, TCP, false, false",
        "IP, TLS, false, false",
        "INSTANCE, TCP, true, false",
        "INSTANCE, TLS, true, false",
        "IP, UDP, true, true",
        "IP, TCP_UDP, true, true",
        "INSTANCE, UDP, true, true"})
    void nlbDefaults_dependOnTargetTypeAndProtocol(TargetType type, Protocol protocol, String preserve,
        String termination) {
      TargetGroupAttributes a = TargetGroupAttributes.defaults(type, protocol);
      assertThat(a.get("preserve_client_ip.enabled")).isEqualTo(preserve);
      assertThat(a.get("deregistration_delay.connection_termination.enabled")).isEqualTo(termination);
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"IP, UDP", "IP, TCP_UDP", "INSTANCE, UDP", "INSTANCE, TCP_UDP"})
    void nlbUdpGroup_hasTheNlbSet_withClientIpKept_andUnhealthyConnectionTerminationOff(TargetType type,
        Protocol protocol) {
      TargetGroupAttributes a = TargetGroupAttributes.defaults(type, protocol);
      assertThat(a.kind()).isEqualTo(TargetGroupKind.NLB);
      assertThat(a.asMap()).containsOnly(
          entry("deregistration_delay.timeout_seconds", "300"),
          entry("deregistration_delay.connection_termination.enabled", "true"),
          entry("stickiness.enabled", "false"),
          entry("stickiness.type", "source_ip"),
          entry("proxy_protocol_v2.enabled", "false"),
          entry("preserve_client_ip.enabled", "true"),
          entry("load_balancing.cross_zone.enabled", "use_load_balancer_configuration"),
          entry("target_group_health.dns_failover.minimum_healthy_targets.count", "1"),
          entry("target_group_health.dns_failover.minimum_healthy_targets.percentage", "off"),
          entry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.count", "1"),
          entry("target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage", "off"),
          entry("target_health_state.unhealthy.connection_termination.enabled", "false"),
          entry("target_health_state.unhealthy.draining_interval_seconds", "0"));
    }

    @Test
    void geneveGroup_doesNotRebalanceByDefault() {
      TargetGroupAttributes a = TargetGroupAttributes.defaults(TargetType.IP, Protocol.GENEVE);
      assertThat(a.asMap()).containsEntry("target_failover.on_deregistration", "no_rebalance")
          .containsEntry("target_failover.on_unhealthy", "no_rebalance")
          .containsEntry(DEREGISTRATION_DELAY, "300")
          .doesNotContainKeys(APP_COOKIE_NAME, DNS_FAILOVER_COUNT);
    }
  }

  @Nested
  class Values {

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "deregistration_delay.timeout_seconds | 0",
        "deregistration_delay.timeout_seconds | 3600",
        "stickiness.enabled | true",
        "stickiness.type | app_cookie",
        "stickiness.app_cookie.cookie_name | SESSIONID",
        "stickiness.app_cookie.cookie_name | my-app_cookie.1",
        "stickiness.app_cookie.duration_seconds | 1",
        "stickiness.app_cookie.duration_seconds | 604800",
        "stickiness.lb_cookie.duration_seconds | 1",
        "stickiness.lb_cookie.duration_seconds | 604800",
        "slow_start.duration_seconds | 0",
        "slow_start.duration_seconds | 30",
        "slow_start.duration_seconds | 900",
        "load_balancing.algorithm.type | least_outstanding_requests",
        "load_balancing.algorithm.type | weighted_random",
        "load_balancing.cross_zone.enabled | true",
        "load_balancing.cross_zone.enabled | false",
        "target_group_health.dns_failover.minimum_healthy_targets.count | off",
        "target_group_health.dns_failover.minimum_healthy_targets.count | 1000",
        "target_group_health.dns_failover.minimum_healthy_targets.percentage | 100",
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count | 1",
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage | 1"})
    void valueAtTheEdgeOfItsRange_isAccepted(String key, String value) {
      assertThat(ok(alb(key, value)).get(key)).isEqualTo(value);
    }

    @ParameterizedTest(name = "{0}={1}")
    @CsvSource(delimiter = '|', value = {
        "deregistration_delay.timeout_seconds | -1 | expected 0-3600",
        "deregistration_delay.timeout_seconds | 3601 | expected 0-3600",
        "deregistration_delay.timeout_seconds | 30s | expected an integer 0-3600",
        "stickiness.enabled | yes | expected: true or false",
        "stickiness.enabled | True | expected: true or false",
        "stickiness.app_cookie.duration_seconds | 0 | expected 1-604800",
        "stickiness.app_cookie.duration_seconds | 604801 | expected 1-604800",
        "stickiness.lb_cookie.duration_seconds | 0 | expected 1-604800",
        "stickiness.lb_cookie.duration_seconds | 604801 | expected 1-604800",
        "slow_start.duration_seconds | 29 | expected 0 (off) or 30-900",
        "slow_start.duration_seconds | 901 | expected 0 (off) or 30-900",
        "slow_start.duration_seconds | off | expected 0 (off) or 30-900",
        "load_balancing.algorithm.type | random | expected one of: round_robin, least_outstanding_requests, weighted_random",
        "load_balancing.algorithm.anomaly_mitigation | true | expected one of: on, off",
        "load_balancing.cross_zone.enabled | yes | expected one of: true, false, use_load_balancer_configuration",
        "target_group_health.dns_failover.minimum_healthy_targets.count | 0 | expected: off or 1-1000",
        "target_group_health.dns_failover.minimum_healthy_targets.count | 1001 | expected: off or 1-1000",
        "target_group_health.dns_failover.minimum_healthy_targets.percentage | 101 | expected: off or 1-100",
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count | off | expected an integer 1-1000",
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count | 0 | expected 1-1000",
        "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage | 0 | expected: off or 1-100"})
    void invalidValue_isAValidationErrorAtItsKey(String key, String value, String expected) {
      rejected(alb(key, value), new Problem(key, VE, "'" + value + "' is not valid (" + expected + ")"));
    }

    @ParameterizedTest
    @CsvSource({"AWSALB", "AWSALBAPP-0", "AWSALBTG", "AWSALBsession"})
    void appCookieName_cannotStartWithAwsalb(String name) {
      rejected(alb(APP_COOKIE_NAME, name), new Problem(APP_COOKIE_NAME, VE, "'" + name
          + "' is not valid (an application cookie name cannot start with AWSALB, AWSALBAPP or AWSALBTG)"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {"my cookie", "a;b", "a=b", "caf\u00e9"})
    void appCookieName_mustBeAToken(String name) {
      rejected(alb(APP_COOKIE_NAME, name), new Problem(APP_COOKIE_NAME, VE, "'" + name
          + "' is not valid (a cookie name may only hold visible ASCII characters other than separators)"));
    }

    @Test
    void unknownKey_isNotRecognized() {
      rejected(alb("x", "1"), new Problem("x", VE, "Target group attribute key 'x' is not recognized"));
    }

    @Test
    void keyOfAnotherKind_isNotRecognized() {
      rejected(resolve(TargetType.IP, Protocol.GENEVE, null, APP_COOKIE_NAME, "c"), new Problem(APP_COOKIE_NAME, VE,
          "Target group attribute key 'stickiness.app_cookie.cookie_name' is not recognized"));
      rejected(alb("preserve_client_ip.enabled", "true"), new Problem("preserve_client_ip.enabled", VE,
          "Target group attribute key 'preserve_client_ip.enabled' is not recognized"));
    }

    @Test
    void everyBadKeyAndValue_isReported() {
      rejected(alb("x", "1", DEREGISTRATION_DELAY, "-5", STICKINESS_ENABLED, "on"),
          new Problem("x", VE, "Target group attribute key 'x' is not recognized"),
          new Problem(DEREGISTRATION_DELAY, VE, "'-5' is not valid (expected 0-3600)"),
          new Problem(STICKINESS_ENABLED, VE, "'on' is not valid (expected: true or false)"));
    }

    @Test
    void problems_areRecordedBelowTheGivenPath() {
      Problems problems = new Problems();
      TargetGroupAttributes.resolve(TargetType.IP, Protocol.HTTP, null, Map.of(SLOW_START, "10"),
          problems.at("target-groups").at(2).at("attributes"));
      assertThat(problems.list()).extracting(Problem::toString).containsExactly(
          "target-groups[2].attributes.slow_start.duration_seconds: '10' is not valid (expected 0 (off) or 30-900)");
    }
  }

  @Nested
  class Constraints {

    @ParameterizedTest
    @CsvSource({"round_robin", "least_outstanding_requests"})
    void anomalyMitigation_needsWeightedRandom(String algorithm) {
      rejected(alb(ALGORITHM, algorithm, ANOMALY_MITIGATION, "on"), new Problem(ANOMALY_MITIGATION, IC,
          "Anomaly mitigation is supported only with the weighted_random load balancing algorithm"));
    }

    @Test
    void anomalyMitigation_withWeightedRandom_isAccepted() {
      TargetGroupAttributes a = ok(alb(ALGORITHM, "weighted_random", ANOMALY_MITIGATION, "on"));
      assertThat(a.anomalyMitigation()).isTrue();
      assertThat(a.algorithm()).isEqualTo("weighted_random");
    }

    @Test
    void slowStart_withLeastOutstandingRequests_isRejected() {
      rejected(alb(ALGORITHM, "least_outstanding_requests", SLOW_START, "30"), new Problem(SLOW_START, IC,
          "Slow start mode is not supported with the least outstanding requests algorithm"));
    }

    @Test
    void slowStart_withWeightedRandom_isRejected() {
      rejected(alb(ALGORITHM, "weighted_random", SLOW_START, "900"), new Problem(SLOW_START, IC,
          "The weighted random routing algorithm can not be used with slow start mode"));
    }

    @Test
    void slowStart_withRoundRobin_isAccepted_andOffWithAnyAlgorithm() {
      assertThat(ok(alb(SLOW_START, "30")).slowStartSeconds()).isEqualTo(30);
      assertThat(ok(alb(ALGORITHM, "least_outstanding_requests", SLOW_START, "0")).slowStartSeconds()).isZero();
    }

    @Test
    void appCookieStickiness_withoutACookieName_isRejected() {
      rejected(alb(STICKINESS_ENABLED, "true", STICKINESS_TYPE, "app_cookie"), new Problem(APP_COOKIE_NAME, IC,
          "You must set an application cookie name to enable stickiness of type 'app_cookie'"));
    }

    @Test
    void appCookieStickiness_withACookieName_isAccepted_andDisabledNeedsNoName() {
      TargetGroupAttributes a = ok(alb(STICKINESS_ENABLED, "true", STICKINESS_TYPE, "app_cookie", APP_COOKIE_NAME,
          "SESSION"));
      assertThat(a.stickinessType()).isEqualTo("app_cookie");
      assertThat(a.appCookieName()).isEqualTo("SESSION");
      assertThat(ok(alb(STICKINESS_TYPE, "app_cookie")).stickinessEnabled()).isFalse();
    }

    @Test
    void lambdaGroup_doesNotSupportADeregistrationDelay() {
      rejected(resolve(TargetType.LAMBDA, null, null, DEREGISTRATION_DELAY, "30"), new Problem(DEREGISTRATION_DELAY,
          IC, "A target group with target type 'lambda' does not support the attribute "
              + "deregistration_delay.timeout_seconds"));
    }

    @Test
    void lambdaGroup_doesNotSupportTargetGroupHealthSettings() {
      rejected(resolve(TargetType.LAMBDA, null, null, DNS_FAILOVER_COUNT, "1"), new Problem(DNS_FAILOVER_COUNT, IC,
          "Target group health settings are not supported for target groups with target type 'lambda'"));
    }

    @Test
    void dnsFailoverCount_belowRoutingFailoverCount_isRejected() {
      rejected(alb(DNS_FAILOVER_COUNT, "1", ROUTING_FAILOVER_COUNT, "2"), new Problem(DNS_FAILOVER_COUNT, IC,
          "the DNS failover threshold (1) must be greater than or equal to the routing failover threshold (2)"));
    }

    @Test
    void dnsFailoverPercentage_belowRoutingFailoverPercentage_isRejected() {
      rejected(alb(DNS_FAILOVER_PERCENTAGE, "40", ROUTING_FAILOVER_PERCENTAGE, "50"),
          new Problem(DNS_FAILOVER_PERCENTAGE, IC, "the DNS failover threshold (40%) must be greater than or equal"
              + " to the routing failover threshold (50%)"));
    }

    @ParameterizedTest(name = "dns {0}/{1}%, routing {2}/{3}%")
    @CsvSource({
        "5, off, 5, off",
        "6, off, 5, off",
        "off, off, 5, off",
        "1, 50, 1, 50",
        "1, 60, 1, 50",
        "1, off, 1, 50",
        "1, 50, 1, off"})
    void failoverThresholds_thatAreEqualHigherOrOff_areAccepted(String dnsCount, String dnsPct, String routingCount,
        String routingPct) {
      TargetGroupAttributes a = ok(alb(DNS_FAILOVER_COUNT, dnsCount, DNS_FAILOVER_PERCENTAGE, dnsPct,
          ROUTING_FAILOVER_COUNT, routingCount, ROUTING_FAILOVER_PERCENTAGE, routingPct));
      assertThat(a.dnsFailoverCount()).isEqualTo(dnsCount.equals("off") ? 0 : Integer.parseInt(dnsCount));
      assertThat(a.routingFailoverPercentage()).isEqualTo(routingPct.equals("off") ? 0 : Integer.parseInt(routingPct));
    }

    @Test
    void nlbFailoverThresholds_areCheckedToo() {
      rejected(resolve(TargetType.IP, Protocol.TCP, null, DNS_FAILOVER_COUNT, "2", ROUTING_FAILOVER_COUNT, "3"),
          new Problem(DNS_FAILOVER_COUNT, IC, "the DNS failover threshold (2) must be greater than or equal to the"
              + " routing failover threshold (3)"));
    }

    @Test
    void sourceIpStickiness_onAnHttpGroup_isNotSupported() {
      rejected(alb(STICKINESS_TYPE, "source_ip"), new Problem(STICKINESS_TYPE, IC,
          "Stickiness type 'source_ip' is not supported for target groups with the HTTP protocol"));
    }

    @ParameterizedTest
    @CsvSource({"lb_cookie, TCP", "app_cookie, UDP"})
    void cookieStickiness_onAnNlbGroup_isNotSupported(String type, Protocol protocol) {
      rejected(resolve(TargetType.IP, protocol, null, STICKINESS_TYPE, type), new Problem(STICKINESS_TYPE, IC,
          "Stickiness type '" + type + "' is not supported for target groups with the " + protocol.wire()
              + " protocol"));
    }

    @ParameterizedTest(name = "{0} {1}={2}")
    @CsvSource(delimiter = '|', value = {
        "UDP | preserve_client_ip.enabled | false | Client IP preservation cannot be disabled for target groups with"
            + " the UDP protocol",
        "UDP | proxy_protocol_v2.enabled | true | Proxy protocol v2 cannot be enabled for target groups with the UDP"
            + " protocol",
        "UDP | target_health_state.unhealthy.connection_termination.enabled | true | Unhealthy target connection"
            + " termination cannot be enabled for target groups with the UDP protocol",
        "TCP_UDP | preserve_client_ip.enabled | false | Client IP preservation cannot be disabled for target groups"
            + " with the TCP_UDP protocol",
        "TCP_UDP | proxy_protocol_v2.enabled | true | Proxy protocol v2 cannot be enabled for target groups with the"
            + " TCP_UDP protocol",
        "TCP_UDP | target_health_state.unhealthy.connection_termination.enabled | true | Unhealthy target connection"
            + " termination cannot be enabled for target groups with the TCP_UDP protocol",
        "UDP | target_health_state.unhealthy.draining_interval_seconds | 60 | An unhealthy draining interval cannot be"
            + " set for target groups with the UDP protocol",
        "TCP_UDP | target_health_state.unhealthy.draining_interval_seconds | 1 | An unhealthy draining interval cannot"
            + " be set for target groups with the TCP_UDP protocol"})
    void udpGroup_refusesWhatADatagramFlowCannotHave(Protocol protocol, String key, String value, String message) {
      rejected(resolve(TargetType.IP, protocol, null, key, value), new Problem(key, IC, message));
      rejected(resolve(TargetType.INSTANCE, protocol, null, key, value), new Problem(key, IC, message));
    }

    @Test
    void udpGroup_reportsEachThingItCannotHave() {
      String termination = TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION;
      rejected(resolve(TargetType.IP, Protocol.UDP, null, TargetGroupAttributes.PROXY_PROTOCOL_V2, "true",
              TargetGroupAttributes.PRESERVE_CLIENT_IP, "false", termination, "true"),
          new Problem(TargetGroupAttributes.PRESERVE_CLIENT_IP, IC,
              "Client IP preservation cannot be disabled for target groups with the UDP protocol"),
          new Problem(termination, IC,
              "Unhealthy target connection termination cannot be enabled for target groups with the UDP protocol"),
          new Problem(TargetGroupAttributes.PROXY_PROTOCOL_V2, IC,
              "Proxy protocol v2 cannot be enabled for target groups with the UDP protocol"));
    }

    @ParameterizedTest
    @CsvSource({"UDP", "TCP_UDP"})
    void udpGroup_acceptsTheValuesItMustHave_andWhatItMayChange(Protocol protocol) {
      TargetGroupAttributes a = ok(resolve(TargetType.IP, protocol, null,
          TargetGroupAttributes.PRESERVE_CLIENT_IP, "true",
          TargetGroupAttributes.PROXY_PROTOCOL_V2, "false",
          TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION, "false",
          TargetGroupAttributes.CONNECTION_TERMINATION, "false",
          STICKINESS_ENABLED, "true",
          STICKINESS_TYPE, "source_ip"));
      assertThat(a.get(TargetGroupAttributes.CONNECTION_TERMINATION)).isEqualTo("false");
      assertThat(a.stickinessEnabled()).isTrue();
      assertThat(a.stickinessType()).isEqualTo("source_ip");
    }

    @Test
    void tcpGroup_stillMayDropClientIp_addProxyProtocol_andEndUnhealthyFlows() {
      TargetGroupAttributes a = ok(resolve(TargetType.INSTANCE, Protocol.TCP, null,
          TargetGroupAttributes.PRESERVE_CLIENT_IP, "false",
          TargetGroupAttributes.PROXY_PROTOCOL_V2, "true",
          TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION, "true"));
      assertThat(a.get(TargetGroupAttributes.PRESERVE_CLIENT_IP)).isEqualTo("false");
      assertThat(a.get(TargetGroupAttributes.PROXY_PROTOCOL_V2)).isEqualTo("true");
    }

    @Test
    void unknownStickinessType_isAValidationError() {
      rejected(alb(STICKINESS_TYPE, "cookie"), new Problem(STICKINESS_TYPE, VE,
          "'cookie' is not valid (expected one of: lb_cookie, app_cookie)"));
    }

    @Test
    void stickiness_onATlsGroup_isRejected() {
      rejected(resolve(TargetType.IP, Protocol.TLS, null, STICKINESS_ENABLED, "true"), new Problem(STICKINESS_ENABLED,
          IC, "You cannot enable stickiness on target groups with the TLS protocol"));
      assertThat(ok(resolve(TargetType.IP, Protocol.TCP, null, STICKINESS_ENABLED, "true")).stickinessEnabled())
          .isTrue();
    }

    @Test
    void unhealthyDrainingInterval_needsUnhealthyConnectionTerminationOff() {
      String interval = TargetGroupAttributes.UNHEALTHY_DRAINING_INTERVAL;
      String termination = TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION;
      rejected(resolve(TargetType.IP, Protocol.TCP, null, interval, "60"), new Problem(interval, IC,
          "an unhealthy draining interval can only be set when " + termination + " is false"));
      assertThat(ok(resolve(TargetType.IP, Protocol.TCP, null, termination, "false", interval, "360000"))
          .get(interval)).isEqualTo("360000");
    }

    @Test
    void geneveFailoverPair_mustBeEqual() {
      rejected(resolve(TargetType.IP, Protocol.GENEVE, null, "target_failover.on_unhealthy", "rebalance"),
          new Problem("target_failover.on_unhealthy", IC,
              "target_failover.on_unhealthy must equal target_failover.on_deregistration"));
      assertThat(ok(resolve(TargetType.IP, Protocol.GENEVE, null, "target_failover.on_unhealthy", "rebalance",
          "target_failover.on_deregistration", "rebalance")).get("target_failover.on_unhealthy"))
          .isEqualTo("rebalance");
    }

    @Test
    void weightedRandom_withStickiness_isAllowed() {
      TargetGroupAttributes a = ok(alb(ALGORITHM, "weighted_random", STICKINESS_ENABLED, "true"));
      assertThat(a.stickinessEnabled()).isTrue();
    }
  }

  @Nested
  class OverABase {

    @Test
    void resolveOverABase_keepsThePreviousValues() {
      TargetGroupAttributes base = ok(alb(SLOW_START, "60", DEREGISTRATION_DELAY, "30"));
      TargetGroupAttributes next = ok(resolve(TargetType.IP, Protocol.HTTP, base, DEREGISTRATION_DELAY, "10"));
      assertThat(next.slowStartSeconds()).isEqualTo(60);
      assertThat(next.deregistrationDelaySeconds()).isEqualTo(10);
      assertThat(next.asMap().keySet()).containsExactlyElementsOf(base.asMap().keySet());
      assertThat(base.deregistrationDelaySeconds()).as("the base is not changed").isEqualTo(30);
    }

    @Test
    void resolveWithNothingGiven_returnsAnEqualSet() {
      TargetGroupAttributes base = ok(alb(STICKINESS_ENABLED, "true"));
      TargetGroupAttributes same = ok(resolve(TargetType.IP, Protocol.HTTP, base));
      assertThat(same).isEqualTo(base).hasSameHashCodeAs(base);
      assertThat(same).isNotEqualTo(TargetGroupAttributes.defaults(TargetType.IP, Protocol.HTTP));
    }

    @Test
    void udpConstraints_areCheckedOverTheCombinedSet() {
      TargetGroupAttributes base = ok(resolve(TargetType.IP, Protocol.UDP, null, DEREGISTRATION_DELAY, "30"));
      rejected(resolve(TargetType.IP, Protocol.UDP, base, TargetGroupAttributes.PROXY_PROTOCOL_V2, "true"),
          new Problem(TargetGroupAttributes.PROXY_PROTOCOL_V2, IC,
              "Proxy protocol v2 cannot be enabled for target groups with the UDP protocol"));
      TargetGroupAttributes sticky = ok(resolve(TargetType.IP, Protocol.UDP, base, STICKINESS_ENABLED, "true"));
      assertThat(sticky.stickinessEnabled()).isTrue();
      assertThat(sticky.deregistrationDelaySeconds()).as("kept from the base").isEqualTo(30);
    }

    @Test
    void constraints_areCheckedOverTheCombinedSet() {
      TargetGroupAttributes weighted = ok(alb(ALGORITHM, "weighted_random"));
      assertThat(ok(resolve(TargetType.IP, Protocol.HTTP, weighted, ANOMALY_MITIGATION, "on")).anomalyMitigation())
          .isTrue();
      TargetGroupAttributes slow = ok(alb(SLOW_START, "30"));
      rejected(resolve(TargetType.IP, Protocol.HTTP, slow, ALGORITHM, "least_outstanding_requests"),
          new Problem(SLOW_START, IC, "Slow start mode is not supported with the least outstanding requests algorithm"));
    }
  }
}
