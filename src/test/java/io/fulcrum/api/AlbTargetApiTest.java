package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.body;
import static io.fulcrum.api.LbApiHarness.forward;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.listener.CarriedClients;
import io.fulcrum.model.Arns;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.Tool;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancer;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.LoadBalancerTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RuleCondition;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetHealthDescription;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetHealthStateEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * An application load balancer as the target of a network load balancer (target type {@code alb},
 * SPEC §8.1), through the real AWS SDK: the NLB's TCP listener carries HTTP to the ALB's listener,
 * which routes it to real backends; the NLB's node in each zone reaches the ALB's node in the same
 * zone; the ALB is checked over HTTP through itself; and what AWS does not allow is refused with
 * its codes, changing nothing.
 */
class AlbTargetApiTest {

  private static final String SELF_SIGNED = new Arns("us-east-1", "000000000000").selfSignedCertificate();

  @TempDir
  Path dir;
  private LbApiHarness h;

  @AfterEach
  void stop() {
    if (h != null) {
      h.close();
    }
  }

  private String groupArn(String name) {
    return h.elb.describeTargetGroups(b -> b.names(name)).targetGroups().get(0).targetGroupArn();
  }

  /** An application load balancer in both zones with an HTTP listener on {@code port} forwarding to {@code group}. */
  private LoadBalancer applicationLoadBalancer(String name, int port, String group) {
    LoadBalancer alb = h.elb.createLoadBalancer(b -> b.name(name)).loadBalancers().get(0);
    h.elb.createListener(b -> b.loadBalancerArn(alb.loadBalancerArn()).protocol(ProtocolEnum.HTTP).port(port)
        .defaultActions(forward(groupArn(group))));
    return alb;
  }

  private TargetGroup albGroup(String name, int port) {
    return h.elb.createTargetGroup(b -> b.name(name).targetType(TargetTypeEnum.ALB).protocol(ProtocolEnum.TCP)
        .port(port).vpcId(ApiGateway.VPC)).targetGroups().get(0);
  }

  private LoadBalancer networkLoadBalancer(String name, String... zones) {
    return h.elb.createLoadBalancer(b -> b.name(name).type(LoadBalancerTypeEnum.NETWORK).subnets(zones))
        .loadBalancers().get(0);
  }

  private void tcpListener(LoadBalancer nlb, int port, TargetGroup group) {
    h.elb.createListener(b -> b.loadBalancerArn(nlb.loadBalancerArn()).protocol(ProtocolEnum.TCP).port(port)
        .defaultActions(forward(group.targetGroupArn())));
  }

  private TargetHealthDescription health(TargetGroup group) {
    List<TargetHealthDescription> all = h.elb.describeTargetHealth(b -> b.targetGroupArn(group.targetGroupArn()))
        .targetHealthDescriptions();
    assertThat(all).hasSize(1);
    return all.get(0);
  }

