package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.fulcrum.testing.AlpnTlsTarget;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TcpTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A network load balancer's TCP and TLS listeners (SPEC §2.4, §2.5, §3, §4, DESIGN §7), with real
 * TCP targets and plain sockets as clients: each connection goes whole to one target and stays
 * there, flows spread by their hash or stick by client address, unhealthy targets' flows are reset
 * (or kept, as the group says), deregistered targets' flows go on after the delay unless
 * connection termination ends them, the PROXY protocol v2 header names the client, and TLS
 * listeners end the client's TLS.
 */
class NetworkListenerTest {

  private static final int DELAY = 30;

  private final Vertx targets = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final List<FlowClient> clients = new ArrayList<>();
  private TcpTarget a;
  private TcpTarget b;
  private Gateway gateway;
  private Http http;
  private int port;

  @BeforeEach
  void start() {
    a = TcpTarget.start(targets, "a");
    b = TcpTarget.start(targets, "b");
    port = Ports.free();
    http = new Http(targets);
  }

  @AfterEach
  void stop() {
    clients.forEach(FlowClient::close);
    if (gateway != null) {
      gateway.close();
    }
    http.close();
    a.close();
    b.close();
    targets.close();
  }

  private String config(String attributes, TcpTarget... registered) {
    StringBuilder list = new StringBuilder();
    for (TcpTarget t : registered) {
      list.append("      - {id: 127.0.0.1, port: ").append(t.port()).append("}\n");
    }
    return """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - {protocol: TCP, port: %d, default-actions: [{type: forward, target-group: tcp}]}
        target-groups:
          - name: tcp
            target-type: ip
            protocol: TCP
            port: 80
            health-check: {protocol: HTTP, path: /health, interval-seconds: 5, timeout-seconds: 2,
                           healthy-threshold-count: 2, unhealthy-threshold-count: 2}
            attributes: {deregistration_delay.timeout_seconds: %d%s}
            targets:
        %s""".formatted(port, DELAY, attributes.isEmpty() ? "" : ", " + attributes,
        list.isEmpty() ? "      []\n" : list);
  }

  /** Starts the gateway on virtual time and lets every target pass its first check. */
  private void startHealthy(String attributes) {
    gateway = Gateway.start(TestVertx.create(), config(attributes, a, b), 1, time);
    advance(5);
    gateway.awaitDataPlane();
    assertThat(states()).containsOnly(TargetState.HEALTHY);
  }

  private void advance(int seconds) {
    time.advance(Duration.ofSeconds(seconds), () -> gateway.fulcrum().healthChecksInFlight() == 0);
  }

  /** {@code t} fails its next two checks (the unhealthy threshold), and every loop routes by it. */
  private void failTwoChecks(TcpTarget t) {
    t.healthy(false);
    advance(5);
    advance(5);
    gateway.awaitDataPlane();
  }

  private List<TargetState> states() {
    String arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    return Await.result(gateway.fulcrum().health(arn)).targets().values().stream().map(t -> t.health().state())
        .toList();
  }

  private TargetHealth health(TcpTarget t) {
    String arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    return Await.result(gateway.fulcrum().health(arn)).targets().entrySet().stream()
        .filter(e -> e.getKey().endsWith(":" + t.port())).findFirst().orElseThrow().getValue().health();
  }

  private FlowClient connect(String from) {
    FlowClient c = FlowClient.connect(from, "127.0.0.1", port);
    clients.add(c);
    return c;
  }

  /** Opens connections until one reaches each target: returns them by target id. */
  private Map<String, FlowClient> oneFlowOnEach() {
    Map<String, FlowClient> byTarget = new HashMap<>();
    for (int i = 0; i < 64 && byTarget.size() < 2; i++) {
      FlowClient c = connect(null);
      byTarget.putIfAbsent(c.target(), c);
    }
    assertThat(byTarget).containsOnlyKeys("a", "b");
    return byTarget;
  }

  private double metric(String name) {
    return Scrape.of(http, gateway.controlPort()).sum(name, Map.of());
  }

  @Test
  void flows_spreadOverTheTargets_andEachStaysOnItsTarget() {
    gateway = Gateway.start(TestVertx.create(), config("", a, b));
    Map<String, Integer> byTarget = new HashMap<>();
    for (int i = 0; i < 40; i++) {
      FlowClient c = connect(null);
      String target = c.target();
      for (int j = 0; j < 5; j++) {
        assertThat(c.ask("line " + j)).as("a connection stays on its target").isEqualTo(target + ":line " + j);
      }
      byTarget.merge(target, 1, Integer::sum);
    }
    assertThat(byTarget).as("40 flows hashed over two targets").containsOnlyKeys("a", "b");
    assertThat(a.connections() + b.connections()).isEqualTo(40);

    assertThat(metric("NewFlowCount")).isEqualTo(40);
    assertThat(metric("ActiveFlowCount")).isEqualTo(40);
    assertThat(metric("ProcessedBytes")).as("6 lines each way on 40 flows").isGreaterThan(40 * 6 * 2 * 5);
    Scrape scrape = Scrape.of(http, gateway.controlPort());
    assertThat(scrape.series()).filteredOn(s -> s.name().equals("NewFlowCount"))
        .allSatisfy(s -> assertThat(s.labels().get("LoadBalancer")).startsWith("net/nlb/"));
    clients.forEach(FlowClient::close);
    await().atMost(Duration.ofSeconds(10)).until(() -> metric("ActiveFlowCount") == 0 && a.open() + b.open() == 0);
  }

