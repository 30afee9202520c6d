package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.forward;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.keys.KeyRingFile;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Resources;
import io.fulcrum.sticky.KeyRing;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DuplicateTargetGroupNameException;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.InvalidTargetException;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * Scale-out: Fulcrum processes of one cluster (Vert.x clustering with the Hazelcast cluster
 * manager, members on loopback) share the resources the API owns. Each "process" here is a
 * Fulcrum of its own Vert.x instances, its own data dir and its own node addresses (as two pods
 * have), driven by the real AWS SDK; a change made through either's API is applied by both, and
 * reaches targets through both's listeners.
 */
class ClusterApiTest {

  private final Vertx backends = TestVertx.create();
  private final List<Node> nodes = new ArrayList<>();
  private Backend blue;

  @TempDir
  Path dir;

  /** Hazelcast waits 5 s before it joins, by default, for more members to show up: not here. */
  @BeforeAll
  static void quickJoin() {
    System.setProperty("hazelcast.wait.seconds.before.join", "0");
  }

  @AfterAll
  static void defaultJoin() {
    System.clearProperty("hazelcast.wait.seconds.before.join");
  }

  @AfterEach
  void stop() {
    nodes.forEach(Node::close);
    backends.close();
  }

  /** One process of the cluster: zone-a and zone-b at {@code address}es of its own. */
  private final class Node implements AutoCloseable {
    final Gateway gateway;
    final ElasticLoadBalancingV2Client elb;
    final String zoneA;
    /** Where it takes the cluster's members. */
    final int clusterPort;
    boolean closed;

    Node(String name, String zoneA, String zoneB, int clusterPort, int... memberPorts) {
      this.zoneA = zoneA;
      this.clusterPort = clusterPort;
      StringBuilder members = new StringBuilder();
      for (int p : memberPorts) {
        members.append(members.length() == 0 ? "" : ", ").append("'127.0.0.1:").append(p).append("'");
      }
      String yaml = ElbClients.CREDENTIALS_YAML + """
          nodes:
            - {zone: zone-a, address: %s}
            - {zone: zone-b, address: %s}
          resources: {source: api}
          data-dir: %s
          cluster: {enabled: true, name: test-cluster, host: 127.0.0.1, port: %d, event-bus-port: %d, members: [%s]}
          target-groups:
            - {name: blue, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]}
          """.formatted(zoneA, zoneB, dir.resolve(name), clusterPort, Ports.free(), members, blue.port());
      gateway = Gateway.start(TestVertx.create(), yaml);
      elb = ElbClients.client(gateway.controlPort());
      nodes.add(this);
    }

    Resources resources() {
      return gateway.fulcrum().registry().resources();
    }

    long version() {
      return gateway.fulcrum().cluster().version();
    }

    @Override
    public void close() {
      if (!closed) {
        closed = true;
        elb.close();
        gateway.close();
      }
    }
  }

  private final int portA = Ports.free();
  private final int portB = Ports.free();
  private Node a;
  private Node b;

  /** The backend, then process a, then process b, which joins a. */
  private void startTwo() {
    blue = Backend.start(backends, "blue");
    a = new Node("a", "127.0.0.1", "127.0.0.2", portA, portB);
    b = new Node("b", "127.0.0.3", "127.0.0.4", portB, portA);
  }

  /** Through a's API: the load balancer web in both zones, an HTTP listener forwarding to {@code group}; its port. */
  private int webListenerThroughA(String group) {
    String lb = a.elb.createLoadBalancer(r -> r.name("web").subnets("zone-a", "zone-b")).loadBalancers().get(0)
        .loadBalancerArn();
    int listenerPort = Ports.free();
    a.elb.createListener(r -> r.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(listenerPort)
        .defaultActions(forward(group)));
    return listenerPort;
  }

