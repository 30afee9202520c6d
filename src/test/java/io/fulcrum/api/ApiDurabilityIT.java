package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Tag;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetHealthDescription;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * The packaged jar with {@code resources.source: api}: a change acknowledged with 200 survives
 * {@code kill -9} and a restart; a torn state file stops start-up with exit code 2 and a clear
 * error, and neither {@code state.json} nor {@code state.json.prev} is touched.
 */
class ApiDurabilityIT {

  @TempDir
  Path work;

  private final int controlPort = Ports.free();
  private final int listenerPort = Ports.free();
  private FulcrumProcess fulcrum;

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
  }

  private String yaml() {
    return ElbClients.CREDENTIALS_YAML
        + "control: {address: 127.0.0.1, port: " + controlPort + "}\n"
        + "resources: {source: api}\n"
        + "reload: {enabled: false}\n"
        + "load-balancers:\n"
        + "  - name: lb\n"
        + "    listeners:\n"
        + "      - protocol: HTTP\n"
        + "        port: " + listenerPort + "\n"
        + "        default-actions: [{type: forward, target-group: web}]\n"
        + "target-groups:\n"
        + "  - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: []}\n";
  }

  private Path state() {
    return work.resolve("data").resolve("state.json");
  }

  @Test
  void acknowledgedChanges_surviveKill9AndRestart() {
    fulcrum = FulcrumProcess.start(work, yaml()).waitReady(controlPort);
    String arn;
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(controlPort)) {
      arn = elb.createTargetGroup(b -> b.name("durable").protocol("HTTP").port(8080).vpcId("vpc-fulcrum")
          .targetType(TargetTypeEnum.IP).healthCheckPath("/ready").tags(t -> t.key("team").value("api")))
          .targetGroups().get(0).targetGroupArn();
      elb.registerTargets(b -> b.targetGroupArn(arn).targets(t -> t.id("10.0.0.1"), t -> t.id("10.0.0.2").port(9000)));
      elb.modifyTargetGroupAttributes(b -> b.targetGroupArn(arn)
          .attributes(a -> a.key("deregistration_delay.timeout_seconds").value("17")));
    }

    fulcrum.kill();
    fulcrum = FulcrumProcess.start(work, yaml()).waitReady(controlPort);

    try (ElasticLoadBalancingV2Client elb = ElbClients.client(controlPort)) {
      TargetGroup g = elb.describeTargetGroups(b -> b.names("durable")).targetGroups().get(0);
      assertThat(g.targetGroupArn()).isEqualTo(arn);
      assertThat(g.port()).isEqualTo(8080);
      assertThat(g.healthCheckPath()).isEqualTo("/ready");
      assertThat(elb.describeTargetHealth(b -> b.targetGroupArn(arn)).targetHealthDescriptions())
          .extracting(TargetHealthDescription::target).extracting(t -> t.id() + ":" + t.port())
          .containsExactly("10.0.0.1:8080", "10.0.0.2:9000");
      assertThat(elb.describeTargetGroupAttributes(b -> b.targetGroupArn(arn)).attributes())
          .anyMatch(a -> a.key().equals("deregistration_delay.timeout_seconds") && a.value().equals("17"));
      assertThat(elb.describeTags(b -> b.resourceArns(arn)).tagDescriptions().get(0).tags())
          .containsExactly(Tag.builder().key("team").value("api").build());
    }
  }

  @Test
  void tornStateFile_stopsStartUpWithExitCode2_andLeavesBothStateFilesAsTheyWere() throws IOException {
    fulcrum = FulcrumProcess.start(work, yaml()).waitReady(controlPort);
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(controlPort)) {
      elb.createTargetGroup(b -> b.name("kept").protocol("HTTP").port(80).vpcId("vpc-fulcrum"));
    }
    fulcrum.close();
    byte[] whole = Files.readAllBytes(state());
    byte[] torn = Arrays.copyOf(whole, whole.length / 2);
    Files.write(state(), torn);
    Path previous = state().resolveSibling("state.json.prev");
    byte[] previousBytes = Files.readAllBytes(previous);

    fulcrum = FulcrumProcess.start(work, yaml());

    assertThat(fulcrum.waitForExit(FulcrumProcess.START_TIMEOUT)).as(fulcrum.describe()).isEqualTo(2);
    assertThat(fulcrum.stderr()).contains(state().toString()).contains("is not valid JSON (torn or corrupt)")
        .contains("the previous good state is in " + previous).contains("Nothing was started and no file was changed.");
    assertThat(fulcrum.stdout()).doesNotContain("http://127.0.0.1:" + controlPort);
    assertThat(Files.readAllBytes(state())).isEqualTo(torn);
    assertThat(Files.readAllBytes(previous)).isEqualTo(previousBytes);
    assertThat(new String(previousBytes, java.nio.charset.StandardCharsets.UTF_8)).contains("\"web\"");
    assertThat(fulcrum.status(java.net.URI.create("http://127.0.0.1:" + controlPort + "/health/live"))).isEqualTo(-1);
  }
}
