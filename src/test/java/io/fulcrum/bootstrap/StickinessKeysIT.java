package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.keys.KeyRingFile;
import io.fulcrum.sticky.CookieCodec;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar: the stickiness key ring is created in the data dir on first start, and
 * {@code java -jar fulcrum.jar rotate-stickiness-key} rotates it while a gateway runs, which picks
 * the new key up without a restart and keeps its live sessions.
 */
class StickinessKeysIT {

  @TempDir
  Path work;

  private final int listenerPort = Ports.free();
  private final int controlPort = Ports.free();
  private final int[] targets = {Ports.free(), Ports.free(), Ports.free()};
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private FulcrumProcess gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
  }

  private String config() {
    return """
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: true, scan-period-ms: 100}
        demo:
          targets:
            - {id: t1, address: 127.0.0.1, port: %d, zone: zone-a}
            - {id: t2, address: 127.0.0.1, port: %d, zone: zone-a}
            - {id: t3, address: 127.0.0.1, port: %d, zone: zone-a}
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: web}]}
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            attributes: {stickiness.enabled: "true"}
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
        """.formatted(controlPort, targets[0], targets[1], targets[2], listenerPort, targets[0], targets[1], targets[2]);
  }

  private record Reply(String target, String awsalb) {
  }

  private Reply get(String awsalb) throws Exception {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listenerPort + "/"))
        .timeout(Duration.ofSeconds(10));
    if (awsalb != null) {
      b.header("Cookie", "AWSALB=" + awsalb);
    }
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    String line = r.headers().allValues("set-cookie").stream().filter(l -> l.startsWith("AWSALB=")).findFirst()
        .orElseThrow();
    String target = r.body().replaceAll("(?s).*\"target\" : \"(t\\d)\".*", "$1");
    return new Reply(target, line.substring("AWSALB=".length(), line.indexOf(';')));
  }

  private Path keyFile() {
    return KeyRingFile.in(work.resolve("data"));
  }

  @Test
  void keyRing_isCreatedOnFirstStart_andARotationAppliesToTheRunningGateway_keepingLiveSessions() throws Exception {
    gateway = FulcrumProcess.start(work, config());
    gateway.waitReady(controlPort);
    assertThat(keyFile()).exists();
    if (FileSystems.getDefault().supportedFileAttributeViews().contains("posix")) {
      assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile()))).isEqualTo("rw-------");
    }
    // Sessions start once every target passed its first check: until then an initial target is not
    // eligible next to a healthy one, and a cookie naming it would be stale.
    for (int port : targets) {
      await("target " + port + " healthy").atMost(Duration.ofSeconds(30))
          .until(() -> gateway.stderr().contains("target 127.0.0.1:" + port + " of web: initial -> healthy"));
    }
    int first = KeyRingFile.load(keyFile()).newest().id();
    Reply session = get(null);
    assertThat(CookieCodec.keyId(session.awsalb())).isEqualTo(first);

    FulcrumProcess rotate = FulcrumProcess.builder(work)
        .args("rotate-stickiness-key", "--config", work.resolve("fulcrum.yaml").toString()).start();
    assertThat(rotate.waitForExit(Duration.ofSeconds(60))).as(rotate.describe()).isZero();
    int second = KeyRingFile.load(keyFile()).newest().id();
    assertThat(second).isNotEqualTo(first);
    assertThat(rotate.stdout()).contains("new key " + String.format("%08x", second));

    await("the running gateway seals with the new key").atMost(Duration.ofSeconds(20))
        .until(() -> CookieCodec.keyId(get(session.awsalb()).awsalb()) == second);
    Set<String> served = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      served.add(get(session.awsalb()).target());
    }
    assertThat(served).containsExactly(session.target());
    assertThat(gateway.isAlive()).isTrue();
  }
}
