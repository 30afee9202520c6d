package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.awaitRefused;
import static io.fulcrum.api.LbApiHarness.body;
import static io.fulcrum.api.LbApiHarness.fixed;
import static io.fulcrum.api.LbApiHarness.forward;
import static io.fulcrum.api.LbApiHarness.get;
import static io.fulcrum.api.LbApiHarness.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fulcrum.registry.StateStore;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Action;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ActionTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ForwardActionConfig;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Listener;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ListenerAttribute;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RedirectActionStatusCodeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroupTuple;

/** CreateListener, DescribeListeners, ModifyListener and DeleteListener through the AWS SDK, and what they serve. */
class ListenerApiTest {

  @TempDir
  Path dir;

  private LbApiHarness h;
  private final Vertx slowBackends = TestVertx.create();

  @AfterEach
  void stop() {
    if (h != null) {
      h.close();
    }
    slowBackends.close();
  }

  private static Action weighted(String blue, int blueWeight, String green, int greenWeight, Integer stickySeconds) {
    ForwardActionConfig.Builder config = ForwardActionConfig.builder().targetGroups(
        TargetGroupTuple.builder().targetGroupArn(blue).weight(blueWeight).build(),
        TargetGroupTuple.builder().targetGroupArn(green).weight(greenWeight).build());
    if (stickySeconds != null) {
      config.targetGroupStickinessConfig(s -> s.enabled(true).durationSeconds(stickySeconds));
    }
    return Action.builder().type(ActionTypeEnum.FORWARD).forwardConfig(config.build()).build();
  }

  @Test
  void createListener_servesOnTheNodeAddressOfEveryZone_beforeTheResponse() {
    // Four listener verticles: the response waits for every one of them.
    h = LbApiHarness.start(dir, "", 4);
    String lb = h.createLoadBalancer("web");
    for (int i = 0; i < 5; i++) {
      int port = Ports.free();
      h.createListener(lb, port, forward(h.tg(i % 2 == 0 ? "blue" : "green")));
      // No waiting: the very next request, on each node, is served.
      String expected = i % 2 == 0 ? "blue" : "green";
      assertThat(body("127.0.0.2", port, "/")).isEqualTo(expected);
      assertThat(body("127.0.0.1", port, "/")).isEqualTo(expected);
    }
  }

  /**
   * A listener on the control port would share its socket (connections to either in turn, the API
   * among them): refused, and nothing is created.
   */
  @Test
  void createListener_onThePortTheControlPlaneHolds_isDuplicateListener_andNothingChanges() {
    int control = Ports.free();
    h = LbApiHarness.start(dir, "control: {port: " + control + "}\n", 1);
    String lb = h.createLoadBalancer("web");

    assertThat(h.refusedUnchanged(() -> h.createListener(lb, control, forward(h.tg("blue"))), "DuplicateListener")
        .awsErrorDetails().errorMessage()).isEqualTo("port " + control + " on node 127.0.0.1 is the control port"
            + " (control.port); a listener needs a port of its own");
    assertThat(h.elb.describeListeners(b -> b.loadBalancerArn(lb)).listeners()).isEmpty();
    assertThat(body("127.0.0.1", control, "/health/live")).as("the control plane answers, every time").contains("UP");
  }

