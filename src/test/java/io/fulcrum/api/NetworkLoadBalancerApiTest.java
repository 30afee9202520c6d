package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.forward;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fulcrum.model.Arns;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TcpTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.UdpTarget;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Listener;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ListenerAttribute;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancer;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * Network load balancers through the real AWS SDK (SPEC §7, §8): created with their TCP, TLS, UDP
 * and TCP_UDP target groups and listeners, described with NLB's defaults, carrying connections (and
 * datagrams) to real targets at once; and what an NLB cannot have refused with AWS's codes,
 * changing nothing.
 */
class NetworkLoadBalancerApiTest {

  private static final String SELF_SIGNED = new Arns("us-east-1", "000000000000").selfSignedCertificate();

  @TempDir
  Path dir;
  private LbApiHarness h;
  private TcpTarget target;
  private UdpTarget udpTarget;

  @AfterEach
  void stop() {
    if (target != null) {
      target.close();
    }
    if (udpTarget != null) {
      udpTarget.close();
    }
    if (h != null) {
      h.close();
    }
  }

  private TargetGroup createTcpGroup(String name) {
    return h.elb.createTargetGroup(b -> b.name(name).protocol(ProtocolEnum.TCP).port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.IP)).targetGroups().get(0);
  }

  private TargetGroup createGroup(String name, ProtocolEnum protocol, TargetTypeEnum type) {
    return h.elb.createTargetGroup(b -> b.name(name).protocol(protocol).port(53).vpcId(ApiGateway.VPC)
        .targetType(type)).targetGroups().get(0);
  }

  private Map<String, String> attributesOf(TargetGroup tg) {
    return h.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(tg.targetGroupArn())).attributes().stream()
        .collect(Collectors.toMap(a -> a.key(), a -> a.value()));
  }

  private Listener createListener(String lbArn, ProtocolEnum protocol, TargetGroup tg) {
    return h.elb.createListener(b -> b.loadBalancerArn(lbArn).protocol(protocol).port(Ports.free())
        .defaultActions(forward(tg.targetGroupArn()))).listeners().get(0);
  }

  private LoadBalancer createNetworkLoadBalancer(String name) {
    return h.elb.createLoadBalancer(b -> b.name(name).type(LoadBalancerTypeEnum.NETWORK).subnets("zone-a"))
        .loadBalancers().get(0);
  }

  @Test
  void networkLoadBalancer_createdThroughTheSdk_carriesConnectionsToItsTargets() throws Exception {
    h = LbApiHarness.start(dir);
    target = TcpTarget.start(h.backends, "t");
    TargetGroup tg = createTcpGroup("db");
    assertThat(tg.protocol()).isEqualTo(ProtocolEnum.TCP);
    assertThat(tg.healthCheckProtocol()).isEqualTo(ProtocolEnum.TCP);
    assertThat(tg.healthCheckIntervalSeconds()).isEqualTo(30);
    assertThat(tg.healthCheckTimeoutSeconds()).isEqualTo(10);
    assertThat(tg.healthyThresholdCount()).isEqualTo(5);
    assertThat(tg.unhealthyThresholdCount()).isEqualTo(2);
    assertThat(tg.protocolVersion()).as("only HTTP and HTTPS groups have one").isNull();
    h.elb.registerTargets(b -> b.targetGroupArn(tg.targetGroupArn())
        .targets(t -> t.id("127.0.0.1").port(target.port()).availabilityZone("zone-a")));

    LoadBalancer lb = createNetworkLoadBalancer("edge");
    assertThat(lb.type()).isEqualTo(LoadBalancerTypeEnum.NETWORK);
    assertThat(lb.loadBalancerArn()).contains(":loadbalancer/net/edge/");
    Map<String, String> lbAttributes = h.elb.describeLoadBalancerAttributes(b -> b.loadBalancerArn(lb.loadBalancerArn()))
        .attributes().stream().collect(Collectors.toMap(a -> a.key(), a -> a.value()));
    assertThat(lbAttributes).containsEntry("load_balancing.cross_zone.enabled", "false")
        .doesNotContainKey("idle_timeout.timeout_seconds");

    int port = Ports.free();
    Listener listener = h.elb.createListener(b -> b.loadBalancerArn(lb.loadBalancerArn()).protocol(ProtocolEnum.TCP)
        .port(port).defaultActions(forward(tg.targetGroupArn()))).listeners().get(0);
    assertThat(listener.protocol()).isEqualTo(ProtocolEnum.TCP);
    try (FlowClient c = FlowClient.connect(port)) {
      assertThat(c.ask("hello")).as("the listener serves once CreateListener answers").isEqualTo("t:hello");
    }

    Map<String, String> attributes = h.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(tg.targetGroupArn()))
        .attributes().stream().collect(Collectors.toMap(a -> a.key(), a -> a.value()));
    assertThat(attributes).containsEntry("proxy_protocol_v2.enabled", "false")
        .containsEntry("deregistration_delay.connection_termination.enabled", "false")
        .containsEntry("target_health_state.unhealthy.connection_termination.enabled", "true")
        .containsEntry("stickiness.type", "source_ip");
    h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(tg.targetGroupArn())
        .attributes(a -> a.key("proxy_protocol_v2.enabled").value("true")));
    try (FlowClient c = FlowClient.connect(port)) {
      assertThat(c.ask("with header")).isEqualTo("t:with header");
    }
    assertThat(target.proxyHeaders()).as("the attribute applies to new connections at once").hasSize(1);

    // Turned into a TLS listener with the self-signed certificate: clients now speak TLS to it.
    Listener tls = h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn()).protocol(ProtocolEnum.TLS)
        .certificates(c -> c.certificateArn(SELF_SIGNED))).listeners().get(0);
    assertThat(tls.protocol()).isEqualTo(ProtocolEnum.TLS);
    assertThat(tls.sslPolicy()).isEqualTo("ELBSecurityPolicy-2016-08");
    SSLContext context = TestCertificates.trustingAnything(); // the deployment's self-signed certificate
    try (FlowClient c = FlowClient.over(context.getSocketFactory().createSocket("127.0.0.1", port))) {
      assertThat(c.ask("over tls")).as("the TLS server serves once ModifyListener answers").isEqualTo("t:over tls");
    }

    // An ALPN policy: the server negotiates by it at once, DescribeListeners reports it, and a change
    // that does not name one keeps it.
    assertThat(tls.alpnPolicy()).as("none given").isEmpty();
    h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn()).alpnPolicy("HTTP2Preferred"));
    assertThat(negotiated(context, port, "http/1.1", "h2")).isEqualTo("h2");
    h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn()).sslPolicy("ELBSecurityPolicy-TLS13-1-2-2021-06"));
    assertThat(h.elb.describeListeners(b -> b.listenerArns(listener.listenerArn())).listeners().get(0).alpnPolicy())
        .containsExactly("HTTP2Preferred");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn()).alpnPolicy("HTTP3")),
        "ALPNPolicyNotFound");
    h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn()).alpnPolicy("None"));
    assertThat(negotiated(context, port, "http/1.1", "h2")).as("None: nothing negotiated").isEmpty();
  }

  /** The protocol a client offering {@code offer} negotiates with the TLS listener on {@code port} ("" for none). */
  private static String negotiated(SSLContext context, int port, String... offer) {
    try (FlowClient c = FlowClient.tls(context, port, offer)) {
      assertThat(c.ask("negotiated")).isEqualTo("t:negotiated");
      return c.applicationProtocol();
    }
  }

  @Test
  void whatANetworkLoadBalancerCannotHave_isRefused_andChangesNothing() {
    h = LbApiHarness.start(dir);
    TargetGroup tcp = createTcpGroup("db");
    String nlb = createNetworkLoadBalancer("edge").loadBalancerArn();
    int port = Ports.free();
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.HTTP).port(port)
        .defaultActions(forward(tcp.targetGroupArn()))), "UnsupportedProtocol");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.TCP).port(port)
        .defaultActions(forward(h.tg("blue")))), "IncompatibleProtocols");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.QUIC).port(port)
        .defaultActions(forward(tcp.targetGroupArn()))), "UnsupportedProtocol");
    String listener = h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.TCP).port(port)
        .defaultActions(forward(tcp.targetGroupArn()))).listeners().get(0).listenerArn();
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(listener).priority(1)
        .conditions(LbApiHarness.path("/a")).actions(forward(tcp.targetGroupArn()))), "InvalidConfigurationRequest");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.TLS)
        .port(Ports.free()).defaultActions(forward(tcp.targetGroupArn()))), "ValidationError");

    String alb = h.createLoadBalancer("web");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(alb).protocol(ProtocolEnum.TCP)
        .port(Ports.free()).defaultActions(forward(h.tg("blue")))), "UnsupportedProtocol");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(alb).protocol(ProtocolEnum.HTTP)
        .port(Ports.free()).defaultActions(forward(tcp.targetGroupArn()))), "IncompatibleProtocols");
    h.refusedUnchanged(() -> h.elb.createTargetGroup(b -> b.name("h2").protocol(ProtocolEnum.TCP).port(80)
        .vpcId(ApiGateway.VPC).protocolVersion("HTTP2")), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createTargetGroup(b -> b.name("quic").protocol(ProtocolEnum.QUIC).port(443)
        .vpcId(ApiGateway.VPC)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("gw").type(LoadBalancerTypeEnum.GATEWAY)),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(tcp.targetGroupArn())
        .attributes(a -> a.key("stickiness.type").value("lb_cookie"))), "InvalidConfigurationRequest");
  }

  @Test
  void udpAndTcpUdpGroups_areCreated_withNlbsUdpDefaults_andCheckedOverTcp() {
    h = LbApiHarness.start(dir);
    TargetGroup udpIp = createGroup("dns", ProtocolEnum.UDP, TargetTypeEnum.IP);
    TargetGroup udpInstance = createGroup("dns-i", ProtocolEnum.UDP, TargetTypeEnum.INSTANCE);
    TargetGroup both = createGroup("both", ProtocolEnum.TCP_UDP, TargetTypeEnum.IP);
    assertThat(udpIp.protocol()).isEqualTo(ProtocolEnum.UDP);
    assertThat(udpInstance.targetType()).isEqualTo(TargetTypeEnum.INSTANCE);
    assertThat(both.protocol()).isEqualTo(ProtocolEnum.TCP_UDP);
    for (TargetGroup tg : List.of(udpIp, udpInstance, both)) {
      assertThat(tg.healthCheckProtocol()).as("%s: checked over TCP by default", tg.targetGroupName())
          .isEqualTo(ProtocolEnum.TCP);
      assertThat(tg.healthCheckPort()).isEqualTo("traffic-port");
      assertThat(tg.protocolVersion()).as("only HTTP and HTTPS groups have one").isNull();
      assertThat(attributesOf(tg)).as(tg.targetGroupName())
          .containsEntry("deregistration_delay.connection_termination.enabled", "true")
          .containsEntry("preserve_client_ip.enabled", "true")
          .containsEntry("target_health_state.unhealthy.connection_termination.enabled", "false")
          .containsEntry("proxy_protocol_v2.enabled", "false")
          .containsEntry("stickiness.type", "source_ip");
    }
    assertThat(h.resources().targetGroupByName("both").orElseThrow().protocol())
        .isEqualTo(io.fulcrum.model.Protocol.TCP_UDP);

    TargetGroup httpChecked = h.elb.createTargetGroup(b -> b.name("dns-http").protocol(ProtocolEnum.UDP).port(53)
        .vpcId(ApiGateway.VPC).targetType(TargetTypeEnum.IP).healthCheckProtocol(ProtocolEnum.HTTP)
        .healthCheckPort("8080")).targetGroups().get(0);
    assertThat(httpChecked.healthCheckProtocol()).isEqualTo(ProtocolEnum.HTTP);
    assertThat(httpChecked.healthCheckPath()).isEqualTo("/");
    // Back to TCP checks: the path and matcher of the HTTP check go with it; and to HTTPS again, whose defaults come back.
    TargetGroup tcpChecked = h.elb.modifyTargetGroup(b -> b.targetGroupArn(httpChecked.targetGroupArn())
        .healthCheckProtocol(ProtocolEnum.TCP)).targetGroups().get(0);
    assertThat(tcpChecked.healthCheckProtocol()).isEqualTo(ProtocolEnum.TCP);
    assertThat(tcpChecked.healthCheckPath()).isNull();
    assertThat(tcpChecked.matcher()).isNull();
    assertThat(tcpChecked.healthCheckPort()).as("kept").isEqualTo("8080");
    TargetGroup httpsChecked = h.elb.modifyTargetGroup(b -> b.targetGroupArn(httpChecked.targetGroupArn())
        .healthCheckProtocol(ProtocolEnum.HTTPS)).targetGroups().get(0);
    assertThat(httpsChecked.healthCheckPath()).isEqualTo("/");
    assertThat(httpsChecked.matcher().httpCode()).isEqualTo("200-399");
    for (ProtocolEnum checked : List.of(ProtocolEnum.UDP, ProtocolEnum.TCP_UDP)) {
      assertThat(h.refusedUnchanged(() -> h.elb.createTargetGroup(b -> b.name("dns-udp").protocol(ProtocolEnum.UDP)
          .port(53).vpcId(ApiGateway.VPC).targetType(TargetTypeEnum.IP).healthCheckProtocol(checked)),
          "ValidationError").awsErrorDetails().errorMessage())
          .contains("health checks over " + checked + " are not supported (expected: HTTP, HTTPS or TCP)");
    }
  }

  @Test
  void udpGroup_refusesWhatADatagramFlowCannotHave_andChangesNothing() {
    h = LbApiHarness.start(dir);
    TargetGroup udp = createGroup("dns", ProtocolEnum.UDP, TargetTypeEnum.IP);
    TargetGroup both = createGroup("both", ProtocolEnum.TCP_UDP, TargetTypeEnum.INSTANCE);
    Map<String, String> messages = Map.of(
        "preserve_client_ip.enabled",
        "Client IP preservation cannot be disabled for target groups with the %s protocol",
        "proxy_protocol_v2.enabled", "Proxy protocol v2 cannot be enabled for target groups with the %s protocol",
        "target_health_state.unhealthy.connection_termination.enabled",
        "Unhealthy target connection termination cannot be enabled for target groups with the %s protocol");
    for (TargetGroup tg : List.of(udp, both)) {
      for (Map.Entry<String, String> refused : messages.entrySet()) {
        String value = refused.getKey().startsWith("preserve") ? "false" : "true";
        assertThat(h.refusedUnchanged(() -> h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(tg.targetGroupArn())
            .attributes(a -> a.key(refused.getKey()).value(value))), "InvalidConfigurationRequest")
            .awsErrorDetails().errorMessage()).contains(refused.getValue().formatted(tg.protocol()));
      }
    }
    assertThat(attributesOf(udp)).containsEntry("preserve_client_ip.enabled", "true")
        .containsEntry("proxy_protocol_v2.enabled", "false")
        .containsEntry("target_health_state.unhealthy.connection_termination.enabled", "false");

    // What a UDP group may change: connection termination at the end of the delay, source_ip stickiness.
    h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(udp.targetGroupArn()).attributes(
        a -> a.key("deregistration_delay.connection_termination.enabled").value("false"),
        a -> a.key("stickiness.enabled").value("true")));
    assertThat(attributesOf(udp)).containsEntry("deregistration_delay.connection_termination.enabled", "false")
        .containsEntry("stickiness.enabled", "true")
        .containsEntry("preserve_client_ip.enabled", "true");
  }

  @Test
  void udpListener_carriesDatagramsToItsTargets_onceCreateListenerAnswers() throws Exception {
    h = LbApiHarness.start(dir);
    udpTarget = UdpTarget.start(h.backends, "u");
    TargetGroup udp = createGroup("dns", ProtocolEnum.UDP, TargetTypeEnum.IP);
    h.elb.registerTargets(b -> b.targetGroupArn(udp.targetGroupArn())
        .targets(t -> t.id("127.0.0.1").port(udpTarget.port()).availabilityZone("zone-a")));
    String nlb = createNetworkLoadBalancer("edge").loadBalancerArn();
    Listener listener = createListener(nlb, ProtocolEnum.UDP, udp);
    assertThat(listener.protocol()).isEqualTo(ProtocolEnum.UDP);
    assertThat(listener.certificates()).isEmpty();
    assertThat(listener.sslPolicy()).isNull();

    try (DatagramSocket client = new DatagramSocket()) {
      client.setSoTimeout(5000);
      byte[] question = "hello".getBytes(StandardCharsets.UTF_8);
      client.send(new DatagramPacket(question, question.length, new InetSocketAddress("127.0.0.1", listener.port())));
      DatagramPacket answer = new DatagramPacket(new byte[512], 512);
      client.receive(answer);
      assertThat(new String(answer.getData(), 0, answer.getLength(), StandardCharsets.UTF_8)).isEqualTo("u:hello");
    }
    assertThat(udpTarget.datagrams()).isEqualTo(1);
  }

  @Test
  void udpAndTcpUdpListeners_forwardOnlyToGroupsOfTheirFamily() {
    h = LbApiHarness.start(dir);
    TargetGroup tcp = createTcpGroup("db");
    TargetGroup tls = h.elb.createTargetGroup(b -> b.name("tls").protocol(ProtocolEnum.TLS).port(443)
        .vpcId(ApiGateway.VPC).targetType(TargetTypeEnum.IP)).targetGroups().get(0);
    TargetGroup udp = createGroup("dns", ProtocolEnum.UDP, TargetTypeEnum.IP);
    TargetGroup both = createGroup("both", ProtocolEnum.TCP_UDP, TargetTypeEnum.IP);
    String nlb = createNetworkLoadBalancer("edge").loadBalancerArn();

    assertThat(createListener(nlb, ProtocolEnum.UDP, udp).protocol()).isEqualTo(ProtocolEnum.UDP);
    assertThat(createListener(nlb, ProtocolEnum.UDP, both).protocol()).isEqualTo(ProtocolEnum.UDP);
    assertThat(createListener(nlb, ProtocolEnum.TCP, both).protocol()).isEqualTo(ProtocolEnum.TCP);
    Listener tcpUdp = createListener(nlb, ProtocolEnum.TCP_UDP, both);
    assertThat(tcpUdp.protocol()).isEqualTo(ProtocolEnum.TCP_UDP);
    assertThat(h.elb.describeListeners(b -> b.loadBalancerArn(nlb)).listeners()).extracting(Listener::protocol)
        .containsExactly(ProtocolEnum.UDP, ProtocolEnum.UDP, ProtocolEnum.TCP, ProtocolEnum.TCP_UDP);

    int port = Ports.free();
    for (var unfit : List.of(Map.entry(ProtocolEnum.UDP, tcp), Map.entry(ProtocolEnum.UDP, tls),
        Map.entry(ProtocolEnum.TCP_UDP, udp), Map.entry(ProtocolEnum.TCP_UDP, tcp), Map.entry(ProtocolEnum.TCP, udp))) {
      h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(unfit.getKey()).port(port)
          .defaultActions(forward(unfit.getValue().targetGroupArn()))), "IncompatibleProtocols");
    }
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.TLS).port(port)
        .certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(both.targetGroupArn()))),
        "IncompatibleProtocols");
    // A listener already there cannot be turned into one its group does not fit either.
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(tcpUdp.listenerArn()).protocol(ProtocolEnum.TCP)
        .defaultActions(forward(udp.targetGroupArn()))), "IncompatibleProtocols");
    assertThat(h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.UDP)
        .port(port).defaultActions(forward(tcp.targetGroupArn()))), "IncompatibleProtocols")
        .awsErrorDetails().errorMessage()).contains("listener protocol UDP cannot forward to target group 'db' with"
            + " protocol TCP (expected: UDP or TCP_UDP)");
    assertThat(h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.TCP_UDP)
        .port(port).defaultActions(forward(udp.targetGroupArn()))), "IncompatibleProtocols")
        .awsErrorDetails().errorMessage()).contains("(expected: TCP_UDP)");

    // A UDP listener takes no certificate, security policy or ALPN policy.
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.UDP).port(port)
        .certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(udp.targetGroupArn()))),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.UDP).port(port)
        .sslPolicy("ELBSecurityPolicy-2016-08").defaultActions(forward(udp.targetGroupArn()))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.UDP).port(port)
        .alpnPolicy("HTTP2Preferred").defaultActions(forward(udp.targetGroupArn()))), "ALPNPolicyNotFound");

    // An application load balancer has no UDP listeners.
    String alb = h.createLoadBalancer("web");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(alb).protocol(ProtocolEnum.UDP)
        .port(port).defaultActions(forward(udp.targetGroupArn()))), "UnsupportedProtocol");
  }

  @Test
  void weightedTargetGroups_sendNewFlowsByWeight_andAChangeLeavesOpenFlowsWhereTheyAre() {
    h = LbApiHarness.start(dir);
    target = TcpTarget.start(h.backends, "blue");
    try (TcpTarget green = TcpTarget.start(h.backends, "green")) {
      TargetGroup blue = createTcpGroup("blue-db");
      TargetGroup greenGroup = createTcpGroup("green-db");
      h.elb.registerTargets(b -> b.targetGroupArn(blue.targetGroupArn())
          .targets(t -> t.id("127.0.0.1").port(target.port()).availabilityZone("zone-a")));
      h.elb.registerTargets(b -> b.targetGroupArn(greenGroup.targetGroupArn())
          .targets(t -> t.id("127.0.0.1").port(green.port()).availabilityZone("zone-a")));
      String nlb = createNetworkLoadBalancer("edge").loadBalancerArn();
      int port = Ports.free();
      Listener listener = h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.TCP).port(port)
          .defaultActions(weighted(blue, 1, greenGroup, 0))).listeners().get(0);
      assertThat(listener.defaultActions().get(0).forwardConfig().targetGroups())
          .extracting(t -> t.targetGroupArn(), t -> t.weight())
          .containsExactly(tuple(blue.targetGroupArn(), 1), tuple(greenGroup.targetGroupArn(), 0));

      FlowClient open = FlowClient.connect(null, "127.0.0.1", port);
      try {
        assertThat(open.target()).isEqualTo("blue");
        for (int i = 0; i < 8; i++) {
          try (FlowClient c = FlowClient.connect(null, "127.0.0.1", port)) {
            assertThat(c.target()).as("green's weight is 0").isEqualTo("blue");
          }
        }
        h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn()).defaultActions(weighted(blue, 0, greenGroup, 1)));
        for (int i = 0; i < 8; i++) {
          try (FlowClient c = FlowClient.connect(null, "127.0.0.1", port)) {
            assertThat(c.target()).as("new flows follow the new weights").isEqualTo("green");
          }
        }
        assertThat(open.ask("still here")).as("an open flow stays on its group").isEqualTo("blue:still here");

        // Even weights: flows spread over both groups.
        h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn()).defaultActions(weighted(blue, 5, greenGroup, 5)));
        java.util.Set<String> reached = new java.util.HashSet<>();
        for (int i = 0; i < 40 && reached.size() < 2; i++) {
          try (FlowClient c = FlowClient.connect(null, "127.0.0.1", port)) {
            reached.add(c.target());
          }
        }
        assertThat(reached).containsExactlyInAnyOrder("blue", "green");
      } finally {
        open.close();
      }

      TargetGroup tls = h.elb.createTargetGroup(b -> b.name("tls").protocol(ProtocolEnum.TLS).port(443)
          .vpcId(ApiGateway.VPC).targetType(TargetTypeEnum.IP)).targetGroups().get(0);
      h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn())
          .defaultActions(weighted(blue, 1, tls, 1))), "IncompatibleProtocols");
      assertThat(h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(listener.listenerArn())
          .defaultActions(weighted(blue, 1, greenGroup, 1).toBuilder().forwardConfig(weighted(blue, 1, greenGroup, 1)
              .forwardConfig().toBuilder().targetGroupStickinessConfig(st -> st.enabled(true).durationSeconds(60))
              .build()).build())), "InvalidConfigurationRequest").awsErrorDetails().errorMessage())
          .contains("target group stickiness is for application load balancers");
    }
  }

  private static software.amazon.awssdk.services.elasticloadbalancingv2.model.Action weighted(TargetGroup a, int aWeight,
      TargetGroup b, int bWeight) {
    return software.amazon.awssdk.services.elasticloadbalancingv2.model.Action.builder().type("forward")
        .forwardConfig(f -> f.targetGroups(t -> t.targetGroupArn(a.targetGroupArn()).weight(aWeight),
            t -> t.targetGroupArn(b.targetGroupArn()).weight(bWeight))).build();
  }

  @Test
  void udpListener_hasNoAttributes_whileTcpUdpListenerHasTheIdleTimeout() {
    h = LbApiHarness.start(dir);
    TargetGroup both = createGroup("both", ProtocolEnum.TCP_UDP, TargetTypeEnum.IP);
    String nlb = createNetworkLoadBalancer("edge").loadBalancerArn();
    String udp = createListener(nlb, ProtocolEnum.UDP, both).listenerArn();
    String tcpUdp = createListener(nlb, ProtocolEnum.TCP_UDP, both).listenerArn();

    assertThat(h.elb.describeListenerAttributes(b -> b.listenerArn(udp)).attributes())
        .as("UDP flows have a fixed idle timeout").isEmpty();
    assertThat(h.refusedUnchanged(() -> h.elb.modifyListenerAttributes(b -> b.listenerArn(udp)
        .attributes(a -> a.key("tcp.idle_timeout.seconds").value("120"))), "ValidationError")
        .awsErrorDetails().errorMessage()).contains("'tcp.idle_timeout.seconds' is not recognized");

    assertThat(h.elb.describeListenerAttributes(b -> b.listenerArn(tcpUdp)).attributes())
        .extracting(ListenerAttribute::key, ListenerAttribute::value)
        .containsExactly(tuple("tcp.idle_timeout.seconds", "350"));
    assertThat(h.elb.modifyListenerAttributes(b -> b.listenerArn(tcpUdp)
        .attributes(a -> a.key("tcp.idle_timeout.seconds").value("120"))).attributes())
        .extracting(ListenerAttribute::value).containsExactly("120");

    // Turned into a TCP_UDP listener, the UDP listener gains the TCP side's idle timeout at its default.
    h.elb.modifyListener(b -> b.listenerArn(udp).protocol(ProtocolEnum.TCP_UDP));
    assertThat(h.elb.describeListenerAttributes(b -> b.listenerArn(udp)).attributes())
        .extracting(ListenerAttribute::key, ListenerAttribute::value)
        .containsExactly(tuple("tcp.idle_timeout.seconds", "350"));
  }

  @Test
  void tcpListener_hasNlbsIdleTimeout_asItsOneAttribute() {
    h = LbApiHarness.start(dir);
    TargetGroup tcp = createTcpGroup("db");
    String nlb = createNetworkLoadBalancer("edge").loadBalancerArn();
    String listener = h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.TCP).port(Ports.free())
        .defaultActions(forward(tcp.targetGroupArn()))).listeners().get(0).listenerArn();

    assertThat(h.elb.describeListenerAttributes(b -> b.listenerArn(listener)).attributes())
        .extracting(ListenerAttribute::key, ListenerAttribute::value).containsExactly(tuple("tcp.idle_timeout.seconds", "350"));
    assertThat(h.elb.modifyListenerAttributes(b -> b.listenerArn(listener)
        .attributes(a -> a.key("tcp.idle_timeout.seconds").value("120"))).attributes())
        .extracting(ListenerAttribute::value).containsExactly("120");
    h.refusedUnchanged(() -> h.elb.modifyListenerAttributes(b -> b.listenerArn(listener)
        .attributes(a -> a.key("tcp.idle_timeout.seconds").value("6001"))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyListenerAttributes(b -> b.listenerArn(listener)
        .attributes(a -> a.key("routing.http.response.server.enabled").value("false"))), "ValidationError");
    assertThat(h.resources().loadBalancers().stream().filter(lb -> lb.arn().equals(nlb)).findFirst().orElseThrow()
        .listeners().get(0).attributes().tcpIdleTimeoutSeconds()).as("what the flows go by").isEqualTo(120);
  }
}
