package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.problems;
import static io.fulcrum.config.Configs.withTargetGroup;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Instance;
import io.fulcrum.model.IpAddressType;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetType;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Target groups in the config file: required keys, health check and attribute paths, targets, inventory. */
class ConfigParserTargetGroupTest {

  private static final String TG = "target-groups[0].";

  private static TargetGroup web(FulcrumConfig config) {
    return config.resources().targetGroupByName("web").orElseThrow();
  }

  @Test
  void targetGroup_isReadWithItsDefaults() {
    TargetGroup g = web(parse(withTargetGroup("""
        - name: web
          protocol: HTTPS
          port: 443
        """)));
    assertThat(g.targetType()).isEqualTo(TargetType.INSTANCE);
    assertThat(g.protocol()).isEqualTo(Protocol.HTTPS);
    assertThat(g.port()).isEqualTo(443);
    assertThat(g.protocolVersion()).isEqualTo(ProtocolVersion.HTTP1);
    assertThat(g.ipAddressType()).isEqualTo(IpAddressType.IPV4);
    assertThat(g.healthCheck().intervalSeconds()).isEqualTo(30);
    assertThat(g.attributes().deregistrationDelaySeconds()).isEqualTo(300);
    assertThat(g.targets()).isEmpty();
  }

  @Test
  void missingProtocolAndPort_areRequired() {
    assertThat(messages(withTargetGroup("- {name: web, target-type: ip}"))).containsExactly(
        TG + "protocol: A protocol must be specified",
        TG + "port: A port must be specified");
  }

  @Test
  void missingName_isRequired_andABadNameIsRejected() {
    assertThat(messages("target-groups: [{protocol: HTTP, port: 80}, {name: my_tg, protocol: HTTP, port: 80}]"))
        .containsExactly(
            "target-groups[0].name: a name is required (1-32 letters, digits and hyphens)",
            "target-groups[1].name: Target group name 'my_tg' can only contain characters that are alphanumeric"
                + " characters or hyphens(-)");
  }

  @Test
  void duplicateName_isRejected() {
    assertThat(messages("""
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80}
          - {name: api, target-type: ip, protocol: HTTP, port: 80}
          - {name: web, target-type: ip, protocol: HTTP, port: 81}
        """)).containsExactly("target-groups[2].name: a target group named 'web' is already defined");
  }