  @Test
  void dashboard_showsTheNetworkLoadBalancersFlows(@TempDir Path dir) throws Exception {
    gateway = Gateway.start(TestVertx.create(), config("", a, b));
    for (int i = 0; i < 3; i++) {
      connect(null).target();
    }
    String stateText = http.get("127.0.0.1", gateway.controlPort(), "/ui/state", Map.of()).body();
    io.vertx.core.json.JsonObject lb = new io.vertx.core.json.JsonObject(stateText).getJsonArray("loadBalancers")
        .getJsonObject(0);
    assertThat(lb.getString("type")).isEqualTo("network");
    assertThat(lb.getJsonObject("counters").getLong("newFlows")).isEqualTo(3);
    assertThat(lb.getJsonObject("counters").getLong("activeFlows")).isEqualTo(3);

    Path node = Interop.require("/usr/bin/node", "nodejs");
    Path page = Files.writeString(dir.resolve("dashboard.html"),
        http.get("127.0.0.1", gateway.controlPort(), "/ui", Map.of()).body());
    Path state = Files.writeString(dir.resolve("state.json"), stateText);
    Path none = Files.writeString(dir.resolve("events.json"), "{\"events\": []}");
    Path render = Path.of(NetworkListenerTest.class.getResource("/ui/render.js").toURI());
    Tool.Result r = Tool.run(dir, Duration.ofSeconds(30), List.of(node.toString(), render.toString(), page.toString(),
        state.toString(), none.toString(), none.toString(), none.toString(), "127.0.0.1:" + a.port()));
    assertThat(r.output()).as("the page draws flows, not requests, for a network load balancer")
        .contains("new flows/s").contains("3 active flows").contains("TCP resets/s").contains("tcp ip TCP, flow_hash")
        .doesNotContain("requests/s").doesNotContain("of them UDP");
  }

  @Test
  void metrics_ofANetworkLoadBalancer_areNetworkElbsOnly() {
    gateway = Gateway.start(TestVertx.create(), config("", a, b));
    connect(null).target();

    Scrape scrape = Scrape.of(http, gateway.controlPort());
    assertThat(scrape.series().stream().filter(s -> s.labels().getOrDefault("LoadBalancer", "").startsWith("net/nlb/"))
        .map(Scrape.Series::name).distinct().toList())
        .as("no ALB metric that stays 0 (RequestCount, HTTPCode_*, NewConnectionCount, ...)")
        .containsExactlyInAnyOrder("ProcessedBytes", "ClientTLSNegotiationErrorCount", "NewFlowCount",
            "ActiveFlowCount", "NewFlowCount_UDP", "ActiveFlowCount_UDP", "ProcessedBytes_UDP", "ProcessedPackets_UDP",
            "TCP_Client_Reset_Count", "TCP_ELB_Reset_Count", "TCP_Target_Reset_Count", "UnhealthyRoutingFlowCount",
            "TargetConnectionErrorCount", "TargetTLSNegotiationErrorCount", "HealthyHostCount", "UnHealthyHostCount",
            "HealthyStateRouting", "UnhealthyStateRouting", "HealthyStateDNS", "UnhealthyStateDNS");
  }

  @Test
  void explain_namesTheGroupsFlowHash_asTheStateDoes() {
    gateway = Gateway.start(TestVertx.create(), config("", a, b));
    gateway.awaitDataPlane();

    Http.Response explained = http.get("127.0.0.1", gateway.controlPort(), "/ui/explain?port=" + port, Map.of());
    assertThat(explained.status()).as(explained.body()).isEqualTo(200);
    io.vertx.core.json.JsonObject group = new io.vertx.core.json.JsonObject(explained.body()).getJsonObject("action")
        .getJsonArray("targetGroups").getJsonObject(0);
    String state = http.get("127.0.0.1", gateway.controlPort(), "/ui/state", Map.of()).body();
    io.vertx.core.json.JsonObject stateGroup = new io.vertx.core.json.JsonObject(state).getJsonArray("loadBalancers")
        .getJsonObject(0).getJsonArray("targetGroups").getJsonObject(0);
    assertThat(stateGroup.getString("algorithm")).isEqualTo("flow_hash");
    assertThat(group.getMap()).containsEntry("name", "tcp").containsEntry("algorithm", "flow_hash")
        .containsEntry("stickiness", "off");
  }

