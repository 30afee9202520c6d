package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.TargetState;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.UdpTarget;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A network load balancer's UDP and TCP_UDP listeners (SPEC §2.4, DESIGN §7), with real UDP
 * targets and plain datagram sockets as clients: each client address and port is a flow that goes
 * to one target and stays there, answers come back from the listener's address, a flow is
 * forgotten after 120 s without a datagram, a deregistered target's flows end after the delay and
 * move on, an unhealthy target's go on while new ones avoid it, and a TCP_UDP listener takes
 * connections and datagrams on one port.
 */
class DatagramListenerTest {

  private static final int DELAY = 30;

  private final Vertx targets = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final List<Client> clients = new ArrayList<>();
  private final List<FlowClient> connections = new ArrayList<>();
  private UdpTarget a;
  private UdpTarget b;
  private Gateway gateway;
  private Http http;
  private int port;

  @BeforeEach
  void start() {
    a = UdpTarget.start(targets, "a");
    b = UdpTarget.start(targets, "b");
    port = Ports.free();
    http = new Http(targets);
  }

  @AfterEach
  void stop() {
    clients.forEach(Client::close);
    connections.forEach(FlowClient::close);
    if (gateway != null) {
      gateway.close();
    }
    http.close();
    a.close();
    b.close();
    targets.close();
  }

  private String config(String protocol, String attributes, UdpTarget... registered) {
    StringBuilder list = new StringBuilder();
    for (UdpTarget t : registered) {
      list.append("      - {id: 127.0.0.1, port: ").append(t.port()).append("}\n");
    }
    return """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - {protocol: %s, port: %d, default-actions: [{type: forward, target-group: udp}]}
        target-groups:
          - name: udp
            target-type: ip
            protocol: %s
            port: 53
            health-check: {protocol: HTTP, path: /health, interval-seconds: 5, timeout-seconds: 2,
                           healthy-threshold-count: 2, unhealthy-threshold-count: 2}
            attributes: {deregistration_delay.timeout_seconds: %d%s}
            targets:
        %s""".formatted(protocol, port, protocol, DELAY, attributes.isEmpty() ? "" : ", " + attributes,
        list.isEmpty() ? "      []\n" : list);
  }

  /** Starts the gateway on virtual time and lets every target pass its first checks. */
  private void startHealthy(String attributes) {
    gateway = Gateway.start(TestVertx.create(), config("UDP", attributes, a, b), 1, time);
    advance(5);
    gateway.awaitDataPlane();
    assertThat(List.of(state(a), state(b))).containsOnly(TargetState.HEALTHY);
  }

  private void advance(int seconds) {
    time.advance(Duration.ofSeconds(seconds), () -> gateway.fulcrum().healthChecksInFlight() == 0);
  }

  private TargetState state(UdpTarget t) {
    String arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    return Await.result(gateway.fulcrum().health(arn)).targets().entrySet().stream()
        .filter(e -> e.getKey().endsWith(":" + t.port())).findFirst().orElseThrow().getValue().health().state();
  }

  private Client client() {
    Client c = new Client(port);
    clients.add(c);
    return c;
  }

  /** Opens flows until one reaches each target: returns them by target id. */
  private Map<String, Client> oneFlowOnEach() {
    Map<String, Client> byTarget = new HashMap<>();
    for (int i = 0; i < 64 && byTarget.size() < 2; i++) {
      Client c = client();
      byTarget.putIfAbsent(c.target(), c);
    }
    assertThat(byTarget).containsOnlyKeys("a", "b");
    return byTarget;
  }

  private double metric(String name) {
    return Scrape.of(http, gateway.controlPort()).sum(name, Map.of());
  }

