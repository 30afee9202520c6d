package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * The packaged jar as a cluster of two processes (Hazelcast as the fat jar carries it): a listener
 * made through one process's API serves on the other's node; a process killed with {@code kill -9}
 * loses the cluster nothing (its entry's backup is on the other), and started again it takes
 * what was made while it was away.
 */
class ClusterIT {

  @TempDir
  Path work;

  private final Vertx backends = TestVertx.create();
  private final int memberA = Ports.free();
  private final int memberB = Ports.free();
  private final int controlA = Ports.free();
  private final int controlB = Ports.free();
  private FulcrumProcess a;
  private FulcrumProcess b;

  @AfterEach
  void stop() {
    for (FulcrumProcess p : new FulcrumProcess[] {a, b}) {
      if (p != null) {
        p.close();
      }
    }
    backends.close();
  }

  private FulcrumProcess start(String name, String zoneA, String zoneB, int control, int member, int other, int target)
      throws Exception {
    Path dir = work.resolve(name);
    Files.createDirectories(dir);
    String yaml = ElbClients.CREDENTIALS_YAML + """
        nodes:
          - {zone: zone-a, address: %s}
          - {zone: zone-b, address: %s}
        control: {address: 127.0.0.1, port: %d}
        resources: {source: api}
        reload: {enabled: false}
        cluster: {enabled: true, name: it, host: 127.0.0.1, port: %d, members: ['127.0.0.1:%d']}
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]}
        """.formatted(zoneA, zoneB, control, member, other, target);
    return FulcrumProcess.start(dir, yaml, "-Dhazelcast.wait.seconds.before.join=0").waitReady(control);
  }

  @Test
  void twoProcesses_shareTheApisResources_andOneThatWasKilled_catchesUp() throws Exception {
    Backend web = Backend.start(backends, "web");
    a = start("a", "127.0.0.1", "127.0.0.2", controlA, memberA, memberB, web.port());
    b = start("b", "127.0.0.3", "127.0.0.4", controlB, memberB, memberA, web.port());
    assertThat(b.stdout()).contains("cluster        it on 127.0.0.1:" + memberB);
    int listenerPort = Ports.free();

    try (ElasticLoadBalancingV2Client elbA = ElbClients.client(controlA);
        ElasticLoadBalancingV2Client elbB = ElbClients.client(controlB)) {
      String tg = elbA.describeTargetGroups(r -> r.names("web")).targetGroups().get(0).targetGroupArn();
      String lb = elbA.createLoadBalancer(r -> r.name("site").subnets("zone-a", "zone-b")).loadBalancers().get(0)
          .loadBalancerArn();
      elbA.createListener(r -> r.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(listenerPort)
          .defaultActions(LbApiHarness.forward(tg)));

      await().atMost(Duration.ofSeconds(30)).until(() -> !LbApiHarness.refuses("127.0.0.3", listenerPort));
      assertThat(LbApiHarness.body("127.0.0.3", listenerPort, "/")).as("b's node, a's change").isEqualTo("web");
      assertThat(elbB.describeListeners(r -> r.loadBalancerArn(lb)).listeners()).hasSize(1);

      a.kill();
      elbB.createTargetGroup(r -> r.name("made-on-b").protocol(ProtocolEnum.HTTP).port(80)
          .targetType(TargetTypeEnum.IP).vpcId("vpc-fulcrum"));
    }

    a = start("a", "127.0.0.1", "127.0.0.2", controlA, memberA, memberB, web.port());
    try (ElasticLoadBalancingV2Client elbA = ElbClients.client(controlA)) {
      assertThat(elbA.describeTargetGroups(r -> r.names("made-on-b")).targetGroups()).hasSize(1);
      assertThat(elbA.describeLoadBalancers(r -> r.names("site")).loadBalancers()).hasSize(1);
    }
    assertThat(a.stderr()).contains("taking the cluster's resources");
  }
}
