package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.shareddata.AsyncMap;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's entry changed with no announcement (one lost, or the entry a healed network split
 * left behind, whatever its version): each process takes it at its next look.
 */
class ClusterReplicationTest {

  @TempDir
  Path dir;

  private Gateway gateway;

  @AfterEach
  void stop() {
    System.clearProperty("hazelcast.wait.seconds.before.join");
    System.clearProperty("fulcrum.cluster.checkMillis");
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void anEntryNobodyAnnounced_isTakenAtTheNextLook_evenOfALowerVersion() {
    System.setProperty("hazelcast.wait.seconds.before.join", "0");
    System.setProperty("fulcrum.cluster.checkMillis", "100");
    gateway = Gateway.start(TestVertx.create(), ElbClients.CREDENTIALS_YAML + """
        resources: {source: api}
        data-dir: %s
        cluster: {enabled: true, name: look, host: 127.0.0.1, port: %d}
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: []}
        """.formatted(dir, Ports.free()));
    ClusterReplication cluster = gateway.fulcrum().cluster();
    AsyncMap<String, String> map = Await.result(cluster.clustered().sharedData()
        .<String, String>getAsyncMap(ClusterReplication.MAP));
    JsonObject entry = new JsonObject(Await.result(map.get(ClusterReplication.KEY)));
    JsonObject resources = entry.getJsonObject("resources");
    resources.getJsonArray("targetGroups").getJsonObject(0).getJsonObject("attributes")
        .put("deregistration_delay.timeout_seconds", "17");

    Await.result(map.put(ClusterReplication.KEY, entry.copy().put("version", -7).encode()));

    await().atMost(Duration.ofSeconds(10)).until(() -> cluster.version() == -7);
    assertThat(gateway.fulcrum().registry().resources().targetGroupByName("web").orElseThrow().attributes()
        .get("deregistration_delay.timeout_seconds")).isEqualTo("17");
  }
}