  @Test
  void flows_spreadOverTheTargets_eachStaysOnItsTarget_andAnswersComeFromTheListener() {
    gateway = Gateway.start(TestVertx.create(), config("UDP", "", a, b));
    Map<String, Integer> byTarget = new HashMap<>();
    long bytes = 0;
    for (int i = 0; i < 24; i++) {
      Client c = client();
      String target = c.target();
      for (int j = 0; j < 3; j++) {
        String reply = c.ask("datagram " + j);
        assertThat(reply).as("a flow stays on its target").isEqualTo(target + ":datagram " + j);
        assertThat(c.lastSender()).as("the answer comes from the listener's address")
            .isEqualTo(new InetSocketAddress("127.0.0.1", port));
        bytes += ("datagram " + j).length() + reply.length();
      }
      bytes += "who".length() + (target + ":who").length();
      byTarget.merge(target, 1, Integer::sum);
    }
    assertThat(byTarget).as("24 flows hashed over two targets").containsOnlyKeys("a", "b");
    assertThat(a.senders().size() + b.senders().size()).as("one socket to its target per flow").isEqualTo(24);
    assertThat(a.datagrams() + b.datagrams()).isEqualTo(24 * 4);

    assertThat(metric("NewFlowCount_UDP")).isEqualTo(24);
    assertThat(metric("ActiveFlowCount_UDP")).isEqualTo(24);
    assertThat(metric("NewFlowCount")).as("UDP flows count among all flows").isEqualTo(24);
    assertThat(metric("ProcessedPackets_UDP")).as("4 datagrams each way on 24 flows").isEqualTo(24 * 4 * 2);
    assertThat(metric("ProcessedBytes_UDP")).isEqualTo(bytes);
    assertThat(metric("ProcessedBytes")).isEqualTo(bytes);
  }

  @Test
  void withTwoEventLoops_eachFlowStaysWhole() {
    // Each loop binds its own socket (SO_REUSEPORT): the kernel hashes a client's datagrams to one.
    gateway = Gateway.start(TestVertx.create(), config("UDP", "", a, b), 2, java.time.Clock.systemUTC());
    for (int i = 0; i < 16; i++) {
      Client c = client();
      String target = c.target();
      for (int j = 0; j < 3; j++) {
        assertThat(c.ask("datagram " + j)).isEqualTo(target + ":datagram " + j);
      }
    }
    assertThat(a.senders().size() + b.senders().size()).as("one flow per client").isEqualTo(16);
    assertThat(metric("ActiveFlowCount_UDP")).isEqualTo(16);
  }

  @Test
  void anIpv6Node_relaysToIpv4Targets_andAnswersFromItsOwnAddress() throws IOException {
    gateway = Gateway.start(TestVertx.create(), "nodes:\n  - {zone: zone-a, address: \"::1\"}\n" + config("UDP", "", a));
    try (DatagramSocket client = new DatagramSocket(new InetSocketAddress("::1", 0))) {
      client.setSoTimeout(5_000);
      byte[] question = "over IPv6".getBytes(StandardCharsets.UTF_8);
      client.send(new DatagramPacket(question, question.length, new InetSocketAddress("::1", port)));
      DatagramPacket answer = new DatagramPacket(new byte[512], 512);
      client.receive(answer);
      assertThat(new String(answer.getData(), 0, answer.getLength(), StandardCharsets.UTF_8)).isEqualTo("a:over IPv6");
      assertThat(answer.getSocketAddress()).as("from the listener's address")
          .isEqualTo(new InetSocketAddress("::1", port));
    }
    assertThat(a.senders()).as("the target's side is IPv4").allSatisfy(s -> assertThat(s).startsWith("127.0.0.1:"));
  }