  @Test
  void crossZone_isOffByDefault_andTheLoadBalancersAttributeTurnsItOn() {
    String yaml = """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: nlb
            type: network
            attributes: {load_balancing.cross_zone.enabled: %s}
            listeners:
              - {protocol: TCP, port: %d, default-actions: [{type: forward, target-group: tcp}]}
        target-groups:
          - name: tcp
            target-type: ip
            protocol: TCP
            port: 80
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-b}
        """;
    gateway = Gateway.start(TestVertx.create(), yaml.formatted(false, port, a.port(), b.port()));
    for (String node : List.of("127.0.0.1", "127.0.0.2")) {
      Set<String> reached = new HashSet<>();
      for (int i = 0; i < 12; i++) {
        reached.add(connectTo(node).target());
      }
      assertThat(reached).as("node %s reaches its own zone's target only", node)
          .containsExactly(node.equals("127.0.0.1") ? "a" : "b");
    }
    gateway.reload(yaml.formatted(true, port, a.port(), b.port()));
    gateway.awaitDataPlane();
    Set<String> reached = new HashSet<>();
    for (int i = 0; i < 24 && reached.size() < 2; i++) {
      reached.add(connectTo("127.0.0.1").target());
    }
    assertThat(reached).as("cross-zone on: zone-a's node reaches both").containsExactlyInAnyOrder("a", "b");
  }

  private FlowClient connectTo(String node) {
    FlowClient c = FlowClient.connect(null, node, port);
    clients.add(c);
    return c;
  }

  @Test
  void sourceIpStickiness_keepsEachClientAddressOnOneTarget() {
    gateway = Gateway.start(TestVertx.create(),
        config("stickiness.enabled: true, stickiness.type: source_ip", a, b));
    Set<String> used = new HashSet<>();
    for (int i = 10; i < 26; i++) {
      String from = "127.0.0." + i;
      Set<String> seen = new HashSet<>();
      for (int j = 0; j < 4; j++) {
        FlowClient c = connect(from);
        seen.add(c.target());
        c.close();
      }
      assertThat(seen).as("every connection from %s reaches one target", from).hasSize(1);
      used.addAll(seen);
    }
    assertThat(used).as("16 client addresses spread over both targets").containsOnly("a", "b");
  }

  /**
   * A new connection's fate: the id of the target it reached, or {@code reset} when the load
   * balancer reset it (its target refused the connection).
   */
  private String reach() {
    try (FlowClient c = FlowClient.connect(null, "127.0.0.1", port)) {
      return c.target();
    } catch (java.io.UncheckedIOException | IllegalStateException e) {
      return "reset";
    }
  }

  @Test
  void passiveChecks_aTargetThatRefusesTwoConnections_getsNoNewFlowFor30s_beforeItsHealthChecksNotice() {
    // Health checks 300 s apart: b's process goes away between two of them, still healthy as far as
    // they know.
    String yaml = config("", a, b).replace("interval-seconds: 5", "interval-seconds: 300")
        .replace("healthy-threshold-count: 2, unhealthy-threshold-count: 2",
            "healthy-threshold-count: 2, unhealthy-threshold-count: 10");
    gateway = Gateway.start(TestVertx.create(), yaml, 1, time);
    advance(300);
    gateway.awaitDataPlane();
    assertThat(states()).containsOnly(TargetState.HEALTHY);
    b.close(); // nothing listens on its port now: every connection to it is refused

    int resets = 0;
    for (int i = 0; i < 64 && resets < 2; i++) {
      resets += reach().equals("reset") ? 1 : 0;
    }
    assertThat(resets).as("flows hashed to b until it refused two").isEqualTo(2);
    for (int i = 0; i < 20; i++) {
      assertThat(reach()).as("new flows pass over the target that refused them").isEqualTo("a");
    }
    assertThat(states()).as("its active checks have not noticed").containsOnly(TargetState.HEALTHY);

    time.advance(Duration.ofSeconds(PassiveChecks.AVOID_SECONDS));
    int again = 0;
    for (int i = 0; i < 64 && again < 2; i++) {
      again += reach().equals("reset") ? 1 : 0;
    }
    assertThat(again).as("30 s later it is tried again, and passed over again once it refuses two").isEqualTo(2);
    for (int i = 0; i < 20; i++) {
      assertThat(reach()).isEqualTo("a");
    }
    assertThat(metric("TargetConnectionErrorCount")).isEqualTo(4);
  }

  @Test
  void unhealthyTarget_hasItsFlowsReset_whileTheOthersGoOn() {
    startHealthy("");
    Map<String, FlowClient> flows = oneFlowOnEach();
    failTwoChecks(a);
    assertThat(health(a).state()).isEqualTo(TargetState.UNHEALTHY);

    assertThat(flows.get("a").ending()).as("the unhealthy target's flow").isEqualTo(FlowClient.Ending.RESET);
    assertThat(flows.get("b").ask("still")).isEqualTo("b:still");
    for (int i = 0; i < 10; i++) {
      assertThat(connect(null).target()).as("new flows go to the healthy target").isEqualTo("b");
    }
    assertThat(metric("TCP_ELB_Reset_Count")).as("every flow that went to a was reset").isEqualTo(a.connections());
  }