  @Test
  void aChangeThroughEitherProcess_isAppliedByBoth_andServedByBothsListeners() {
    startTwo();
    assertThat(b.resources()).as("b took the cluster's resources, which a gave it").isEqualTo(a.resources());

    String blueArn = a.resources().targetGroupByName("blue").orElseThrow().arn();
    int listenerPort = webListenerThroughA(blueArn);

    await().atMost(Duration.ofSeconds(20)).until(() -> b.version() == a.version());
    assertThat(b.resources()).isEqualTo(a.resources());
    assertThat(b.elb.describeLoadBalancers(r -> r.names("web")).loadBalancers()).hasSize(1);
    JsonObject cluster = new JsonObject(LbApiHarness.body("127.0.0.1", b.gateway.controlPort(), "/ui/state"))
        .getJsonObject("cluster");
    assertThat(cluster.getString("name")).as("b's dashboard").isEqualTo("test-cluster");
    assertThat(cluster.getInteger("members")).isEqualTo(2);
    assertThat(cluster.getJsonArray("addresses").stream().map(m -> ((JsonObject) m).getString("address")
        + (((JsonObject) m).getBoolean("self") ? " self" : "")))
        .as("each member's address; b is the one at its own port")
        .containsExactlyInAnyOrder("127.0.0.1:" + a.clusterPort, "127.0.0.1:" + b.clusterPort + " self");
    assertThat(cluster.getLong("version")).isEqualTo(a.version());
    assertThat(LbApiHarness.body(b.zoneA, listenerPort, "/")).as("b's listener, made by a change through a")
        .isEqualTo("blue");

    // And the other way: b's change reaches a.
    b.elb.createTargetGroup(r -> r.name("red").protocol(ProtocolEnum.HTTP).port(80).targetType(TargetTypeEnum.IP)
        .vpcId("vpc-fulcrum"));
    await().atMost(Duration.ofSeconds(20)).until(() -> a.resources().targetGroupByName("red").isPresent());
    assertThat(a.version()).isEqualTo(b.version());
    assertThat(a.resources()).isEqualTo(b.resources());
  }

  /**
   * cluster.md: the member port listens on {@code cluster.host} only. Bound to every address, it
   * would hold the port on 127.0.0.5 too, and nothing else could bind there.
   */
  @Test
  void theMemberPort_listensOnTheClusterHostOnly() throws Exception {
    startTwo();
    try (java.net.ServerSocket elsewhere = new java.net.ServerSocket()) {
      elsewhere.bind(new java.net.InetSocketAddress("127.0.0.5", a.clusterPort));
      assertThat(elsewhere.isBound()).isTrue();
    }
  }