  @Test
  void aTargetsUdpServiceThatStopsAndComesBack_answersTheSameClientAgain() {
    gateway = Gateway.start(TestVertx.create(), config("UDP", "", a));
    Client c = client();
    assertThat(c.ask("before")).isEqualTo("a:before");
    a.stopUdp();
    c.send("while it is down"); // answered by ICMP port unreachable, to the flow's socket
    c.send("and again");
    a.startUdp();
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(c.ask("after")).isEqualTo("a:after"));
    assertThat(metric("NewFlowCount_UDP")).as("the ICMP errors did not end the flow").isEqualTo(1);
  }

  @Test
  void dashboard_showsTheUdpFlows(@TempDir Path dir) throws Exception {
    gateway = Gateway.start(TestVertx.create(), config("UDP", "", a));
    for (int i = 0; i < 3; i++) {
      client().target();
    }
    String stateText = http.get("127.0.0.1", gateway.controlPort(), "/ui/state", Map.of()).body();
    io.vertx.core.json.JsonObject counters = new io.vertx.core.json.JsonObject(stateText).getJsonArray("loadBalancers")
        .getJsonObject(0).getJsonObject("counters");
    assertThat(counters.getLong("activeFlows")).isEqualTo(3);
    assertThat(counters.getLong("activeUdpFlows")).isEqualTo(3);

    Path node = Interop.require("/usr/bin/node", "nodejs");
    Path page = java.nio.file.Files.writeString(dir.resolve("dashboard.html"),
        http.get("127.0.0.1", gateway.controlPort(), "/ui", Map.of()).body());
    Path state = java.nio.file.Files.writeString(dir.resolve("state.json"), stateText);
    Path none = java.nio.file.Files.writeString(dir.resolve("events.json"), "{\"events\": []}");
    Path render = Path.of(DatagramListenerTest.class.getResource("/ui/render.js").toURI());
    Tool.Result r = Tool.run(dir, Duration.ofSeconds(30), List.of(node.toString(), render.toString(), page.toString(),
        state.toString(), none.toString(), none.toString(), none.toString(), "127.0.0.1:" + a.port()));
    assertThat(r.output()).as("the page draws the UDP flows among the flows, and no requests for the UDP group")
        .contains("3 active flows").contains("3 of them UDP").contains("udp ip UDP, flow_hash")
        .doesNotContain("requests/s").doesNotContain("round_robin");
  }

  @Test
  void aLargeDatagram_passesWholeBothWays() {
    gateway = Gateway.start(TestVertx.create(), config("UDP", "", a));
    Client c = client();
    String large = "x".repeat(60_000);
    String reply = c.ask(large);
    assertThat(reply.length()).as("the answer's length").isEqualTo(60_002);
    assertThat(reply).as("the answer").isEqualTo("a:" + large);
    assertThat(c.ask("small")).isEqualTo("a:small");
  }

  @Test
  void sourceIpStickiness_keepsEveryFlowOfAnAddressOnOneTarget() {
    gateway = Gateway.start(TestVertx.create(), config("UDP", "stickiness.enabled: true, stickiness.type: source_ip",
        a, b));
    Set<String> used = new HashSet<>();
    for (int i = 10; i < 26; i++) {
      Set<String> seen = new HashSet<>();
      for (int j = 0; j < 4; j++) {
        seen.add(new Client("127.0.0." + i, port).closeAfter(Client::target));
      }
      assertThat(seen).as("every flow from 127.0.0.%d reaches one target", i).hasSize(1);
      used.addAll(seen);
    }
    assertThat(used).as("16 client addresses spread over both targets").containsOnly("a", "b");
  }

  @Test
  void anIdleFlow_isForgottenAfter120s_andTheClientsNextDatagramStartsANewOne() {
    startHealthy("");
    Client c = client();
    String target = c.target();
    advance(60);
    assertThat(c.ask("at 60 s")).isEqualTo(target + ":at 60 s");
    advance(120);
    assertThat(metric("ActiveFlowCount_UDP")).as("120 s after its last datagram").isEqualTo(1);
    advance(10);
    await().atMost(Duration.ofSeconds(10)).until(() -> metric("ActiveFlowCount_UDP") == 0);
    assertThat(c.ask("again")).isEqualTo(target + ":again");
    assertThat(metric("NewFlowCount_UDP")).as("the same client and port, a new flow").isEqualTo(2);
    UdpTarget t = target.equals("a") ? a : b;
    assertThat(t.senders()).as("the new flow has its own socket to the target").hasSize(2);
  }

  @Test
  void deregisteredTarget_itsFlowsEndAfterTheDelay_andTheirNextDatagramsMoveOn() {
    startHealthy("");
    Map<String, Client> flows = oneFlowOnEach();
    gateway.reload(config("UDP", "", b));
    gateway.awaitDataPlane();
    assertThat(state(b)).isEqualTo(TargetState.HEALTHY);
    assertThat(flows.get("a").ask("draining")).as("during the delay the flow goes on").isEqualTo("a:draining");
    for (int i = 0; i < 8; i++) {
      assertThat(client().target()).as("no new flow reaches the draining target").isEqualTo("b");
    }
    advance(DELAY);
    gateway.awaitDataPlane();
    assertThat(flows.get("a").ask("after the delay"))
        .as("UDP groups end flows when the delay ends (connection termination is on): the next datagram moves")
        .isEqualTo("b:after the delay");
    assertThat(flows.get("b").ask("untouched")).isEqualTo("b:untouched");
  }

  @Test
  void unhealthyTarget_keepsItsFlows_whileNewFlowsGoToTheHealthyOne() {
    startHealthy("");
    Map<String, Client> flows = oneFlowOnEach();
    a.healthy(false);
    advance(5);
    advance(5);
    gateway.awaitDataPlane();
    assertThat(state(a)).isEqualTo(TargetState.UNHEALTHY);
    assertThat(flows.get("a").ask("kept")).as("NLB does not end UDP flows on health").isEqualTo("a:kept");
    for (int i = 0; i < 8; i++) {
      assertThat(client().target()).as("new flows go to the healthy target").isEqualTo("b");
    }
  }

  @Test
  void aTcpUdpListener_takesConnectionsAndDatagramsOnOnePort() {
    gateway = Gateway.start(TestVertx.create(), config("TCP_UDP", "", a));
    FlowClient tcp = FlowClient.connect(null, "127.0.0.1", port);
    connections.add(tcp);
    assertThat(tcp.ask("over TCP")).isEqualTo("a:over TCP");
    assertThat(client().ask("over UDP")).isEqualTo("a:over UDP");
    assertThat(a.connections()).isEqualTo(1);
    assertThat(metric("NewFlowCount")).as("a connection and a UDP flow").isEqualTo(2);
    assertThat(metric("NewFlowCount_UDP")).isEqualTo(1);
  }

  @Test
  void weightedGroups_newFlowsFollowTheWeights_openOnesStay() {
    String yaml = """
        load-balancers:
          - name: nlb
            type: network
            listeners:
              - protocol: UDP
                port: %d
                default-actions: [{type: forward, target-groups: [{name: blue, weight: %d}, {name: green, weight: %d}]}]
        target-groups:
          - {name: blue, target-type: ip, protocol: UDP, port: 53, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: green, target-type: ip, protocol: UDP, port: 53, targets: [{id: 127.0.0.1, port: %d}]}
        """;
    gateway = Gateway.start(TestVertx.create(), yaml.formatted(port, 1, 0, a.port(), b.port()));
    Client open = client();
    assertThat(open.target()).isEqualTo("a");
    for (int i = 0; i < 8; i++) {
      assertThat(client().target()).as("green's weight is 0").isEqualTo("a");
    }
    gateway.reload(yaml.formatted(port, 0, 1, a.port(), b.port()));
    gateway.awaitDataPlane();
    for (int i = 0; i < 8; i++) {
      assertThat(client().target()).as("new flows follow the new weights").isEqualTo("b");
    }
    assertThat(open.ask("still")).as("an open flow stays on its group").isEqualTo("a:still");
  }

  @Test
  void aRemovedListener_stopsTakingDatagrams() throws IOException {
    gateway = Gateway.start(TestVertx.create(), config("UDP", "", a));
    Client c = client();
    assertThat(c.ask("before")).isEqualTo("a:before");
    gateway.reload(config("UDP", "", a).replace("    listeners:\n      - {protocol: UDP, port: " + port
        + ", default-actions: [{type: forward, target-group: udp}]}\n", "    listeners: []\n"));
    gateway.awaitDataPlane();
    await().atMost(Duration.ofSeconds(10)).until(() -> metric("ActiveFlowCount_UDP") == 0);
    int before = a.datagrams();
    try (DatagramSocket connected = new DatagramSocket(new InetSocketAddress("127.0.0.1", 0))) {
      connected.connect(new InetSocketAddress("127.0.0.1", port));
      connected.setSoTimeout(5_000);
      connected.send(new DatagramPacket(new byte[] {'x'}, 1));
      // A socket connected to a port nobody listens on learns it from the ICMP port unreachable.
      assertThatThrownBy(() -> connected.receive(new DatagramPacket(new byte[16], 16)))
          .isInstanceOf(java.net.PortUnreachableException.class);
    }
    assertThat(a.datagrams()).isEqualTo(before);
  }

  @Test
  void interop_dig_asksADnsServerThroughTheListener(@TempDir Path dir) {
    Path dig = Interop.require("/usr/bin/dig", "dnsutils");
    gateway = Gateway.start(TestVertx.create(), config("UDP", ""));
    // Fulcrum's own DNS responder (UDP and TCP on one port) as the target.
    gateway.reload(config("UDP", "").replace("      []\n", "      - {id: 127.0.0.1, port: " + gateway.dnsPort() + "}\n"));
    gateway.awaitDataPlane();
    String name = gateway.fulcrum().config().resources().loadBalancers().get(0).dnsName();
    Tool.Result r = Tool.run(dir, Duration.ofSeconds(30), List.of(dig.toString(), "@127.0.0.1", "-p",
        Integer.toString(port), "+tries=1", "+time=5", name, "A", "+short"));
    assertThat(r.exitCode()).as("dig's exit code; it printed:%n%s", r.output()).isZero();
    assertThat(r.output().strip()).as("the DNS responder's answer, through the listener").isEqualTo("127.0.0.1");
    assertThat(metric("NewFlowCount_UDP")).isEqualTo(1);
  }

  /** A client's datagram socket: one flow, from its own address and port. */
  private static final class Client implements AutoCloseable {
    private final DatagramSocket socket;
    private final InetSocketAddress listener;
    private InetSocketAddress lastSender;

    Client(int port) {
      this("127.0.0.1", port);
    }

    Client(String from, int port) {
      try {
        socket = new DatagramSocket(new InetSocketAddress(from, 0));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      listener = new InetSocketAddress("127.0.0.1", port);
    }

    void send(String text) {
      byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
      try {
        socket.send(new DatagramPacket(bytes, bytes.length, listener));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    /** The next datagram, or null when none comes within {@code wait}. */
    String receive(Duration wait) {
      byte[] buffer = new byte[65_536];
      DatagramPacket p = new DatagramPacket(buffer, buffer.length);
      try {
        socket.setSoTimeout((int) wait.toMillis());
        socket.receive(p);
      } catch (java.net.SocketTimeoutException e) {
        return null;
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      lastSender = (InetSocketAddress) p.getSocketAddress();
      return new String(p.getData(), 0, p.getLength(), StandardCharsets.UTF_8);
    }

    String ask(String text) {
      send(text);
      String reply = receive(Duration.ofSeconds(5));
      assertThat(reply).as("an answer to '%s'", text.length() > 40 ? text.substring(0, 40) + "..." : text).isNotNull();
      return reply;
    }

    /** The id of the target this flow reaches. */
    String target() {
      String reply = ask("who");
      return reply.substring(0, reply.indexOf(':'));
    }

    InetSocketAddress lastSender() {
      return lastSender;
    }

    <T> T closeAfter(java.util.function.Function<Client, T> use) {
      try {
        return use.apply(this);
      } finally {
        close();
      }
    }

    @Override
    public void close() {
      socket.close();
    }
  }
}