  @Test
  void unhealthyTarget_keepsItsFlows_whenTheGroupDoesNotTerminateThem() {
    startHealthy("target_health_state.unhealthy.connection_termination.enabled: false");
    Map<String, FlowClient> flows = oneFlowOnEach();
    failTwoChecks(a);
    assertThat(health(a).state()).isEqualTo(TargetState.UNHEALTHY);

    assertThat(flows.get("a").ask("kept")).isEqualTo("a:kept");
    assertThat(connect(null).target()).isEqualTo("b");
  }

  @Test
  void unhealthyTarget_isUnhealthyDraining_keepsItsFlowsForTheInterval_thenTheyAreReset() {
    startHealthy("target_health_state.unhealthy.connection_termination.enabled: false,"
        + " target_health_state.unhealthy.draining_interval_seconds: 60");
    Map<String, FlowClient> flows = oneFlowOnEach();
    failTwoChecks(a);
    assertThat(health(a).state()).isEqualTo(TargetState.UNHEALTHY_DRAINING);
    assertThat(health(a).reason()).isEqualTo("Target.FailedHealthChecks");
    assertThat(flows.get("a").ask("draining")).isEqualTo("a:draining");
    for (int i = 0; i < 10; i++) {
      assertThat(connect(null).target()).as("no new flow reaches a draining target").isEqualTo("b");
    }
    advance(50);
    gateway.awaitDataPlane();
    assertThat(health(a).state()).as("50 s into the 60 s interval").isEqualTo(TargetState.UNHEALTHY_DRAINING);
    assertThat(flows.get("a").ask("still draining")).isEqualTo("a:still draining");
    advance(10);
    gateway.awaitDataPlane();
    assertThat(health(a).state()).as("the interval is over").isEqualTo(TargetState.UNHEALTHY);
    assertThat(flows.get("a").ending()).isEqualTo(FlowClient.Ending.RESET);
    assertThat(flows.get("b").ask("untouched")).isEqualTo("b:untouched");
  }

  @Test
  void deregisteredTarget_keepsItsFlowsAfterTheDelay_byDefault() {
    startHealthy("");
    Map<String, FlowClient> flows = oneFlowOnEach();
    gateway.reload(config("", b));
    gateway.awaitDataPlane();
    assertThat(health(a).state()).isEqualTo(TargetState.DRAINING);
    assertThat(flows.get("a").ask("draining")).isEqualTo("a:draining");
    for (int i = 0; i < 10; i++) {
      assertThat(connect(null).target()).as("no new flow reaches the draining target").isEqualTo("b");
    }
    advance(DELAY);
    gateway.awaitDataPlane();
    assertThat(flows.get("a").ask("after the delay")).as("NLB: flows to a deregistered target go on until they close")
        .isEqualTo("a:after the delay");
  }

  @Test
  void deregisteredTarget_hasItsFlowsReset_afterTheDelay_withConnectionTermination() {
    String attrs = "deregistration_delay.connection_termination.enabled: true";
    startHealthy(attrs);
    Map<String, FlowClient> flows = oneFlowOnEach();
    gateway.reload(config(attrs, b));
    gateway.awaitDataPlane();
    assertThat(flows.get("a").ask("draining")).isEqualTo("a:draining");
    advance(DELAY);
    gateway.awaitDataPlane();
    assertThat(flows.get("a").ending()).isEqualTo(FlowClient.Ending.RESET);
    assertThat(flows.get("b").ask("untouched")).isEqualTo("b:untouched");
  }