  @Test
  void networkLoadBalancer_forwardsToAnApplicationLoadBalancer_whichRoutesAsItsRulesSay() {
    h = LbApiHarness.onVirtualTime(dir);
    int albPort = Ports.free();
    LoadBalancer alb = applicationLoadBalancer("web", albPort, "blue");
    TargetGroup tg = albGroup("web-alb", albPort);
    assertThat(tg.targetType()).isEqualTo(TargetTypeEnum.ALB);
    assertThat(tg.healthCheckProtocol()).as("an alb group is checked over HTTP by default").isEqualTo(ProtocolEnum.HTTP);
    assertThat(tg.healthCheckPath()).isEqualTo("/");
    assertThat(tg.healthCheckPort()).isEqualTo("traffic-port");
    assertThat(tg.healthCheckTimeoutSeconds()).isEqualTo(6);
    assertThat(tg.healthCheckIntervalSeconds()).isEqualTo(30);
    assertThat(tg.healthyThresholdCount()).isEqualTo(5);
    assertThat(tg.unhealthyThresholdCount()).isEqualTo(2);
    assertThat(tg.matcher().httpCode()).isEqualTo("200-399");

    // Registered by its ARN alone: the port is the group's, the one of the ALB's listener.
    h.elb.registerTargets(b -> b.targetGroupArn(tg.targetGroupArn()).targets(t -> t.id(alb.loadBalancerArn())));
    LoadBalancer nlb = networkLoadBalancer("edge", "zone-a");
    int port = Ports.free();
    tcpListener(nlb, port, tg);

    assertThat(body("127.0.0.1", port, "/")).as("HTTP over the NLB's TCP listener, routed by the ALB")
        .isEqualTo("blue");
    // A rule of the ALB applies to what comes through the NLB.
    String albListener = h.elb.describeListeners(b -> b.loadBalancerArn(alb.loadBalancerArn())).listeners().get(0)
        .listenerArn();
    h.createRule(albListener, 1, forward(groupArn("green")), LbApiHarness.path("/green/*"));
    assertThat(body("127.0.0.1", port, "/green/x")).isEqualTo("green");
    assertThat(body("127.0.0.1", port, "/other")).isEqualTo("blue");

    TargetHealthDescription d = health(tg);
    assertThat(d.target().id()).isEqualTo(alb.loadBalancerArn());
    assertThat(d.target().port()).isEqualTo(albPort);
    assertThat(d.target().availabilityZone()).as("an ALB target is in the ALB's zones, none given").isNull();
    assertThat(d.healthCheckPort()).isEqualTo(String.valueOf(albPort));
    assertThat(d.targetHealth().state()).isEqualTo(TargetHealthStateEnum.INITIAL);
    h.advance(Duration.ofSeconds(6));
    assertThat(health(tg).targetHealth().state()).as("checked over HTTP through the ALB to its targets")
        .isEqualTo(TargetHealthStateEnum.HEALTHY);
    // The ALB answers its check with what its rules give: a 503 fixed response fails it.
    h.elb.modifyListener(b -> b.listenerArn(albListener).defaultActions(LbApiHarness.fixed(503, "down")));
    h.advance(Duration.ofSeconds(61));
    TargetHealthDescription failing = health(tg);
    assertThat(failing.targetHealth().state()).isEqualTo(TargetHealthStateEnum.UNHEALTHY);
    assertThat(failing.targetHealth().reasonAsString()).isEqualTo("Target.FailedHealthChecks");

    // The ALB cannot go while registered; once deregistered it can.
    h.refusedUnchanged(() -> h.elb.deleteLoadBalancer(b -> b.loadBalancerArn(alb.loadBalancerArn())), "ResourceInUse");
    h.elb.deregisterTargets(b -> b.targetGroupArn(tg.targetGroupArn()).targets(t -> t.id(alb.loadBalancerArn())));
    h.elb.deleteLoadBalancer(b -> b.loadBalancerArn(alb.loadBalancerArn()));
    assertThat(h.elb.describeLoadBalancers().loadBalancers()).extracting(LoadBalancer::loadBalancerName)
        .containsExactly("edge");
  }

  @Test
  void eachNodeOfTheNetworkLoadBalancer_reachesTheApplicationLoadBalancerInItsOwnZone() throws Exception {
    h = LbApiHarness.start(dir);
    // One group with a target in each zone and cross-zone off: the ALB node a request arrives on shows in its answer.
    String split = h.elb.createTargetGroup(b -> b.name("split").targetType(TargetTypeEnum.IP).protocol(ProtocolEnum.HTTP)
        .port(80).vpcId(ApiGateway.VPC)).targetGroups().get(0).targetGroupArn();
    h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(split)
        .attributes(a -> a.key("load_balancing.cross_zone.enabled").value("false")));
    h.elb.registerTargets(b -> b.targetGroupArn(split).targets(
        t -> t.id("127.0.0.1").port(h.blue.port()).availabilityZone("zone-a"),
        t -> t.id("127.0.0.1").port(h.green.port()).availabilityZone("zone-b")));
    int albPort = Ports.free();
    LoadBalancer alb = applicationLoadBalancer("web", albPort, "split");
    TargetGroup tg = albGroup("web-alb", albPort);
    h.elb.registerTargets(b -> b.targetGroupArn(tg.targetGroupArn()).targets(t -> t.id(alb.loadBalancerArn())));
    int port = Ports.free();
    tcpListener(networkLoadBalancer("edge", "zone-a", "zone-b"), port, tg);

    assertThat(LbApiHarness.bodies("127.0.0.1", port, "/", 4)).as("the NLB's zone-a node, to the ALB's zone-a node")
        .containsOnly("blue");
    assertThat(LbApiHarness.bodies("127.0.0.2", port, "/", 4)).as("the NLB's zone-b node, to the ALB's zone-b node")
        .containsOnly("green");