  /**
   * A port another process listens on, at one node of the load balancer's two: the listener could not
   * bind there, so the change is refused rather than answered with success (and nothing changes);
   * once the port is free, the same call creates the listener, serving at both nodes. Moving a
   * listener onto such a port is refused too, the listener staying where it was.
   */
  @Test
  void aListenerOnAPortAnotherProcessHolds_isDuplicateListener_andNothingChanges() throws Exception {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    String expected = "port " + port + " on node 127.0.0.2 is held by another process (Address already in use);"
        + " a listener needs a port of its own";
    try (java.net.ServerSocket other = new java.net.ServerSocket()) {
      other.bind(new java.net.InetSocketAddress("127.0.0.2", port));

      assertThat(h.refusedUnchanged(() -> h.createListener(lb, port, forward(h.tg("blue"))), "DuplicateListener")
          .awsErrorDetails().errorMessage()).isEqualTo(expected);
      assertThat(h.elb.describeListeners(b -> b.loadBalancerArn(lb)).listeners()).isEmpty();

      int first = Ports.free();
      String arn = h.createListener(lb, first, forward(h.tg("blue")));
      assertThat(h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(arn).port(port)),
          "DuplicateListener").awsErrorDetails().errorMessage()).isEqualTo(expected);
      assertThat(body("127.0.0.2", first, "/")).isEqualTo("blue");
    }

    h.createListener(lb, port, forward(h.tg("green")));
    assertThat(body("127.0.0.1", port, "/")).isEqualTo("green");
    assertThat(body("127.0.0.2", port, "/")).isEqualTo("green");
  }

  @Test
  void createListener_isDescribedWithItsWeightedForwardAndStickiness() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    Listener created = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(port)
        .defaultActions(weighted(h.tg("blue"), 0, h.tg("green"), 999, 3600))).listeners().get(0);

    Listener described = h.elb.describeListeners(b -> b.listenerArns(created.listenerArn())).listeners().get(0);
    assertThat(described).isEqualTo(created);
    assertThat(described.listenerArn()).matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:listener/app/web/"
        + lb.substring(lb.lastIndexOf('/') + 1) + "/[0-9a-f]{16}");
    assertThat(described.loadBalancerArn()).isEqualTo(lb);
    assertThat(described.port()).isEqualTo(port);
    assertThat(described.protocol()).isEqualTo(ProtocolEnum.HTTP);
    Action action = described.defaultActions().get(0);
    assertThat(action.type()).isEqualTo(ActionTypeEnum.FORWARD);
    assertThat(action.targetGroupArn()).isNull();
    assertThat(action.forwardConfig().targetGroups()).extracting(TargetGroupTuple::targetGroupArn,
        TargetGroupTuple::weight).containsExactly(tuple(h.tg("blue"), 0), tuple(h.tg("green"), 999));
    assertThat(action.forwardConfig().targetGroupStickinessConfig().enabled()).isTrue();
    assertThat(action.forwardConfig().targetGroupStickinessConfig().durationSeconds()).isEqualTo(3600);
    // Weight 0 gets nothing; stickiness sets the target-group cookie.
    RawConnection.Response r = get("127.0.0.1", port, "/");
    assertThat(r.bodyText()).isEqualTo("green");
    assertThat(r.header("Set-Cookie")).startsWith("AWSALBTG=");
  }

  @Test
  void createListener_withASingleTargetGroup_describesItAsTargetGroupArnAndForwardConfig() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    Action action = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(Ports.free())
        .defaultActions(forward(h.tg("blue")))).listeners().get(0).defaultActions().get(0);

    assertThat(action.targetGroupArn()).isEqualTo(h.tg("blue"));
    assertThat(action.forwardConfig().targetGroups()).extracting(TargetGroupTuple::targetGroupArn,
        TargetGroupTuple::weight).containsExactly(tuple(h.tg("blue"), 1));
    assertThat(action.forwardConfig().targetGroupStickinessConfig().enabled()).isFalse();
  }

  @Test
  void createListener_withFixedResponseOrRedirect_answersThemItself() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int fixedPort = Ports.free();
    int redirectPort = Ports.free();
    h.createListener(lb, fixedPort, fixed(503, "down for maintenance"));
    h.createListener(lb, redirectPort, Action.builder().type(ActionTypeEnum.REDIRECT).redirectConfig(c -> c
        .protocol("HTTPS").port("443").statusCode(RedirectActionStatusCodeEnum.HTTP_301)).build());

    RawConnection.Response fixedAnswer = get("127.0.0.2", fixedPort, "/");
    assertThat(fixedAnswer.status()).isEqualTo(503);
    assertThat(fixedAnswer.bodyText()).isEqualTo("down for maintenance");
    RawConnection.Response redirect = get("127.0.0.1", redirectPort, "/a?b=1");
    assertThat(redirect.status()).isEqualTo(301);
    assertThat(redirect.header("Location")).isEqualTo("https://example.com:443/a?b=1");
    assertThat(h.blue.trafficHits() + h.green.trafficHits()).isZero();
  }

  @Test
  void createListener_again_withTheSameSettings_answersTheSameListener_andOtherSettingsAreDuplicateListener() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    String first = h.createListener(lb, port, forward(h.tg("blue")));

    assertThat(h.createListener(lb, port, forward(h.tg("blue")))).isEqualTo(first);
    h.refusedUnchanged(() -> h.createListener(lb, port, forward(h.tg("green"))), "DuplicateListener");
    assertThat(body("127.0.0.1", port, "/")).isEqualTo("blue");
  }

  @Test
  void createListener_toAMissingTargetGroup_isTargetGroupNotFound_andNothingListens() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    String missing = h.tg("blue").replace("/blue/", "/gone/");

    assertThat(h.refusedUnchanged(() -> h.createListener(lb, port, forward(missing)), "TargetGroupNotFound"))
        .hasMessageContaining(missing);
    assertThat(LbApiHarness.refuses("127.0.0.1", port)).isTrue();
    h.refusedUnchanged(() -> h.createListener(lb + "0", port, forward(h.tg("blue"))), "LoadBalancerNotFound");
  }

  @Test
  void createListener_withAGroupThatServesAnotherLoadBalancer_isTargetGroupAssociationLimit() {
    h = LbApiHarness.start(dir);
    h.createListener(h.createLoadBalancer("one"), Ports.free(), forward(h.tg("blue")));
    String two = h.createLoadBalancer("two");

    h.refusedUnchanged(() -> h.createListener(two, Ports.free(), forward(h.tg("blue"))), "TargetGroupAssociationLimit");
    h.refusedUnchanged(() -> h.createListener(two, Ports.free(), weighted(h.tg("green"), 1, h.tg("blue"), 1, null)),
        "TargetGroupAssociationLimit");
  }

  @Test
  void createListener_forwardingToATcpTargetGroup_isIncompatibleProtocols() throws IOException {
    // The config file cannot define a TCP target group yet; the persisted state can hold one.
    h = LbApiHarness.start(dir);
    h.close();
    JsonObject state = new JsonObject(Files.readString(dir.resolve(StateStore.FILE)));
    state.getJsonArray("targetGroups").add(new JsonObject()
        .put("arn", "arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/tcp/0123456789abcdef")
        .put("name", "tcp").put("targetType", "ip").put("protocol", "TCP").put("port", 80)
        .put("ipAddressType", "ipv4").put("healthCheck", new JsonObject()).put("attributes", new JsonObject())
        .put("targets", new JsonArray()));
    Files.writeString(dir.resolve(StateStore.FILE), state.encode());
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");

    h.refusedUnchanged(() -> h.createListener(lb, Ports.free(), forward(h.tg("tcp"))), "IncompatibleProtocols");
  }

  @Test
  void createListener_withOtherProtocolsOrTlsSettings_isRefusedClearly() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    Action blue = forward(h.tg("blue"));
    int port = Ports.free();

    assertThat(h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS)
        .port(port).defaultActions(blue)), "ValidationError")).hasMessageContaining("A certificate must be specified");
    assertThat(h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS)
        .port(port).certificates(c -> c.certificateArn("arn:aws:acm:us-east-1:000000000000:certificate/x"))
        .defaultActions(blue)), "CertificateNotFound")).hasMessageContaining("certificate/x");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.TCP).port(port)
        .defaultActions(blue)), "UnsupportedProtocol");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(port)
        .certificates(c -> c.certificateArn("arn:aws:acm:us-east-1:000000000000:certificate/x"))
        .defaultActions(blue)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(port)
        .sslPolicy("ELBSecurityPolicy-2016-08").defaultActions(blue)), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).port(port).defaultActions(blue)),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP)
        .defaultActions(blue)), "ValidationError");
    h.refusedUnchanged(() -> h.createListener(lb, 0, blue), "ValidationError");
    h.refusedUnchanged(() -> h.createListener(lb, 65536, blue), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(port)),
        "ValidationError");
  }

  @Test
  void createListener_withBadActions_isRefusedWithAwsCodes() {
    StringBuilder more = new StringBuilder();
    IntStream.rangeClosed(1, 4).forEach(i -> more.append("  - {name: g").append(i)
        .append(", target-type: ip, protocol: HTTP, port: 80}\n"));
    h = LbApiHarness.start(dir, more.toString(), 1);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    List<TargetGroupTuple> six = new ArrayList<>();
    for (String name : List.of("blue", "green", "g1", "g2", "g3", "g4")) {
      six.add(TargetGroupTuple.builder().targetGroupArn(h.tg(name)).weight(1).build());
    }

    h.refusedUnchanged(() -> h.createListener(lb, port, Action.builder().type(ActionTypeEnum.FORWARD)
        .forwardConfig(c -> c.targetGroups(six)).build()), "TooManyTargetGroups");
    assertThat(h.refusedUnchanged(() -> h.createListener(lb, port, weighted(h.tg("blue"), 1000, h.tg("green"), 1, null)),
        "ValidationError")).hasMessageContaining("DefaultActions.member.1.ForwardConfig.TargetGroups.member.1.Weight")
        .hasMessageContaining("1000 is above the maximum 999");
    h.refusedUnchanged(() -> h.createListener(lb, port, Action.builder().type(ActionTypeEnum.FORWARD)
        .forwardConfig(c -> c.targetGroups(six.subList(0, 2)).targetGroupStickinessConfig(s -> s.enabled(true)))
        .build()), "ValidationError");
    assertThat(h.refusedUnchanged(() -> h.createListener(lb, port, fixed(600, "x")), "ValidationError"))
        .hasMessageContaining("FixedResponseConfig.StatusCode");
    h.refusedUnchanged(() -> h.createListener(lb, port, Action.builder().type(ActionTypeEnum.REDIRECT)
        .redirectConfig(c -> c.statusCode(RedirectActionStatusCodeEnum.HTTP_302)).build()), "ValidationError");
    h.refusedUnchanged(() -> h.createListener(lb, port, Action.builder().type(ActionTypeEnum.AUTHENTICATE_COGNITO)
        .authenticateCognitoConfig(c -> c.userPoolArn("arn:aws:cognito-idp:us-east-1:000000000000:userpool/p")
            .userPoolClientId("c").userPoolDomain("d")).build()), "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.createListener(lb, port, Action.builder().type(ActionTypeEnum.AUTHENTICATE_OIDC)
        .authenticateOidcConfig(c -> c.issuer("i").authorizationEndpoint("a").tokenEndpoint("t")
            .userInfoEndpoint("u").clientId("c")).build()), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(port)
        .defaultActions(forward(h.tg("blue")).toBuilder().order(1).build(), fixed(200, "x").toBuilder().order(2).build())),
        "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(port)
        .defaultActions(forward(h.tg("blue")), fixed(200, "x"))), "ValidationError");
    h.refusedUnchanged(() -> h.createListener(lb, port, Action.builder().type(ActionTypeEnum.FORWARD).build()),
        "ValidationError");
  }

  @Test
  void createListener_beyondFiftyOnALoadBalancer_isTooManyListeners() {
    StringBuilder seed = new StringBuilder("load-balancers:\n  - name: full\n    zones: [zone-a, zone-b]\n"
        + "    listeners:\n");
    Set<Integer> ports = new LinkedHashSet<>();
    while (ports.size() < 50) {
      ports.add(Ports.free());
    }
    ports.forEach(p -> seed.append("      - {protocol: HTTP, port: ").append(p)
        .append(", default-actions: [{type: fixed-response, status-code: 200}]}\n"));
    h = LbApiHarness.start(dir, seed.toString(), 1);
    String lb = h.elb.describeLoadBalancers().loadBalancers().get(0).loadBalancerArn();
    assertThat(h.elb.describeListeners(b -> b.loadBalancerArn(lb)).listeners()).hasSize(50);

    h.refusedUnchanged(() -> h.createListener(lb, Ports.free(), fixed(200, "x")), "TooManyListeners");
  }

  @Test
  void describeListeners_byLoadBalancerWithPaging_orByArns_andWhatIsMissing() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    String a = h.createListener(lb, Ports.free(), forward(h.tg("blue")));
    String b = h.createListener(lb, Ports.free(), fixed(200, "b"));
    String c = h.createListener(lb, Ports.free(), fixed(200, "c"));

    var first = h.elb.describeListeners(r -> r.loadBalancerArn(lb).pageSize(2));
    assertThat(first.listeners()).extracting(Listener::listenerArn).containsExactly(a, b);
    var second = h.elb.describeListeners(r -> r.loadBalancerArn(lb).pageSize(2).marker(first.nextMarker()));
    assertThat(second.listeners()).extracting(Listener::listenerArn).containsExactly(c);
    assertThat(second.nextMarker()).isNull();
    assertThat(h.elb.describeListeners(r -> r.listenerArns(c, a)).listeners()).extracting(Listener::listenerArn)
        .containsExactly(c, a);
    refused(() -> h.elb.describeListeners(r -> r.listenerArns(a, a + "0")), "ListenerNotFound");
    refused(() -> h.elb.describeListeners(r -> r.loadBalancerArn(lb + "0")), "LoadBalancerNotFound");
    refused(() -> h.elb.describeListeners(r -> r.loadBalancerArn(lb).listenerArns(a)), "ValidationError");
    refused(() -> h.elb.describeListeners(r -> { }), "ValidationError");
  }

  @Test
  void modifyListener_movesItToAnotherPort_keepingItsArn_andChangesItsDefaultActions() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int oldPort = Ports.free();
    int newPort = Ports.free();
    String arn = h.createListener(lb, oldPort, forward(h.tg("blue")));

    Listener moved = h.elb.modifyListener(b -> b.listenerArn(arn).port(newPort)).listeners().get(0);
    assertThat(moved.listenerArn()).isEqualTo(arn);
    assertThat(moved.port()).isEqualTo(newPort);
    assertThat(body("127.0.0.1", newPort, "/")).isEqualTo("blue");
    assertThat(body("127.0.0.2", newPort, "/")).isEqualTo("blue");
    awaitRefused("127.0.0.1", oldPort);

    h.elb.modifyListener(b -> b.listenerArn(arn).defaultActions(forward(h.tg("green"))));
    assertThat(body("127.0.0.2", newPort, "/")).isEqualTo("green");
    assertThat(h.elb.describeListeners(b -> b.listenerArns(arn)).listeners().get(0).defaultActions().get(0)
        .targetGroupArn()).isEqualTo(h.tg("green"));
  }

  @Test
  void modifyListener_ontoATakenPortOrUnknownListener_isRefused_andChangesNothing() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int taken = Ports.free();
    h.createListener(lb, taken, forward(h.tg("blue")));
    String arn = h.createListener(lb, Ports.free(), forward(h.tg("green")));

    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(arn).port(taken)), "DuplicateListener");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(arn).protocol(ProtocolEnum.HTTPS)),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(arn)
        .defaultActions(forward(h.tg("blue").replace("/blue/", "/gone/")))), "TargetGroupNotFound");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(arn + "0").port(Ports.free())),
        "ListenerNotFound");
    assertThat(body("127.0.0.1", taken, "/")).isEqualTo("blue");
  }

  @Test
  void deleteListener_stopsAcceptingAtOnce_whileItsRequestInFlightFinishes() {
    Queue<HttpServerRequest> held = new ConcurrentLinkedQueue<>();
    Backend slow = Backend.start(slowBackends, "slow", "127.0.0.1", held::add);
    h = LbApiHarness.start(dir, "  - {name: slow, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1,"
        + " port: " + slow.port() + ", zone: zone-a}]}\n", 1);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    String arn = h.createListener(lb, port, forward(h.tg("slow")));
    CompletableFuture<RawConnection.Response> inFlight = CompletableFuture.supplyAsync(() -> get("127.0.0.1", port, "/"));
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !held.isEmpty());

    h.elb.deleteListener(b -> b.listenerArn(arn));

    awaitRefused("127.0.0.1", port);
    awaitRefused("127.0.0.2", port);
    assertThat(inFlight).isNotDone();
    HttpServerRequest request = held.poll();
    request.response().end("finished");
    RawConnection.Response answer = inFlight.orTimeout(10, TimeUnit.SECONDS).join();
    assertThat(answer.status()).isEqualTo(200);
    assertThat(answer.bodyText()).isEqualTo("finished");
    refused(() -> h.elb.describeListeners(b -> b.listenerArns(arn)), "ListenerNotFound");
    refused(() -> h.elb.deleteListener(b -> b.listenerArn(arn)), "ListenerNotFound");
  }

  private static java.util.Map<String, String> attributes(List<ListenerAttribute> list) {
    java.util.Map<String, String> m = new java.util.LinkedHashMap<>();
    list.forEach(a -> m.put(a.key(), a.value()));
    return m;
  }

  /**
   * Describe and ModifyListenerAttributes: an HTTP listener's header modification, defaults first;
   * a change applies to the next request on the connection already open, is kept across a restart,
   * and a bad value or a key of another kind of listener changes nothing.
   */
  @Test
  void listenerAttributes_insertResponseHeaders_andTurnTheServerHeaderOff() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("web");
    int port = Ports.free();
    String arn = h.createListener(lb, port, forward(h.tg("blue")));
    h.createRule(arn, 1, fixed(200, "fixed"), LbApiHarness.path("/fixed"));

    java.util.Map<String, String> defaults = attributes(h.elb.describeListenerAttributes(b -> b.listenerArn(arn))
        .attributes());
    assertThat(defaults).containsEntry("routing.http.response.server.enabled", "true")
        .containsEntry("routing.http.response.strict_transport_security.header_value", "")
        .doesNotContainKey("routing.http.request.x_amzn_tls_version.header_name")
        .doesNotContainKey("tcp.idle_timeout.seconds");

    try (RawConnection c = RawConnection.open("127.0.0.1", port)) {
      RawConnection.Response before = c.send("GET /fixed HTTP/1.1\r\nHost: web\r\n\r\n").read();
      assertThat(before.header("Server")).isEqualTo("awselb/2.0");
      assertThat(before.header("Strict-Transport-Security")).isNull();

      java.util.Map<String, String> answered = attributes(h.elb.modifyListenerAttributes(b -> b.listenerArn(arn)
          .attributes(ListenerAttribute.builder().key("routing.http.response.server.enabled").value("false").build(),
              ListenerAttribute.builder().key("routing.http.response.strict_transport_security.header_value")
                  .value("max-age=31536000; includeSubDomains").build(),
              ListenerAttribute.builder().key("routing.http.response.x_frame_options.header_value").value("DENY")
                  .build())).attributes());
      assertThat(answered).hasSameSizeAs(defaults).containsEntry("routing.http.response.server.enabled", "false");

      RawConnection.Response fixedAnswer = c.send("GET /fixed HTTP/1.1\r\nHost: web\r\n\r\n").read();
      assertThat(fixedAnswer.header("Server")).as("off for the load balancer's own answers").isNull();
      assertThat(fixedAnswer.header("Strict-Transport-Security")).isEqualTo("max-age=31536000; includeSubDomains");
      RawConnection.Response forwarded = c.send("GET / HTTP/1.1\r\nHost: web\r\n\r\n").read();
      assertThat(forwarded.bodyText()).isEqualTo("blue");
      assertThat(forwarded.header("X-Frame-Options")).isEqualTo("DENY");
      assertThat(forwarded.header("Strict-Transport-Security")).isEqualTo("max-age=31536000; includeSubDomains");
    }

    h.refusedUnchanged(() -> h.elb.modifyListenerAttributes(b -> b.listenerArn(arn).attributes(
        ListenerAttribute.builder().key("routing.http.response.x_frame_options.header_value").value("ALLOWALL").build())),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyListenerAttributes(b -> b.listenerArn(arn).attributes(
        ListenerAttribute.builder().key("tcp.idle_timeout.seconds").value("60").build())), "ValidationError");
    refused(() -> h.elb.describeListenerAttributes(b -> b.listenerArn(arn + "0")), "ListenerNotFound");

    h.close();
    h = LbApiHarness.start(dir); // the same data dir: the state as it was
    assertThat(attributes(h.elb.describeListenerAttributes(b -> b.listenerArn(arn)).attributes()))
        .containsEntry("routing.http.response.x_frame_options.header_value", "DENY");
    RawConnection.Response afterRestart = get("127.0.0.1", port, "/fixed"); // (the harness's targets are new ones)
    assertThat(afterRestart.header("X-Frame-Options")).isEqualTo("DENY");
    assertThat(afterRestart.header("Server")).isNull();
  }
}