  @Test
  void halfClose_theClientsFinReachesTheTarget_andItsAnswerStillComesBack() throws Exception {
    // A target that reads until the client's FIN, then answers and closes: without half-close the
    // FIN would close the whole flow and the answer be lost.
    try (java.net.ServerSocket server = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName("127.0.0.1"))) {
      gateway = Gateway.start(TestVertx.create(), config("").replace("      []\n", "      - {id: 127.0.0.1, port: "
          + server.getLocalPort() + "}\n"));
      java.util.concurrent.CompletableFuture<Integer> read = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
        try (java.net.Socket s = server.accept()) {
          byte[] all = s.getInputStream().readAllBytes();
          s.getOutputStream().write(("got " + all.length + " bytes\n").getBytes(java.nio.charset.StandardCharsets.UTF_8));
          return all.length;
        } catch (java.io.IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      });
      FlowClient c = connect(null);
      byte[] request = new byte[200_000]; // more than one read, so that FIN follows data still in flight
      c.socket().getOutputStream().write(request);
      c.socket().shutdownOutput();
      java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(c.socket().getInputStream(),
          java.nio.charset.StandardCharsets.UTF_8));
      assertThat(in.readLine()).isEqualTo("got 200000 bytes");
      assertThat(in.readLine()).as("then the target's FIN").isNull();
      assertThat(read.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(200_000);
      await().atMost(Duration.ofSeconds(10)).until(() -> metric("ActiveFlowCount") == 0);
    }
  }

  @Test
  void removedListener_stopsAccepting_whileItsOpenFlowGoesOn() {
    int second = Ports.free();
    String two = config("", a).replace("""
              - {protocol: TCP, port: %d, default-actions: [{type: forward, target-group: tcp}]}
        """.formatted(port), """
              - {protocol: TCP, port: %d, default-actions: [{type: forward, target-group: tcp}]}
              - {protocol: TCP, port: %d, default-actions: [{type: forward, target-group: tcp}]}
        """.formatted(port, second));
    gateway = Gateway.start(TestVertx.create(), two);
    FlowClient open = FlowClient.connect(null, "127.0.0.1", second);
    clients.add(open);
    assertThat(open.ask("before")).isEqualTo("a:before");
    gateway.reload(config("", a));
    gateway.awaitDataPlane();
    assertThat(open.ask("after")).as("the removed listener's flow goes on").isEqualTo("a:after");
    assertThatThrownBy(() -> FlowClient.connect(null, "127.0.0.1", second)).as("no longer accepting")
        .hasRootCauseInstanceOf(java.net.ConnectException.class);
    assertThat(connect(null).ask("other")).isEqualTo("a:other");
  }

  @Test
  void tlsGroup_whoseTargetDoesNotSpeakTls_resetsTheClient_andCountsTheHandshake() throws Exception {
    String yaml = """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - {protocol: TLS, port: %d, default-actions: [{type: forward, target-group: tls}]}
        target-groups:
          - {name: tls, target-type: ip, protocol: TLS, port: 443, targets: [{id: 127.0.0.1, port: %d}]}
        """;
    // An HTTP server: it answers the TLS handshake's first bytes with 400 and closes.
    Backend http1 = Backend.start(targets, "plain");
    gateway = Gateway.start(TestVertx.create(), yaml.formatted(port, http1.port()));
    try (FlowClient c = FlowClient.over(TestCertificates.trustingAnything().getSocketFactory()
        .createSocket("127.0.0.1", port))) {
      assertThat(c.ending()).isEqualTo(FlowClient.Ending.RESET);
    }
    assertThat(metric("TargetTLSNegotiationErrorCount")).isEqualTo(1);
    assertThat(metric("TCP_ELB_Reset_Count")).isEqualTo(1);
  }

  @Test
  void noTarget_resetsTheConnection() {
    gateway = Gateway.start(TestVertx.create(), config(""));
    assertThat(FlowClient.endingOfNewConnection(port)).isEqualTo(FlowClient.Ending.RESET);
    assertThat(metric("TCP_ELB_Reset_Count")).isEqualTo(1);
    assertThat(metric("ActiveFlowCount")).isZero();
  }

  @Test
  void proxyProtocolV2_tellsTheTargetWhoTheClientIs() {
    gateway = Gateway.start(TestVertx.create(), config("proxy_protocol_v2.enabled: true", a));
    FlowClient c = connect("127.0.0.7");
    assertThat(c.ask("hello")).as("the header is the target's, not the client's").isEqualTo("a:hello");
    assertThat(a.proxyHeaders()).hasSize(1);
    ByteBuffer h = ByteBuffer.wrap(a.proxyHeaders().get(0));
    byte[] signature = new byte[12];
    h.get(signature);
    assertThat(signature).containsExactly(0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A);
    assertThat(h.get()).as("version 2, PROXY").isEqualTo((byte) 0x21);
    assertThat(h.get()).as("TCP over IPv4").isEqualTo((byte) 0x11);
    assertThat(h.getShort()).isEqualTo((short) 12);
    assertThat(new byte[] {h.get(), h.get(), h.get(), h.get()}).containsExactly(127, 0, 0, 7);
    assertThat(new byte[] {h.get(), h.get(), h.get(), h.get()}).containsExactly(127, 0, 0, 1);
    assertThat(Short.toUnsignedInt(h.getShort())).as("the client's port").isEqualTo(c.localPort());
    assertThat(Short.toUnsignedInt(h.getShort())).as("the listener's port").isEqualTo(port);
  }

  @Test
  void proxyProtocolV2_healthChecksCarryALocalHeader_soTargetsThatRequireOneAreHealthy() {
    a.requireProxyProtocol(true);
    b.requireProxyProtocol(true);
    startHealthy("proxy_protocol_v2.enabled: true");
    assertThat(a.proxyHeaders()).as("the first check's").isNotEmpty().allSatisfy(h -> {
      assertThat(h).hasSize(16);
      assertThat(h[12]).as("version 2, LOCAL").isEqualTo((byte) 0x20);
      assertThat(h[13]).as("family unspecified").isEqualTo((byte) 0x00);
    });
    FlowClient c = connect(null);
    String target = c.target();
    TcpTarget reached = target.equals("a") ? a : b;
    byte[] last = reached.proxyHeaders().get(reached.proxyHeaders().size() - 1);
    assertThat(last[12]).as("a client's flow: PROXY").isEqualTo((byte) 0x21);
  }

  @Test
  void tlsListener_endsTheClientsTls_andReachesTcpAndTlsTargets() throws Exception {
    Path dir = Files.createTempDirectory("nlb-tls");
    TestCertificates.Pem listenerCert = TestCertificates.pem(dir, "listener", "nlb.example");
    TcpTarget secure = TcpTarget.start(targets, "s", TestCertificates.pem(dir, "target", "target.example"));
    int tlsToTls = Ports.free();
    String yaml = """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - protocol: TLS
                port: %d
                certificates: [{certificate: %s, private-key: %s}]
                default-actions: [{type: forward, target-group: tcp}]
              - protocol: TLS
                port: %d
                certificates: [{certificate: %s, private-key: %s}]
                default-actions: [{type: forward, target-group: tls}]
        target-groups:
          - {name: tcp, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: tls, target-type: ip, protocol: TLS, port: 443, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, listenerCert.certificate(), listenerCert.privateKey(), tlsToTls,
        listenerCert.certificate(), listenerCert.privateKey(), a.port(), secure.port());
    try {
      gateway = Gateway.start(TestVertx.create(), yaml);
      SSLContext tls = TestCertificates.trusting(listenerCert.x509());
      try (FlowClient toTcp = FlowClient.over(tls.getSocketFactory().createSocket("127.0.0.1", port));
           FlowClient toTls = FlowClient.over(tls.getSocketFactory().createSocket("127.0.0.1", tlsToTls))) {
        assertThat(toTcp.ask("over tls")).isEqualTo("a:over tls");
        assertThat(toTls.ask("tls both ways")).isEqualTo("s:tls both ways");
        X509Certificate served = (X509Certificate) ((SSLSocket) toTcp.socket()).getSession().getPeerCertificates()[0];
        assertThat(served).as("the listener's certificate, not the target's").isEqualTo(listenerCert.x509());
      }
    } finally {
      secure.close();
    }
  }

  @Test
  void idleFlow_isClosedAfterTheIdleTimeout_whileOneThatCarriesBytesGoesOn() {
    startHealthy("");
    FlowClient quiet = connect(null);
    FlowClient talking = connect(null);
    assertThat(quiet.ask("first")).endsWith(":first");
    assertThat(talking.ask("first")).endsWith(":first");
    advance(345);
    assertThat(quiet.ask("at 345 s")).as("quiet for 345 s: not yet idle").endsWith(":at 345 s");
    assertThat(talking.ask("at 345 s")).endsWith(":at 345 s");
    advance(200);
    assertThat(talking.ask("at 545 s")).endsWith(":at 545 s");
    advance(160);
    assertThat(quiet.ending()).as("quiet for 360 s: closed").isEqualTo(FlowClient.Ending.CLOSED);
    assertThat(talking.ask("at 705 s")).as("quiet for 160 s only").endsWith(":at 705 s");
    assertThat(metric("ActiveFlowCount")).isEqualTo(1);
  }

  /** Starts the listener with {@code tcp.idle_timeout.seconds: 60}. */
  private void startWithIdleTimeoutOfAMinute() {
    String yaml = config("", a, b).replace("default-actions: [{type: forward, target-group: tcp}]}",
        "default-actions: [{type: forward, target-group: tcp}], attributes: {tcp.idle_timeout.seconds: 60}}");
    gateway = Gateway.start(TestVertx.create(), yaml, 1, time);
    advance(5);
    gateway.awaitDataPlane();
  }

  @Test
  void listenersIdleTimeout_tcpIdleTimeoutSeconds_closesQuietFlowsSooner() {
    startWithIdleTimeoutOfAMinute();
    FlowClient quiet = connect(null);
    FlowClient talking = connect(null);
    assertThat(quiet.ask("first")).endsWith(":first");
    assertThat(talking.ask("first")).endsWith(":first");
    advance(55);
    assertThat(quiet.ask("at 55 s")).as("quiet for 55 s: not yet idle").endsWith(":at 55 s");
    assertThat(talking.ask("at 55 s")).endsWith(":at 55 s");
    advance(40);
    assertThat(talking.ask("at 95 s")).endsWith(":at 95 s");
    advance(30);
    assertThat(quiet.ending()).as("quiet for 70 s: closed").isEqualTo(FlowClient.Ending.CLOSED);
    assertThat(talking.ask("at 125 s")).as("quiet for 30 s only").endsWith(":at 125 s");
  }

  /**
   * Idle flows are looked for every 5 s from the first flow on: one whose last byte came just before
   * such a sweep is quiet at that sweep already, and still lives for the whole timeout after it.
   */
  @Test
  void flowWhoseLastByteCameJustBeforeASweep_livesTheWholeIdleTimeout() {
    startWithIdleTimeoutOfAMinute();
    FlowClient quiet = connect(null); // the sweeps start now, every 5 s
    advance(4);
    assertThat(quiet.ask("a second before a sweep")).endsWith(":a second before a sweep");
    advance(59);
    assertThat(quiet.ask("at 59 s")).as("quiet for 59 s: not yet idle").endsWith(":at 59 s");
    advance(66);
    assertThat(quiet.ending()).as("quiet for 66 s: closed").isEqualTo(FlowClient.Ending.CLOSED);
  }

  @Test
  void everyListenerInstance_acceptsOnTheSamePort() throws IOException {
    gateway = Gateway.start(TestVertx.create(), config("", a, b), 2, time);
    advance(5);
    gateway.awaitDataPlane();
    // Each loop binds its own socket (SO_REUSEPORT), and the kernel spreads connections over them.
    assertThat(listeningSockets(port)).as("one listening socket per loop").isEqualTo(2);
    for (int i = 0; i < 16; i++) {
      assertThat(connect(null).ask("flow " + i)).matches("[ab]:flow " + i);
    }
    assertThat(metric("NewFlowCount")).isEqualTo(16);
    assertThat(metric("ActiveFlowCount")).isEqualTo(16);
  }

  /**
   * How many sockets listen on {@code 127.0.0.1:port}, from the kernel's tables (IPv4 sockets,
   * and IPv6 ones bound to the IPv4-mapped address, as Netty's native transports make them).
   */
  private static long listeningSockets(int port) throws IOException {
    Path v4 = Path.of("/proc/net/tcp");
    Assumptions.assumeTrue(Files.isReadable(v4), "Linux's /proc/net/tcp");
    Set<String> local = Set.of(String.format("0100007F:%04X", port),
        String.format("0000000000000000FFFF00000100007F:%04X", port));
    long count = 0;
    for (Path table : List.of(v4, Path.of("/proc/net/tcp6"))) {
      if (Files.isReadable(table)) {
        count += Files.readAllLines(table).stream().skip(1).map(line -> line.trim().split("\\s+"))
            .filter(f -> local.contains(f[1].toUpperCase(java.util.Locale.ROOT)) && f[3].equals("0A")) // 0A: LISTEN
            .count();
      }
    }
    return count;
  }

  @Test
  void alpnPolicy_choosesTheListenersFavouriteOfWhatTheClientOffers_andATlsTargetIsOfferedThatOneAlone()
      throws Exception {
    Path dir = Files.createTempDirectory("nlb-alpn");
    TestCertificates.Pem cert = TestCertificates.pem(dir, "listener", "nlb.example");
    AlpnTlsTarget secure = AlpnTlsTarget.start("s", dir, List.of("http/1.1", "h2"));
    int optional = Ports.free();
    int none = Ports.free();
    String yaml = """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - protocol: TLS
                port: %1$d
                certificates: [{certificate: %2$s, private-key: %3$s}]
                alpn-policy: HTTP2Preferred
                default-actions: [{type: forward, target-group: tls}]
              - protocol: TLS
                port: %4$d
                certificates: [{certificate: %2$s, private-key: %3$s}]
                alpn-policy: HTTP2Optional
                default-actions: [{type: forward, target-group: tcp}]
              - protocol: TLS
                port: %5$d
                certificates: [{certificate: %2$s, private-key: %3$s}]
                default-actions: [{type: forward, target-group: tls}]
        target-groups:
          - {name: tcp, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %6$d}]}
          - {name: tls, target-type: ip, protocol: TLS, port: 443, targets: [{id: 127.0.0.1, port: %7$d}]}
        """.formatted(port, cert.certificate(), cert.privateKey(), optional, none, a.port(), secure.port());
    try {
      gateway = Gateway.start(TestVertx.create(), yaml);
      SSLContext tls = TestCertificates.trusting(cert.x509());

      assertThat(alpn(tls, port, "http/1.1", "h2")).as("HTTP2Preferred: h2 first, whatever the client's order")
          .isEqualTo("h2");
      assertThat(secure.chosenProtocols()).as("the target is offered h2 alone").last().isEqualTo("h2");
      assertThat(alpn(tls, port, "http/1.1")).isEqualTo("http/1.1");
      assertThat(secure.chosenProtocols()).last().isEqualTo("http/1.1");
      assertThat(alpn(tls, port, "spdy/3.1")).as("nothing in common: no protocol, and the session goes on").isEmpty();
      assertThat(secure.chosenProtocols()).as("nothing offered to the target").last().isEqualTo("");
      assertThat(alpn(tls, port)).as("a client that offers nothing").isEmpty();

      assertThat(alpn(tls, optional, "h2", "http/1.1")).as("HTTP2Optional: HTTP/1.1 first").isEqualTo("http/1.1");
      assertThat(alpn(tls, optional, "h2")).isEqualTo("h2");

      assertThat(alpn(tls, none, "h2", "http/1.1")).as("no policy: nothing negotiated").isEmpty();
      assertThat(secure.chosenProtocols()).last().isEqualTo("");
      assertThat(metric("ClientTLSNegotiationErrorCount")).isZero();
    } finally {
      secure.close();
    }
  }

  /**
   * Two TLS listeners with one certificate and different security policies each keep their own:
   * Vert.x's context manager, shared by every loop, knows a context by its certificates alone, and
   * gave the second listener the first one's (TLS 1.2 on a TLS 1.3-only listener).
   */
  @Test
  void tlsListenersWithOneCertificate_eachKeepTheirOwnSecurityPolicy() throws Exception {
    Path dir = Files.createTempDirectory("nlb-policy");
    TestCertificates.Pem cert = TestCertificates.pem(dir, "listener", "nlb.example");
    int strict = Ports.free();
    String yaml = """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - protocol: TLS
                port: %1$d
                certificates: [{certificate: %2$s, private-key: %3$s}]
                default-actions: [{type: forward, target-group: tcp}]
              - protocol: TLS
                port: %4$d
                certificates: [{certificate: %2$s, private-key: %3$s}]
                ssl-policy: ELBSecurityPolicy-TLS13-1-3-2021-06
                default-actions: [{type: forward, target-group: tcp}]
        target-groups:
          - {name: tcp, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %5$d}]}
        """.formatted(port, cert.certificate(), cert.privateKey(), strict, a.port());
    gateway = Gateway.start(TestVertx.create(), yaml);
    SSLContext tls = TestCertificates.trusting(cert.x509());
    for (int listener : new int[] {port, strict}) {
      SSLSocket socket = (SSLSocket) tls.getSocketFactory().createSocket("127.0.0.1", listener);
      socket.setEnabledProtocols(new String[] {"TLSv1.2"});
      if (listener == port) {
        try (FlowClient c = FlowClient.over(socket)) {
          assertThat(c.ask("over 1.2")).isEqualTo("a:over 1.2");
        }
      } else {
        assertThatThrownBy(socket::startHandshake).as("TLS 1.2 on the TLS 1.3-only listener")
            .isInstanceOf(javax.net.ssl.SSLException.class);
        socket.close();
      }
    }
  }

  /** The protocol negotiated by a client that offers {@code offer} ("" for none), after a line went both ways. */
  private static String alpn(SSLContext tls, int port, String... offer) {
    try (FlowClient c = FlowClient.tls(tls, port, offer)) {
      assertThat(c.ask("hello")).endsWith(":hello");
      return c.applicationProtocol();
    }
  }

  /** A TLS listener on {@code port} with {@code cert}, forwarding to a TCP group of target {@code a}. */
  private String tlsListenerToA(TestCertificates.Pem cert) {
    return """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - protocol: TLS
                port: %d
                certificates: [{certificate: %s, private-key: %s}]
                default-actions: [{type: forward, target-group: tcp}]
        target-groups:
          - {name: tcp, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, cert.certificate(), cert.privateKey(), a.port());
  }

  @Test
  void tlsListener_countsAClientThatDoesNotSpeakTls_andServesNewCertificatesToNewFlowsOnly() throws Exception {
    Path dir = Files.createTempDirectory("nlb-tls");
    TestCertificates.Pem one = TestCertificates.pem(dir, "one", "nlb.example");
    TestCertificates.Pem two = TestCertificates.pem(dir, "two", "nlb.example");
    gateway = Gateway.start(TestVertx.create(), tlsListenerToA(one));
    FlowClient plain = connect(null);
    plain.socket().getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(plain.ending()).as("a cleartext line is no handshake: the connection ends")
        .isIn(FlowClient.Ending.CLOSED, FlowClient.Ending.RESET);
    assertThat(metric("ClientTLSNegotiationErrorCount")).isEqualTo(1);
    assertThat(metric("NewFlowCount")).as("no flow without a session").isZero();
    try (FlowClient before = FlowClient.over(TestCertificates.trusting(one.x509()).getSocketFactory()
        .createSocket("127.0.0.1", port))) {
      assertThat(before.ask("with one")).isEqualTo("a:with one");
      gateway.reload(tlsListenerToA(two));
      gateway.awaitDataPlane();
      assertThat(before.ask("still one")).as("an open flow keeps its session").isEqualTo("a:still one");
      try (FlowClient after = FlowClient.over(TestCertificates.trusting(two.x509()).getSocketFactory()
          .createSocket("127.0.0.1", port))) {
        assertThat(after.ask("with two")).isEqualTo("a:with two");
        X509Certificate served = (X509Certificate) ((SSLSocket) after.socket()).getSession().getPeerCertificates()[0];
        assertThat(served).isEqualTo(two.x509());
      }
    }
  }

  @Test
  void tlsListener_resumesASession_onWhicheverLoopTheNextConnectionLands() throws Exception {
    Path dir = Files.createTempDirectory("nlb-tls");
    TestCertificates.Pem cert = TestCertificates.pem(dir, "listener", "nlb.example");
    gateway = Gateway.start(TestVertx.create(), tlsListenerToA(cert), 2, time);
    // One client context, so one session cache: TLS 1.2 offers the cached session's id on each new connection.
    SSLContext client = TestCertificates.trusting(cert.x509());
    byte[] first = null;
    for (int i = 0; i < 8; i++) {
      SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port);
      socket.setEnabledProtocols(new String[] {"TLSv1.2"});
      try (FlowClient c = FlowClient.over(socket)) {
        assertThat(c.ask("connection " + i)).isEqualTo("a:connection " + i);
        byte[] id = socket.getSession().getId();
        if (first == null) {
          first = id;
        } else {
          assertThat(id).as("connection %d resumes the first session (two loops accept)", i).isEqualTo(first);
        }
      }
    }
  }
}