  @ParameterizedTest
  @CsvSource({"0, 0 is below the minimum 1", "65536, 65536 is above the maximum 65535"})
  void portOutsideItsRange_isRejected(int port, String message) {
    assertThat(messages(withTargetGroup("- {name: web, protocol: HTTP, port: " + port + "}")))
        .containsExactly(TG + "port: " + message);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "target-type: IP | target-type: 'IP' is not one of: instance, ip, lambda, alb",
      "target-type: alb | protocol: target groups of type alb support only the TCP protocol (a network load"
          + " balancer's TCP listener forwards to the application load balancer's listener on the group's port)",
      "protocol: GENEVE | protocol: 'GENEVE' target groups are not available yet (expected: HTTP, HTTPS, TCP, TLS,"
          + " UDP or TCP_UDP)",
      "protocol: http | protocol: 'http' is not one of: HTTP, HTTPS, TCP, TLS, UDP, TCP_UDP, GENEVE, QUIC, TCP_QUIC",
      "protocol-version: HTTP3 | protocol-version: 'HTTP3' is not one of: HTTP1, HTTP2, GRPC",
      "ip-address-type: ipv6 | ip-address-type: ipv6 target groups only support targets of type ip",
      "ip-address-type: dualstack | ip-address-type: 'dualstack' is not one of: ipv4, ipv6"})
  void unsupportedOrUnknownSetting_isRejectedAtItsKey(String line, String message) {
    // A protocol line replaces the group's protocol; any other line comes on top of HTTP on port 80.
    String yaml = withTargetGroup(line.startsWith("protocol:")
        ? "- name: web\n  port: 80\n  " + line + "\n"
        : "- name: web\n  protocol: HTTP\n  port: 80\n  " + line + "\n");
    assertThat(messages(yaml)).containsExactly(TG + message);
  }

  @Test
  void grpcOrHttp2Group_behindAnHttpListenerWithoutH2c_isRejectedAtTheAction() {
    for (String version : new String[] {"GRPC", "HTTP2"}) {
      assertThat(messages(withTargetGroup("- {name: web, protocol: HTTP, port: 80, protocol-version: " + version + "}")))
          .containsExactly("load-balancers[0].listeners[0].default-actions[0]: target group 'web' has protocol version "
              + version + ": it needs an HTTPS listener, or an HTTP listener with h2c");
    }
  }

  @Test
  void grpcGroup_isReadWithItsVersion_andGrpcHealthCheckDefaults() {
    TargetGroup g = web(parse(withTargetGroup("- {name: web, protocol: HTTPS, port: 443, protocol-version: GRPC}")
        .replace("protocol: HTTP\n", "protocol: HTTPS\n")));
    assertThat(g.protocolVersion()).isEqualTo(ProtocolVersion.GRPC);
    assertThat(g.healthCheck().path()).isEqualTo("/AWS.ALB/healthcheck");
    assertThat(g.healthCheck().grpc()).isTrue();
    assertThat(g.healthCheck().matcher().text()).isEqualTo("12");
  }

  @Test
  void badIpAddressType_withAnIpv6Target_reportsOnlyTheType() {
    assertThat(messages(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          ip-address-type: ipv5
          targets: [{id: "::1"}]
        """))).containsExactly(TG + "ip-address-type: 'ipv5' is not one of: ipv4, ipv6");
  }

  @Test
  void ipv6Group_takesIpv6Targets() {
    TargetGroup g = web(parse(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          ip-address-type: ipv6
          targets: [{id: "::1", port: 8080}]
        """).replace("- name: demo\n", "- name: demo\n    ip-address-type: dualstack\n"))); // forwards to it
    assertThat(g.ipAddressType()).isEqualTo(IpAddressType.IPV6);
    assertThat(g.targets()).containsExactly(new Target("::1", 8080, "all", "::1", false));
  }

  @Test
  void healthCheckProblems_carryTheFullKeyPath() {
    assertThat(messages(withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 80
          health-check:
            interval-seconds: 301
            protocol: TCP
            path: health
            matcher: {http-code: "200-500"}
        """))).containsExactly(
            TG + "health-check.protocol: TCP health checks are not supported for target groups with the HTTP protocol"
                + " (expected: HTTP or HTTPS)",
            TG + "health-check.path: 'health' must start with '/'",
            TG + "health-check.interval-seconds: 301 is above the maximum 300",
            TG + "health-check.matcher.http-code: '200-500' has a code outside 200-499 (expected codes 200-499 as a"
                + " code, a list or a range, e.g. \"200\", \"200,201\", \"200-499\")");
  }

  @Test
  void healthCheckTimeoutEqualToInterval_isRejectedWithAwsMessage() {
    List<Problem> problems = problems(withTargetGroup("""
        - {name: web, protocol: HTTP, port: 80, health-check: {interval-seconds: 5, timeout-seconds: 5}}
        """));
    assertThat(problems).containsExactly(new Problem(TG + "health-check.timeout-seconds",
        "InvalidConfigurationRequest", "Health check timeout '5' must be smaller than the interval '5'"));
  }

  @Test
  void healthCheckThatCannotBeDisabled_isRejected() {
    assertThat(messages(withTargetGroup("- {name: web, protocol: HTTP, port: 80, health-check: {enabled: false}}")))
        .containsExactly(TG + "health-check.enabled: health checks cannot be disabled for target groups with target"
            + " type 'instance'");
  }

  @Test
  void healthCheckValueOfTheWrongType_isReportedOnce() {
    assertThat(messages(withTargetGroup("""
        - {name: web, protocol: HTTP, port: 80, health-check: {interval-seconds: often, enabled: yes-please}}
        """))).containsExactly(
            TG + "health-check.enabled: expected true or false, found 'yes-please'",
            TG + "health-check.interval-seconds: expected an integer, found 'often'");
  }

  @Test
  void healthCheckProblems_areReported_evenWhenTheGroupHasOtherProblems() {
    assertThat(messages(withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 0
          health-check: {interval-seconds: 301}
          attributes: {slow_start.duration_seconds: 10}
        """))).containsExactly(
            TG + "port: 0 is below the minimum 1",
            TG + "health-check.interval-seconds: 301 is above the maximum 300",
            TG + "attributes.slow_start.duration_seconds: '10' is not valid (expected 0 (off) or 30-900)");
  }

  @Test
  void attributes_areReadAsStrings_fromAnyScalar() {
    TargetGroup g = web(parse(withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 80
          attributes:
            stickiness.enabled: true
            slow_start.duration_seconds: 30
            load_balancing.algorithm.type: round_robin
        """)));
    assertThat(g.attributes().stickinessEnabled()).isTrue();
    assertThat(g.attributes().slowStartSeconds()).isEqualTo(30);
  }

  @Test
  void unquotedOnAndOff_keepTheirMeaning_althoughYamlReadsThemAsBooleans() {
    TargetGroup g = web(parse(withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 80
          attributes:
            load_balancing.algorithm.type: weighted_random
            load_balancing.algorithm.anomaly_mitigation: on
            target_group_health.dns_failover.minimum_healthy_targets.count: off
            target_group_health.dns_failover.minimum_healthy_targets.percentage: off
            target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage: off
            stickiness.enabled: on
        """)));
    assertThat(g.attributes().get("load_balancing.algorithm.anomaly_mitigation")).isEqualTo("on");
    assertThat(g.attributes().get("target_group_health.dns_failover.minimum_healthy_targets.count")).isEqualTo("off");
    assertThat(g.attributes().dnsFailoverPercentage()).isZero();
    assertThat(g.attributes().stickinessEnabled()).isTrue();
    assertThat(messages(withTargetGroup("""
        - {name: web, protocol: HTTP, port: 80, attributes: {slow_start.duration_seconds: off}}
        """))).containsExactly(TG + "attributes.slow_start.duration_seconds: 'false' is not valid (expected 0 (off)"
            + " or 30-900)");
  }

  @Test
  void attributeProblems_carryTheKeyAfterAttributes() {
    assertThat(problems(withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 80
          attributes:
            stickiness.enabld: true
            deregistration_delay.timeout_seconds: [30]
            load_balancing.algorithm.type: weighted_random
            slow_start.duration_seconds: 60
        """))).containsExactly(
            new Problem(TG + "attributes.deregistration_delay.timeout_seconds", "ValidationError",
                "expected a string, found a list"),
            new Problem(TG + "attributes.stickiness.enabld", "ValidationError",
                "Target group attribute key 'stickiness.enabld' is not recognized"));
  }

  @Test
  void attributeConstraint_isReportedAtTheAttribute() {
    assertThat(problems(withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 80
          attributes: {load_balancing.algorithm.type: weighted_random, slow_start.duration_seconds: 60}
        """))).containsExactly(new Problem(TG + "attributes.slow_start.duration_seconds", "InvalidConfigurationRequest",
            "The weighted random routing algorithm can not be used with slow start mode"));
  }

  @Test
  void ipTargets_areResolved_andTheSameAddressMayUseSeveralPorts() {
    TargetGroup g = web(parse(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          targets:
            - {id: 10.0.0.1}
            - {id: 10.0.0.1, port: 8080, zone: zone-a}
            - {id: 10.0.0.1, port: 8081}
            - {id: 10.0.0.1, port: 8080}
        """)));
    assertThat(g.targets()).containsExactly(
        new Target("10.0.0.1", 80, "all", "10.0.0.1", false),
        new Target("10.0.0.1", 8080, "zone-a", "10.0.0.1", true),
        new Target("10.0.0.1", 8081, "all", "10.0.0.1", false));
  }

  @Test
  void targetProblems_areReportedAtEachTarget() {
    assertThat(problems(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          targets:
            - {id: 8.8.8.8}
            - {id: 10.0.0.1, zone: zone-z}
            - {port: 80}
            - {id: 10.0.0.2, port: 70000}
        """))).extracting(Problem::toString).containsExactly(
            TG + "targets[0].id: The IP address '8.8.8.8' is publicly routable and cannot be registered (expected:"
                + " 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10 or one of the VPC CIDRs 127.0.0.0/8,"
                + " ::1/128)",
            TG + "targets[1].zone: 'zone-z' is not a zone of this deployment (expected: all or one of zone-a)",
            TG + "targets[2].id: a target id is required",
            TG + "targets[3].port: 70000 is above the maximum 65535");
  }

  @Test
  void moreThan1000Targets_isRejected() {
    StringBuilder targets = new StringBuilder();
    for (int i = 0; i < 1001; i++) {
      targets.append("    - {id: 10.0.").append(i / 250).append('.').append(i % 250 + 1).append("}\n");
    }
    List<Problem> problems = problems(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          targets:
        """ + targets));
    assertThat(problems).containsExactly(new Problem(TG + "targets", "TooManyTargets",
        "1001 targets is above the maximum 1000 per target group"));
  }

  @Test
  void instanceTargets_resolveThroughTheInventory() {
    FulcrumConfig config = parse("""
        nodes: [{zone: zone-a, address: 127.0.0.1}, {zone: zone-b, address: 127.0.0.2}]
        instances:
          i-0123456789abcdef0: {address: 10.0.1.5, zone: zone-b}
          i-0badc0de: {address: 10.0.1.6, zone: zone-a, state: stopped}
        """ + withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 80
          targets: [{id: i-0123456789abcdef0, port: 8080}]
        """));
    assertThat(config.environment().instances()).containsEntry("i-0badc0de",
        new Instance("i-0badc0de", "10.0.1.6", "zone-a", "stopped"));
    assertThat(web(config).targets()).containsExactly(
        new Target("i-0123456789abcdef0", 8080, "zone-b", "10.0.1.5", false));
  }

  @Test
  void instanceTargetProblems_useAwsCodesAndMessages() {
    assertThat(problems("""
        instances:
          i-0badc0de: {address: 10.0.1.6, zone: zone-a, state: stopped}
        """ + withTargetGroup("""
        - name: web
          protocol: HTTP
          port: 80
          targets: [{id: i-0000000f}, {id: i-0badc0de}, {id: 10.0.0.1}]
        """))).containsExactly(
            new Problem(TG + "targets[0].id", "InvalidTarget", "The specified target does not exist or is not in the"
                + " same VPC as the target group. ('i-0000000f' is not in the instance inventory)"),
            new Problem(TG + "targets[1].id", "InvalidTarget",
                "The following targets are not in a running state and cannot be registered: 'i-0badc0de'"),
            new Problem(TG + "targets[2].id", "ValidationError", "Instance ID '10.0.0.1' is not valid"));
  }

  @Test
  void badInventoryEntries_areRejected() {
    assertThat(messages("""
        instances:
          web-1: {address: 10.0.0.1, zone: zone-a}
          i-0badc0de: {zone: zone-q, state: sleeping}
          i-12345678: 10.0.0.1
        """)).containsExactly(
            "instances.i-12345678: expected an object, found '10.0.0.1'",
            "instances.web-1: 'web-1' is not an instance id (expected i- and 8 or 17 hex digits)",
            "instances.i-0badc0de.address: an IP address is required",
            "instances.i-0badc0de.zone: expected one of the nodes' zones: zone-a",
            "instances.i-0badc0de.state: 'sleeping' is not one of: running, stopped, terminated");
  }

  @Test
  void crossZoneOff_withATargetWithoutAZone_isRejected() {
    assertThat(problems(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          attributes: {load_balancing.cross_zone.enabled: false}
          targets: [{id: 10.0.0.1, zone: zone-a}, {id: 10.0.0.2}]
        """))).containsExactly(new Problem(TG + "targets[1].zone", "InvalidConfigurationRequest",
            "a target in zone 'all' cannot be registered while load_balancing.cross_zone.enabled is false (expected"
                + " one of: zone-a)"));
  }

  @Test
  void targetControlPort_turnsTheOptimizerOn_withFulcrumsQueueAttribute() {
    TargetGroup g = web(parse(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          target-control-port: 3000
          attributes: {fulcrum.target_optimizer.queue_timeout_ms: 1500}
        """)));
    assertThat(g.targetControlPort()).isEqualTo(3000);
    assertThat(g.attributes().optimizerQueueMillis()).isEqualTo(1500);
  }

  @Test
  void targetControlPort_isCheckedAndTheQueueAttributeNeedsIt() {
    assertThat(messages(withTargetGroup("- {name: web, target-type: ip, protocol: HTTP, port: 80, target-control-port: 0}")))
        .containsExactly(TG + "target-control-port: 0 is below the minimum 1");
    assertThat(messages(withTargetGroup("- {name: web, target-type: lambda, target-control-port: 3000}")))
        .containsExactly(TG + "target-control-port: lambda target groups have no target optimizer (expected: instance or ip)");
    assertThat(messages(withTargetGroup("""
        - name: web
          target-type: ip
          protocol: HTTP
          port: 80
          attributes: {fulcrum.target_optimizer.queue_timeout_ms: 100}
        """))).containsExactly(TG + "attributes.fulcrum.target_optimizer.queue_timeout_ms: fulcrum.target_optimizer"
        + ".queue_timeout_ms applies only to target groups with a target control port (the target optimizer)");
  }
}
