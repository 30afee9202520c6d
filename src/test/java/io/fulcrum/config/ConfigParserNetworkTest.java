package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.problems;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.model.AlbTargets;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerIpAddressType;
import io.fulcrum.model.LoadBalancerType;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Network load balancers in the config file (SPEC §1.2, §3, §7): TCP, TLS, UDP and TCP_UDP listeners
 * and target groups with NLB's defaults, and what does not fit together refused at its key.
 */
class ConfigParserNetworkTest {

  private static final String LB = "load-balancers[0].";
  private static final String L = LB + "listeners[0].";

  private static String nlb(String listener, String groups) {
    return """
        target-groups:
        %s
        load-balancers:
          - name: edge
            type: network
            listeners:
              - %s
        """.formatted(Configs.indent(groups, "  "), listener);
  }

  private static final String TCP_GROUP = """
      - {name: tcp, target-type: ip, protocol: TCP, port: 5432, targets: [{id: 10.0.0.1}]}
      - {name: tls, target-type: ip, protocol: TLS, port: 443, targets: [{id: 10.0.0.1}]}
      - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 10.0.0.1}]}""";

  private static final String UDP_GROUPS = """
      - {name: udp, target-type: ip, protocol: UDP, port: 53, targets: [{id: 10.0.0.1}]}
      - {name: both, target-type: instance, protocol: TCP_UDP, port: 53, targets: []}""";

  private static final String ALL_GROUPS = TCP_GROUP + "\n" + UDP_GROUPS;

  @Test
  void networkLoadBalancer_withTcpListenerAndGroup_hasNlbDefaults() {
    FulcrumConfig config = parse(nlb("{protocol: TCP, port: 5432, default-actions: [{type: forward, target-group: tcp}]}",
        TCP_GROUP));
    LoadBalancer lb = config.resources().loadBalancers().get(0);
    assertThat(lb.type()).isEqualTo(LoadBalancerType.NETWORK);
    assertThat(lb.arn()).contains(":loadbalancer/net/edge/");
    assertThat(lb.listeners().get(0).protocol()).isEqualTo(Protocol.TCP);
    assertThat(lb.attributes().crossZone()).as("NLB: cross-zone off by default").isFalse();

    TargetGroup tcp = config.resources().targetGroups().get(0);
    assertThat(tcp.protocolVersion()).isNull();
    HealthCheck hc = tcp.healthCheck();
    assertThat(hc.protocol()).isEqualTo(Protocol.TCP);
    assertThat(hc.intervalSeconds()).isEqualTo(30);
    assertThat(hc.timeoutSeconds()).isEqualTo(10);
    assertThat(hc.healthyThreshold()).isEqualTo(5);
    assertThat(hc.unhealthyThreshold()).isEqualTo(2);
    TargetGroupAttributes a = tcp.attributes();
    assertThat(a.get(TargetGroupAttributes.CONNECTION_TERMINATION)).isEqualTo("false");
    assertThat(a.get(TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION)).isEqualTo("true");
    assertThat(a.get(TargetGroupAttributes.PROXY_PROTOCOL_V2)).isEqualTo("false");
    assertThat(a.stickinessType()).isEqualTo("source_ip");
    assertThat(TargetGroupPlan.crossZone(tcp, lb.attributes().crossZone()))
        .as("use_load_balancer_configuration follows the NLB").isFalse();
  }