  @Test
  void changesMadeAtOnceOnBothProcesses_areAllApplied_inOneOrderEverywhere() throws Exception {
    startTwo();
    long start = a.version();

    List<CompletableFuture<Void>> calls = new ArrayList<>();
    for (Node n : List.of(a, b)) {
      for (int i = 0; i < 4; i++) {
        String name = (n == a ? "a-" : "b-") + i;
        calls.add(CompletableFuture.runAsync(() -> n.elb.createTargetGroup(r -> r.name(name)
            .protocol(ProtocolEnum.HTTP).port(80).targetType(TargetTypeEnum.IP).vpcId("vpc-fulcrum"))));
      }
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get();

    await().atMost(Duration.ofSeconds(20)).until(() -> a.version() == b.version() && a.version() == start + 8);
    assertThat(a.resources()).isEqualTo(b.resources());
    assertThat(a.resources().targetGroups()).extracting(g -> g.name())
        .containsAll(IntStream.range(0, 4).boxed().flatMap(i -> java.util.stream.Stream.of("a-" + i, "b-" + i))
            .toList());
  }

  /** A change one process refuses changes nothing anywhere; a deletion through the other reaches both. */
  @Test
  void aRefusedChange_changesNothingAnywhere_andADeletionReachesBoth() {
    startTwo();
    String red = a.elb.createTargetGroup(r -> r.name("red").protocol(ProtocolEnum.HTTP).port(80)
        .targetType(TargetTypeEnum.IP).vpcId("vpc-fulcrum")).targetGroups().get(0).targetGroupArn();
    await().atMost(Duration.ofSeconds(20)).until(() -> b.version() == a.version());
    Resources before = a.resources();
    long version = a.version();

    assertThatThrownBy(() -> b.elb.createTargetGroup(r -> r.name("red").protocol(ProtocolEnum.HTTP).port(81)
        .targetType(TargetTypeEnum.IP).vpcId("vpc-fulcrum"))).isInstanceOf(DuplicateTargetGroupNameException.class);
    assertThatThrownBy(() -> b.elb.registerTargets(r -> r.targetGroupArn(red).targets(t -> t.id("8.8.8.8"))))
        .isInstanceOf(InvalidTargetException.class);
    assertThat(b.version()).isEqualTo(version);
    assertThat(b.resources()).isEqualTo(before);
    assertThat(a.version()).isEqualTo(version);
    assertThat(a.resources()).isEqualTo(before);

    b.elb.deleteTargetGroup(r -> r.targetGroupArn(red));
    await().atMost(Duration.ofSeconds(20)).until(() -> a.resources().targetGroup(red).isEmpty());
    assertThat(a.version()).isEqualTo(version + 1);
    assertThat(a.resources()).isEqualTo(b.resources());
  }

  @Test
  void aProcessThatJoinsLater_takesTheClustersResources_overItsOwnStateFile() {
    startTwo();
    b.close();
    a.elb.createTargetGroup(r -> r.name("made-while-b-was-away").protocol(ProtocolEnum.HTTP).port(80)
        .targetType(TargetTypeEnum.IP).vpcId("vpc-fulcrum"));

    Node again = new Node("b", "127.0.0.3", "127.0.0.4", portB, portA);

    assertThat(again.resources().targetGroupByName("made-while-b-was-away")).isPresent();
    assertThat(again.resources()).isEqualTo(a.resources());
    assertThat(again.version()).isEqualTo(a.version());
  }

  /**
   * The stickiness keys are the cluster's: each process made a key file of its own at its first
   * start, and b's is rewritten with a's when it joins; a rotation on b reaches a; and a stickiness
   * cookie a's listener set sends b's listener's requests to the same target.
   */
  @Test
  void theStickinessKeys_areTheClusters_soACookieOneProcessSets_anotherReads() throws Exception {
    startTwo();
    Backend green = Backend.start(backends, "green");
    Path keysA = KeyRingFile.in(dir.resolve("a"));
    Path keysB = KeyRingFile.in(dir.resolve("b"));
    assertThat(b.gateway.fulcrum().stickinessKeys()).isEqualTo(a.gateway.fulcrum().stickinessKeys());
    assertThat(Files.readString(keysB)).isEqualTo(Files.readString(keysA));

    KeyRing rotated = KeyRingFile.rotate(keysB, new SecureRandom(), KeyRingFile.KEEP);
    assertThat(Await.result(b.gateway.fulcrum().reloadStickinessKeys())).isTrue();
    await().atMost(Duration.ofSeconds(20)).until(() -> rotated.equals(a.gateway.fulcrum().stickinessKeys()));
    assertThat(Files.readString(keysA)).isEqualTo(Files.readString(keysB));
    assertThat(rotated.keys()).hasSize(2);

    String blueArn = a.resources().targetGroupByName("blue").orElseThrow().arn();
    a.elb.registerTargets(r -> r.targetGroupArn(blueArn).targets(t -> t.id("127.0.0.1").port(green.port())
        .availabilityZone("zone-a")));
    a.elb.modifyTargetGroupAttributes(r -> r.targetGroupArn(blueArn).attributes(
        at -> at.key("stickiness.enabled").value("true"), at -> at.key("stickiness.type").value("lb_cookie")));
    int listenerPort = webListenerThroughA(blueArn);
    await().atMost(Duration.ofSeconds(20)).until(() -> b.version() == a.version());

    for (int i = 0; i < 4; i++) {
      RawConnection.Response first = LbApiHarness.get(a.zoneA, listenerPort, "/" + i);
      String cookie = first.header("Set-Cookie").split(";", 2)[0];
      assertThat(cookie).startsWith("AWSALB=");
      for (int j = 0; j < 5; j++) {
        assertThat(LbApiHarness.get(b.zoneA, listenerPort, "/", java.util.Map.of("Cookie", cookie)).bodyText())
            .as("b's listener, a's cookie").isEqualTo(first.bodyText());
      }
    }
  }

  @Test
  void aCluster_needsTheApiToOwnTheResources() {
    assertThatThrownBy(() -> Gateway.config("""
        cluster: {enabled: true, event-bus-port: 70000, members: ['127.0.0.1:5702', 'not a member']}
        """)).isInstanceOfSatisfying(InvalidModelException.class, e -> assertThat(e.problems())
        .extracting(Object::toString)
        .anySatisfy(p -> assertThat(p).contains("cluster.enabled").contains("resources.source: api"))
        .anySatisfy(p -> assertThat(p).contains("cluster.members").contains("'not a member'"))
        .anySatisfy(p -> assertThat(p).contains("cluster.event-bus-port")));
  }
}