    // The dashboard names the application load balancer behind the network one.
    String stateText = LbApiHarness.get("127.0.0.1", h.gateway.controlPort(), "/ui/state").bodyText();
    Path node = Interop.require("/usr/bin/node", "nodejs");
    Path page = Files.writeString(dir.resolve("dashboard.html"),
        LbApiHarness.get("127.0.0.1", h.gateway.controlPort(), "/ui").bodyText());
    Path state = Files.writeString(dir.resolve("state.json"), stateText);
    Path none = Files.writeString(dir.resolve("events.json"), "{\"events\": []}");
    Path render = Path.of(AlbTargetApiTest.class.getResource("/ui/render.js").toURI());
    Tool.Result r = Tool.run(dir, Duration.ofSeconds(30), List.of(node.toString(), render.toString(), page.toString(),
        state.toString(), none.toString(), none.toString(), none.toString(), alb.loadBalancerArn() + ":" + albPort));
    assertThat(r.output()).contains("application load balancer web:" + albPort);

  }

  @Test
  void whatAwsDoesNotAllow_isRefusedWithItsCodes_changingNothing() {
    h = LbApiHarness.start(dir);
    int albPort = Ports.free();
    LoadBalancer alb = applicationLoadBalancer("web", albPort, "blue");
    LoadBalancer other = applicationLoadBalancer("api", Ports.free(), "green");
    LoadBalancer nlb = networkLoadBalancer("edge", "zone-a");

    LbApiHarness.refused(() -> h.elb.createTargetGroup(b -> b.name("x").targetType(TargetTypeEnum.ALB)
        .protocol(ProtocolEnum.HTTP).port(albPort).vpcId(ApiGateway.VPC)), "ValidationError");
    LbApiHarness.refused(() -> h.elb.createTargetGroup(b -> b.name("x").targetType(TargetTypeEnum.ALB)
        .protocol(ProtocolEnum.TCP).port(albPort).vpcId(ApiGateway.VPC).healthCheckProtocol(ProtocolEnum.TCP)),
        "InvalidConfigurationRequest");
    LbApiHarness.refused(() -> h.elb.createTargetGroup(b -> b.name("x").targetType(TargetTypeEnum.ALB)
        .protocol(ProtocolEnum.TCP).port(albPort).vpcId(ApiGateway.VPC).unhealthyThresholdCount(3)),
        "InvalidConfigurationRequest");
    TargetGroup tg = albGroup("web-alb", albPort);
    String arn = tg.targetGroupArn();

    // Targets: an ALB of this deployment, on a port it listens on, without a zone, one per group.
    h.refusedUnchanged(() -> h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(alb.loadBalancerArn())
        .port(albPort + 1))), "InvalidTarget");
    h.refusedUnchanged(() -> h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(nlb.loadBalancerArn()))),
        "InvalidTarget");
    h.refusedUnchanged(() -> h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id("127.0.0.1"))),
        "InvalidTarget");
    h.refusedUnchanged(() -> h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(alb.loadBalancerArn()
        .replace("/web/", "/gone/")))), "InvalidTarget");
    h.refusedUnchanged(() -> h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(alb.loadBalancerArn())
        .availabilityZone("zone-a"))), "ValidationError");
    h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(alb.loadBalancerArn())));
    h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(alb.loadBalancerArn())));
    assertThat(h.elb.describeTargetHealth(b -> b.targetGroupArn(arn)).targetHealthDescriptions())
        .as("registering it again is harmless").hasSize(1);
    h.refusedUnchanged(() -> h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(other.loadBalancerArn())
        .port(albPort))), "InvalidTarget"); // other listens elsewhere
    String otherPort = String.valueOf(h.elb.describeListeners(b -> b.loadBalancerArn(other.loadBalancerArn()))
        .listeners().get(0).port());
    h.refusedUnchanged(() -> h.elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id(other.loadBalancerArn())
        .port(Integer.parseInt(otherPort)))), "TooManyTargets");

    // One ALB in several groups, one per NLB (AWS allowed two at first, any number now); a group serves one NLB.
    for (String name : List.of("web-alb-2", "web-alb-3")) {
      TargetGroup more = albGroup(name, albPort);
      h.elb.registerTargets(b -> b.targetGroupArn(more.targetGroupArn()).targets(t -> t.id(alb.loadBalancerArn())));
    }
    tcpListener(nlb, Ports.free(), tg);
    LoadBalancer otherNlb = networkLoadBalancer("edge-2", "zone-a");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(otherNlb.loadBalancerArn())
        .protocol(ProtocolEnum.TCP).port(Ports.free()).defaultActions(forward(arn))), "TargetGroupAssociationLimit");

    // Attributes keep their defaults; of the health check, the timeout, unhealthy threshold and codes.
    Map<String, String> attributes = h.elb.describeTargetGroupAttributes(b -> b.targetGroupArn(arn)).attributes()
        .stream().collect(Collectors.toMap(a -> a.key(), a -> a.value()));
    assertThat(attributes).containsEntry("deregistration_delay.timeout_seconds", "300")
        .containsEntry("preserve_client_ip.enabled", "true").containsEntry("proxy_protocol_v2.enabled", "false");
    h.refusedUnchanged(() -> h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn)
        .attributes(a -> a.key("deregistration_delay.timeout_seconds").value("30"))), "InvalidConfigurationRequest");
    h.refusedUnchanged(() -> h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn)
        .attributes(a -> a.key("proxy_protocol_v2.enabled").value("true"))), "InvalidConfigurationRequest");
    h.elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn)
        .attributes(a -> a.key("deregistration_delay.timeout_seconds").value("300"))); // its default: harmless
    h.refusedUnchanged(() -> h.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).healthCheckTimeoutSeconds(8)),
        "InvalidConfigurationRequest");
    h.refusedUnchanged(() -> h.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).matcher(m -> m.httpCode("200"))),
        "InvalidConfigurationRequest");
    TargetGroup modified = h.elb.modifyTargetGroup(b -> b.targetGroupArn(arn).healthCheckProtocol(ProtocolEnum.HTTPS)
        .healthCheckPath("/ping").healthyThresholdCount(3)).targetGroups().get(0);
    assertThat(modified.healthCheckProtocol()).isEqualTo(ProtocolEnum.HTTPS);
    assertThat(modified.healthCheckTimeoutSeconds()).as("HTTPS checks' own fixed timeout").isEqualTo(10);
    assertThat(modified.healthyThresholdCount()).isEqualTo(3);

    // Only a TCP listener forwards to it; the ALB's own HTTP listeners cannot.
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(nlb.loadBalancerArn()).protocol(ProtocolEnum.TLS)
        .port(Ports.free()).certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(arn))),
        "IncompatibleProtocols");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(other.loadBalancerArn())
        .protocol(ProtocolEnum.HTTP).port(Ports.free()).defaultActions(forward(arn))), "IncompatibleProtocols");
  }

  /** A GET through a connection from {@code from} (any port) to {@code 127.0.0.1:port}: its local port and the answer. */
  private static String getFrom(String from, int port, String path, int[] localPort) throws Exception {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(from, 0));
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(10_000);
      localPort[0] = s.getLocalPort();
      s.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.ISO_8859_1);
    }
  }

  @Test
  void theApplicationLoadBalancer_seesTheNetworkLoadBalancersClient() throws Exception {
    h = LbApiHarness.start(dir);
    int albPort = Ports.free();
    LoadBalancer alb = applicationLoadBalancer("web", albPort, "blue");
    String albListener = h.elb.describeListeners(b -> b.loadBalancerArn(alb.loadBalancerArn())).listeners().get(0)
        .listenerArn();
    h.elb.modifyLoadBalancerAttributes(b -> b.loadBalancerArn(alb.loadBalancerArn())
        .attributes(a -> a.key("routing.http.xff_client_port.enabled").value("true")));
    h.createRule(albListener, 1, LbApiHarness.fixed(200, "from 127.0.0.5"),
        RuleCondition.builder().field("source-ip").sourceIpConfig(c -> c.values("127.0.0.5/32")).build());
    TargetGroup tg = albGroup("web-alb", albPort);
    h.elb.registerTargets(b -> b.targetGroupArn(tg.targetGroupArn()).targets(t -> t.id(alb.loadBalancerArn())));
    int port = Ports.free();
    tcpListener(networkLoadBalancer("edge", "zone-a"), port, tg);

    int[] local = new int[1];
    assertThat(getFrom("127.0.0.5", port, "/", local)).as("the ALB's source-ip rule sees the NLB's client")
        .endsWith("from 127.0.0.5");
    String answer = getFrom("127.0.0.6", port, "/", local);
    assertThat(answer).endsWith("blue");
    assertThat(h.blue.lastRequest().getJsonObject("headers").getString("x-forwarded-for"))
        .as("X-Forwarded-For names the client and its port, not Fulcrum").isEqualTo("127.0.0.6:" + local[0]);

    // HTTP/2 over TLS to an HTTPS listener of the ALB, from Debian's curl: the same.
    int albTls = Ports.free();
    h.elb.createListener(b -> b.loadBalancerArn(alb.loadBalancerArn()).protocol(ProtocolEnum.HTTPS).port(albTls)
        .certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(groupArn("blue"))));
    TargetGroup tls = albGroup("web-alb-tls", albTls);
    h.elb.registerTargets(b -> b.targetGroupArn(tls.targetGroupArn()).targets(t -> t.id(alb.loadBalancerArn())));
    int tlsPort = Ports.free();
    tcpListener(networkLoadBalancer("edge-tls", "zone-a"), tlsPort, tls);
    Path curl = Interop.require("/usr/bin/curl", "curl");
    Tool.Result h2 = Tool.run(dir, Duration.ofSeconds(30), List.of(curl.toString(), "-sk", "--http2",
        "--interface", "127.0.0.7", "-w", " %{http_version}", "https://127.0.0.1:" + tlsPort + "/h2"));
    assertThat(h2.output()).isEqualTo("blue 2");
    assertThat(h.blue.lastRequest().getString("uri")).isEqualTo("/h2");
    assertThat(h.blue.lastRequest().getJsonObject("headers").getString("x-forwarded-for")).startsWith("127.0.0.7:");
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> CarriedClients.size() == 0);
  }
}
