package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.forward;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fulcrum.model.Arns;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TcpTarget;
import io.fulcrum.testing.TestCertificates;
import java.nio.file.Path;
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
 * Network load balancers through the real AWS SDK (SPEC §7, §8): created with their TCP target
 * groups and TCP or TLS listeners, described with NLB's defaults, carrying connections to real
 * targets at once; and what an NLB cannot have refused with AWS's codes, changing nothing.
 */
class NetworkLoadBalancerApiTest {

  private static final String SELF_SIGNED = new Arns("us-east-1", "000000000000").selfSignedCertificate();

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

  private TargetGroup createTcpGroup(String name) {
    return h.elb.createTargetGroup(b -> b.name(name).protocol(ProtocolEnum.TCP).port(80).vpcId(ApiGateway.VPC)
        .targetType(TargetTypeEnum.IP)).targetGroups().get(0);
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
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb).protocol(ProtocolEnum.UDP).port(port)
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
    h.refusedUnchanged(() -> h.elb.createTargetGroup(b -> b.name("udp").protocol(ProtocolEnum.UDP).port(53)
        .vpcId(ApiGateway.VPC)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createLoadBalancer(b -> b.name("gw").type(LoadBalancerTypeEnum.GATEWAY)),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(tcp.targetGroupArn())
        .attributes(a -> a.key("stickiness.type").value("lb_cookie"))), "InvalidConfigurationRequest");
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