  @Test
  void udpAndTcpUdpListeners_forwardToUdpAndTcpUdpGroups_withNlbsUdpDefaults() {
    FulcrumConfig config = parse(nlb("""
        {protocol: UDP, port: 53, default-actions: [{type: forward, target-group: udp}]}
              - {protocol: TCP_UDP, port: 5353, default-actions: [{type: forward, target-group: both}]}
              - {protocol: UDP, port: 5354, default-actions: [{type: forward, target-group: both}]}
              - {protocol: TCP, port: 5355, default-actions: [{type: forward, target-group: both}]}""", ALL_GROUPS));
    LoadBalancer lb = config.resources().loadBalancers().get(0);
    assertThat(lb.listeners()).extracting(l -> l.protocol())
        .containsExactly(Protocol.UDP, Protocol.TCP_UDP, Protocol.UDP, Protocol.TCP);
    assertThat(lb.listeners().get(0).attributes().asMap()).as("a UDP listener has no idle timeout to set").isEmpty();
    assertThat(lb.listeners().get(1).attributes().asMap()).as("TCP_UDP: the TCP side's idle timeout")
        .containsOnlyKeys("tcp.idle_timeout.seconds").containsEntry("tcp.idle_timeout.seconds", "350");

    for (String name : new String[] {"udp", "both"}) {
      TargetGroup g = config.resources().targetGroupByName(name).orElseThrow();
      assertThat(g.protocolVersion()).isNull();
      assertThat(g.healthCheck().protocol()).as("%s: checked over TCP", name).isEqualTo(Protocol.TCP);
      TargetGroupAttributes a = g.attributes();
      assertThat(a.get(TargetGroupAttributes.CONNECTION_TERMINATION)).isEqualTo("true");
      assertThat(a.get(TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION)).isEqualTo("false");
      assertThat(a.get(TargetGroupAttributes.PRESERVE_CLIENT_IP)).isEqualTo("true");
      assertThat(a.get(TargetGroupAttributes.PROXY_PROTOCOL_V2)).isEqualTo("false");
    }
    assertThat(config.resources().targetGroupByName("udp").orElseThrow().protocol()).isEqualTo(Protocol.UDP);
    assertThat(config.resources().targetGroupByName("both").orElseThrow().protocol()).isEqualTo(Protocol.TCP_UDP);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{protocol: UDP, port: 53, default-actions: [{type: forward, target-group: tcp}]}"
          + " | default-actions[0]: listener protocol UDP cannot forward to target group 'tcp' with protocol TCP"
          + " (expected: UDP or TCP_UDP)",
      "{protocol: UDP, port: 53, default-actions: [{type: forward, target-group: tls}]}"
          + " | default-actions[0]: listener protocol UDP cannot forward to target group 'tls' with protocol TLS"
          + " (expected: UDP or TCP_UDP)",
      "{protocol: TCP_UDP, port: 53, default-actions: [{type: forward, target-group: udp}]}"
          + " | default-actions[0]: listener protocol TCP_UDP cannot forward to target group 'udp' with protocol UDP"
          + " (expected: TCP_UDP)",
      "{protocol: TCP_UDP, port: 53, default-actions: [{type: forward, target-group: tcp}]}"
          + " | default-actions[0]: listener protocol TCP_UDP cannot forward to target group 'tcp' with protocol TCP"
          + " (expected: TCP_UDP)",
      "{protocol: TCP, port: 53, default-actions: [{type: forward, target-group: udp}]}"
          + " | default-actions[0]: listener protocol TCP cannot forward to target group 'udp' with protocol UDP"
          + " (expected: TCP or TCP_UDP)",
      "{protocol: TLS, port: 53, default-actions: [{type: forward, target-group: both}]}"
          + " | default-actions[0]: listener protocol TLS cannot forward to target group 'both' with protocol TCP_UDP"
          + " (expected: TCP or TLS)",
      "{protocol: UDP, port: 53, ssl-policy: ELBSecurityPolicy-2016-08, default-actions: [{type: forward,"
          + " target-group: udp}]} | ssl-policy: a security policy is only for HTTPS and TLS listeners",
      "{protocol: UDP, port: 53, alpn-policy: HTTP2Only, default-actions: [{type: forward, target-group: udp}]}"
          + " | alpn-policy: an ALPN policy is only for TLS listeners",
      "{protocol: UDP, port: 53, attributes: {tcp.idle_timeout.seconds: 120}, default-actions: [{type: forward,"
          + " target-group: udp}]} | attributes.tcp.idle_timeout.seconds: Listener attribute key"
          + " 'tcp.idle_timeout.seconds' is not recognized"})
  void udpListenersThatDoNotFit_areRefusedAtTheirKey(String listener, String message) {
    assertThat(messages(nlb(listener, ALL_GROUPS))).containsExactly(L + message);
  }

  @Test
  void tcpUdpListener_takesAnIdleTimeout() {
    FulcrumConfig config = parse(nlb("{protocol: TCP_UDP, port: 53, attributes: {tcp.idle_timeout.seconds: 120},"
        + " default-actions: [{type: forward, target-group: both}]}", ALL_GROUPS));
    assertThat(config.resources().loadBalancers().get(0).listeners().get(0).attributes().tcpIdleTimeoutSeconds())
        .isEqualTo(120);
  }

  @Test
  void aNetworkListener_forwardsToWeightedGroupsOfItsFamily() {
    FulcrumConfig config = parse(nlb("{protocol: TLS, port: 443, default-actions: [{type: forward,"
        + " target-groups: [{name: tcp, weight: 90}, {name: tls, weight: 10}]}]}", TCP_GROUP));
    var forward = (io.fulcrum.model.Action.Forward) config.resources().loadBalancers().get(0).listeners().get(0)
        .defaultActions().get(0);
    assertThat(forward.targetGroups()).extracting(w -> w.name() + ":" + w.weight()).containsExactly("tcp:90", "tls:10");
    assertThat(messages(nlb("{protocol: UDP, port: 53, default-actions: [{type: forward,"
        + " target-groups: [{name: udp, weight: 0}, {name: both, weight: 1}]}]}", ALL_GROUPS))).isEmpty();
  }

  @Test
  void tlsListener_takesCertificatesAndPolicy_andForwardsToTcpOrTls() {
    FulcrumConfig config = parse(nlb("{protocol: TLS, port: 443, ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06,"
        + " default-actions: [{type: forward, target-group: tls}]}", TCP_GROUP));
    var l = config.resources().loadBalancers().get(0).listeners().get(0);
    assertThat(l.sslPolicy()).isEqualTo("ELBSecurityPolicy-TLS13-1-2-2021-06");
    assertThat(l.certificates()).as("the self-signed certificate when none is given").hasSize(1);
    assertThat(messages(nlb("{protocol: TLS, port: 443, default-actions: [{type: forward, target-group: tcp}]}",
        TCP_GROUP))).isEmpty();
    assertThat(l.alpnPolicy()).as("none given").isNull();
  }

  @Test
  void tlsListener_takesAnAlpnPolicy_byAwssName() {
    FulcrumConfig config = parse(nlb("{protocol: TLS, port: 443, alpn-policy: HTTP2Preferred,"
        + " default-actions: [{type: forward, target-group: tcp}]}", TCP_GROUP));
    var l = config.resources().loadBalancers().get(0).listeners().get(0);
    assertThat(l.alpnPolicy()).isEqualTo(io.fulcrum.model.AlpnPolicy.HTTP2_PREFERRED);
    assertThat(l.alpnPolicy().protocols()).containsExactly("h2", "http/1.1", "http/1.0");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{protocol: HTTP, port: 80, default-actions: [{type: forward, target-group: web}]}"
          + " | protocol: a network load balancer's listeners are TCP, TLS, UDP or TCP_UDP, not HTTP (HTTP and HTTPS"
          + " listeners belong to application load balancers)",
      "{protocol: QUIC, port: 443, default-actions: [{type: forward, target-group: tcp}]}"
          + " | protocol: 'QUIC' listeners are not available yet (expected: HTTP, HTTPS, TCP, TLS, UDP or TCP_UDP)",
      "{protocol: TCP, port: 80, default-actions: [{type: forward, target-group: web}]}"
          + " | default-actions[0]: listener protocol TCP cannot forward to target group 'web' with protocol HTTP"
          + " (expected: TCP or TCP_UDP)",
      "{protocol: TCP, port: 80, default-actions: [{type: forward, target-group: tls}]}"
          + " | default-actions[0]: listener protocol TCP cannot forward to target group 'tls' with protocol TLS"
          + " (expected: TCP or TCP_UDP)",
      "{protocol: TCP, port: 80, default-actions: [{type: fixed-response, status-code: 200}]}"
          + " | default-actions: a network load balancer's listener has one default action, a forward to its target"
          + " groups",
      "{protocol: TCP, port: 80, default-actions: [{type: forward, target-groups: [{name: tcp}, {name: tls}]}]}"
          + " | default-actions[0]: listener protocol TCP cannot forward to target group 'tls' with protocol TLS"
          + " (expected: TCP or TCP_UDP)",
      "{protocol: TLS, port: 443, default-actions: [{type: forward, target-groups: [{name: tcp}, {name: tls}],"
          + " stickiness: {enabled: true, duration-seconds: 60}}]}"
          + " | default-actions[0].stickiness: target group stickiness is for application load balancers (a cookie):"
          + " a network load balancer's flows each stay on the group they were given, and source_ip stickiness on"
          + " the groups keeps a client's address on one",
      "{protocol: TCP, port: 80, h2c: true, default-actions: [{type: forward, target-group: tcp}]}"
          + " | h2c: h2c is only for HTTP listeners",
      "{protocol: TCP, port: 80, ssl-policy: ELBSecurityPolicy-2016-08, default-actions: [{type: forward,"
          + " target-group: tcp}]} | ssl-policy: a security policy is only for HTTPS and TLS listeners",
      "{protocol: TCP, port: 80, alpn-policy: HTTP2Only, default-actions: [{type: forward, target-group: tcp}]}"
          + " | alpn-policy: an ALPN policy is only for TLS listeners",
      "{protocol: TLS, port: 443, alpn-policy: h2, default-actions: [{type: forward, target-group: tcp}]}"
          + " | alpn-policy: 'h2' is not an ALPN policy (expected one of: HTTP1Only, HTTP2Only, HTTP2Optional,"
          + " HTTP2Preferred, None)"})
  void listenersThatDoNotFit_areRefusedAtTheirKey(String listener, String message) {
    assertThat(messages(nlb(listener, TCP_GROUP))).containsExactly(L + message);
  }

  @Test
  void rulesOnANetworkListener_areRefused() {
    String yaml = nlb("""
        protocol: TCP
                port: 80
                default-actions: [{type: forward, target-group: tcp}]
                rules: [{priority: 1, conditions: [{field: path-pattern, values: [/a]}], actions: [{type: forward, target-group: tcp}]}]""",
        TCP_GROUP);
    assertThat(problems(yaml)).singleElement().satisfies(p -> {
      assertThat(p.code()).isEqualTo("InvalidConfigurationRequest");
      assertThat(p.toString()).contains(L + "rules: a network load balancer's listeners have no rules");
    });
  }

  @Test
  void ipv6Groups_needADualstackLoadBalancer_andOfANetworkOnesListeners_tcpOrTls() {
    String groups = """
        target-groups:
          - {name: web6, target-type: ip, protocol: HTTP, port: 80, ip-address-type: ipv6, targets: [{id: "::1"}]}
          - {name: tcp6, target-type: ip, protocol: TCP, port: 53, ip-address-type: ipv6, targets: [{id: "::1"}]}
          - {name: both6, target-type: ip, protocol: TCP_UDP, port: 53, ip-address-type: ipv6, targets: [{id: "::1"}]}
        """;
    String ipv4 = groups + """
        load-balancers:
          - name: web
            listeners:
              - {protocol: HTTP, port: 80, default-actions: [{type: forward, target-group: web6}]}
          - name: edge
            type: network
            listeners:
              - {protocol: TCP, port: 53, default-actions: [{type: forward, target-group: tcp6}]}
        """;
    assertThat(messages(ipv4)).containsExactly(
        LB + "listeners[0].default-actions[0]: target group 'web6' has IP address type ipv6: only a dualstack load"
            + " balancer forwards to it (load balancer 'web' is ipv4)",
        "load-balancers[1].listeners[0].default-actions[0]: target group 'tcp6' has IP address type ipv6: only a"
            + " dualstack load balancer forwards to it (load balancer 'edge' is ipv4)");

    String dualstack = groups + """
        load-balancers:
          - name: web
            ip-address-type: dualstack
            listeners:
              - {protocol: HTTP, port: 80, default-actions: [{type: forward, target-group: web6}]}
          - name: edge
            type: network
            ip-address-type: dualstack
            listeners:
              - {protocol: TCP, port: 53, default-actions: [{type: forward, target-group: tcp6}]}
        """;
    FulcrumConfig config = parse(dualstack);
    assertThat(config.resources().loadBalancers()).extracting(LoadBalancer::ipAddressType)
        .containsExactly(LoadBalancerIpAddressType.DUALSTACK, LoadBalancerIpAddressType.DUALSTACK);
    assertThat(messages(dualstack
        + "      - {protocol: TCP_UDP, port: 54, default-actions: [{type: forward, target-group: both6}]}\n"))
        .containsExactly("load-balancers[1].listeners[1].default-actions[0]: target group 'both6' has IP address"
            + " type ipv6: of a network load balancer's listeners, only TCP and TLS ones forward to it (this one is"
            + " TCP_UDP)");
    assertThat(messages(ipv4.replace("  - name: web\n", "  - name: web\n    ip-address-type: ipv6\n")))
        .contains(LB + "ip-address-type: 'ipv6' is not one of: ipv4, dualstack, dualstack-without-public-ipv4");
  }

  @Test
  void anApplicationLoadBalancer_refusesTcpListenersAndGroups() {
    String yaml = """
        target-groups:
          - {name: tcp, target-type: ip, protocol: TCP, port: 5432, targets: [{id: 10.0.0.1}]}
        load-balancers:
          - name: web
            listeners:
              - {protocol: TCP, port: 5432, default-actions: [{type: forward, target-group: tcp}]}
              - {protocol: HTTP, port: 80, default-actions: [{type: forward, target-group: tcp}]}
        """;
    assertThat(messages(yaml)).containsExactly(
        LB + "listeners[0].protocol: an application load balancer's listeners are HTTP or HTTPS, not TCP (TCP, TLS,"
            + " UDP and TCP_UDP listeners belong to network load balancers)",
        LB + "listeners[1].default-actions[0]: listener protocol HTTP cannot forward to target group 'tcp' with"
            + " protocol TCP");
  }

  @Test
  void anApplicationLoadBalancer_refusesUdpListeners_andCannotForwardToUdpGroups() {
    String yaml = """
        target-groups:
          - {name: udp, target-type: ip, protocol: UDP, port: 53, targets: [{id: 10.0.0.1}]}
        load-balancers:
          - name: web
            listeners:
              - {protocol: UDP, port: 53, default-actions: [{type: forward, target-group: udp}]}
              - {protocol: HTTP, port: 80, default-actions: [{type: forward, target-group: udp}]}
        """;
    assertThat(messages(yaml)).containsExactly(
        LB + "listeners[0].protocol: an application load balancer's listeners are HTTP or HTTPS, not UDP (TCP, TLS,"
            + " UDP and TCP_UDP listeners belong to network load balancers)",
        LB + "listeners[1].default-actions[0]: listener protocol HTTP cannot forward to target group 'udp' with"
            + " protocol UDP");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "protocol: QUIC | protocol: 'QUIC' target groups are not available yet (expected: HTTP, HTTPS, TCP, TLS, UDP"
          + " or TCP_UDP)",
      "protocol: TCP, protocol-version: HTTP2 | protocol-version: a protocol version is only for HTTP and HTTPS"
          + " target groups",
      "protocol: TCP, target-control-port: 3000 | target-control-port: the target optimizer is for HTTP and HTTPS"
          + " target groups",
      "protocol: TCP, attributes: {stickiness.type: lb_cookie} | attributes.stickiness.type: Stickiness type"
          + " 'lb_cookie' is not supported for target groups with the TCP protocol",
      "protocol: UDP, attributes: {preserve_client_ip.enabled: false} | attributes.preserve_client_ip.enabled: Client"
          + " IP preservation cannot be disabled for target groups with the UDP protocol",
      "protocol: TCP_UDP, attributes: {proxy_protocol_v2.enabled: true} | attributes.proxy_protocol_v2.enabled: Proxy"
          + " protocol v2 cannot be enabled for target groups with the TCP_UDP protocol",
      "protocol: UDP, attributes: {target_health_state.unhealthy.connection_termination.enabled: true}"
          + " | attributes.target_health_state.unhealthy.connection_termination.enabled: Unhealthy target connection"
          + " termination cannot be enabled for target groups with the UDP protocol",
      "protocol: UDP, health-check: {protocol: UDP} | health-check.protocol: health checks over UDP are not supported"
          + " (expected: HTTP, HTTPS or TCP)"})
  void networkGroupsThatDoNotFit_areRefusedAtTheirKey(String keys, String message) {
    String yaml = """
        target-groups:
          - {name: tcp, target-type: ip, port: 5432, %s}
        """.formatted(keys);
    assertThat(messages(yaml)).containsExactly("target-groups[0]." + message);
  }

  @Test
  void stickinessOnATlsGroup_isRefused() {
    String yaml = nlb("{protocol: TLS, port: 443, default-actions: [{type: forward, target-group: tls}]}", """
        - {name: tls, target-type: ip, protocol: TLS, port: 443, attributes: {stickiness.enabled: true},
           targets: [{id: 10.0.0.1}]}""");
    assertThat(messages(yaml)).containsExactly("target-groups[0].attributes.stickiness.enabled: You cannot enable"
        + " stickiness on target groups with the TLS protocol");
  }

  @Test
  void targetsInZoneAll_areAllowedInNetworkGroups() {
    assertThat(messages(nlb("{protocol: TCP, port: 80, default-actions: [{type: forward, target-group: tcp}]}", """
        - {name: tcp, target-type: ip, protocol: TCP, port: 80, attributes: {load_balancing.cross_zone.enabled: false},
           targets: [{id: 172.16.0.9, zone: all}]}"""))).isEmpty();
  }

  /** An application load balancer {@code web} listening on 8080, and the network load balancer {@code edge} in front. */
  private static String albBehindNlb(String albGroup, String nlbListener) {
    return """
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 10.0.0.1}]}
          %s
        load-balancers:
          - name: web
            listeners:
              - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: web}]}
          - name: edge
            type: network
            listeners:
              - %s
        """.formatted(albGroup, nlbListener);
  }

  private static final String TO_ALB = "{protocol: TCP, port: 80, default-actions: [{type: forward, target-group: to-web}]}";

  @Test
  void albTargetGroup_namesItsApplicationLoadBalancer_byNameOrArn() {
    FulcrumConfig config = parse(albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 8080,"
        + " targets: [{id: web}]}", TO_ALB));
    LoadBalancer web = config.resources().loadBalancers().get(0);
    TargetGroup group = config.resources().targetGroups().get(1);
    assertThat(group.targetType()).isEqualTo(io.fulcrum.model.TargetType.ALB);
    assertThat(group.targets()).extracting(t -> t.id() + ":" + t.port() + "@" + t.zone())
        .containsExactly(web.arn() + ":8080@all");
    assertThat(group.healthCheck().protocol()).isEqualTo(Protocol.HTTP);
    assertThat(group.healthCheck().timeoutSeconds()).isEqualTo(6);
    assertThat(parse(albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 8080, targets: [{id: \""
        + web.arn() + "\"}]}", TO_ALB)).resources().targetGroups().get(1).targets()).isEqualTo(group.targets());
  }

  @Test
  void albTargetGroup_whatAwsDoesNotAllow_isRejectedAtItsKey() {
    String tg = "target-groups[1].";
    assertThat(messages(albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 9090,"
        + " targets: [{id: web}]}", TO_ALB))).containsExactly(tg + "targets[0].port: The application load balancer"
        + " 'web' has no listener on port 9090 (its listeners' ports: 8080); the target's port must be the port of one"
        + " of its listeners");
    assertThat(messages(albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 8080,"
        + " targets: [{id: edge}]}", TO_ALB))).containsExactly(tg + "targets[0].id: 'edge' is a network load balancer:"
        + " only an application load balancer can be the target of a target group of type alb");
    assertThat(messages(albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 8080,"
        + " targets: [{id: shop}]}", TO_ALB))).containsExactly(tg + "targets[0].id: The load balancer '"
        + "arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/shop/"
        + new io.fulcrum.model.Arns("us-east-1", "000000000000").stableId("loadbalancer", "shop")
        + "' does not exist");
    assertThat(messages(albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 8080,"
        + " attributes: {deregistration_delay.timeout_seconds: 30}, targets: [{id: web}]}", TO_ALB)))
        .containsExactly(tg + "attributes.deregistration_delay.timeout_seconds: The attributes of target groups with"
            + " target type 'alb' cannot be modified: deregistration_delay.timeout_seconds stays 300");
    assertThat(messages(albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 8080,"
        + " targets: [{id: web}]}", "{protocol: TLS, port: 443, default-actions: [{type: forward, target-group:"
        + " to-web}]}"))).containsExactly(LB.replace("[0]", "[1]") + "listeners[0].default-actions[0]: listener"
        + " protocol TLS cannot forward to target group 'to-web' of type alb: only TCP listeners forward to an"
        + " application load balancer (its HTTPS listeners end TLS)");
  }

  @Test
  void albTarget_isReachedAtItsLoadBalancersFirstNode_whicheverZonesItHas() {
    String yaml = "nodes: [{zone: zone-a, address: 127.0.0.1}, {zone: zone-b, address: 127.0.0.2},"
        + " {zone: zone-c, address: 127.0.0.3}]\n"
        + albBehindNlb("- {name: to-web, target-type: alb, protocol: TCP, port: 8080, targets: [{id: web}]}", TO_ALB)
            .replace("  - name: web\n", "  - name: web\n    zones: [zone-b, zone-c]\n");
    FulcrumConfig config = parse(yaml);
    io.fulcrum.model.Resources read = config.resources();
    assertThat(read.targetGroups().get(1).targets().get(0).address()).as("set by the registry").isNull();
    io.fulcrum.model.Resources located = AlbTargets.withAddresses(config.environment(), read);
    assertThat(located.targetGroups().get(1).targets().get(0).address()).isEqualTo("127.0.0.2");
    assertThat(AlbTargets.zoneAddresses(config.environment(), located.loadBalancers().get(0)))
        .containsExactly(java.util.Map.entry("zone-b", "127.0.0.2"), java.util.Map.entry("zone-c", "127.0.0.3"));
    assertThat(AlbTargets.withAddresses(config.environment(), located)).as("nothing to change").isSameAs(located);

    LoadBalancer moved = located.loadBalancers().get(0).withZones(java.util.List.of("zone-a", "zone-c"));
    io.fulcrum.model.Resources after = new io.fulcrum.model.Resources(java.util.List.of(moved,
        located.loadBalancers().get(1)), located.targetGroups());
    assertThat(AlbTargets.withAddresses(config.environment(), after).targetGroups().get(1).targets().get(0).address())
        .as("its zones changed").isEqualTo("127.0.0.1");
    io.fulcrum.model.Resources gone = new io.fulcrum.model.Resources(java.util.List.of(located.loadBalancers().get(1)),
        located.targetGroups());
    assertThat(AlbTargets.withAddresses(config.environment(), gone)).as("a draining target keeps its address")
        .isSameAs(gone);
  }
}
