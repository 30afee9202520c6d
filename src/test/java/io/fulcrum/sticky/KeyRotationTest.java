package io.fulcrum.sticky;

import static io.fulcrum.testing.StickyCookies.value;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.keys.KeyRingFile;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key ring of a running gateway: rotation, pick-up of the changed file, foreign and bad keys. */
class KeyRotationTest {

  @TempDir
  Path dir;

  private final Vertx backends = TestVertx.create();
  private final List<Gateway> gateways = new ArrayList<>();
  private Http http;
  private int[] targets;

  @BeforeEach
  void start() {
    targets = new int[] {Backend.start(backends, "a").port(), Backend.start(backends, "b").port(),
        Backend.start(backends, "c").port()};
    http = new Http(backends);
  }

  @AfterEach
  void stop() {
    http.close();
    gateways.forEach(Gateway::close);
    backends.close();
  }

  /** A gateway with its own data dir (and so its own key ring); returns its listener port. */
  private int gateway(Path dataDir, long scanMillis) {
    int port = Ports.free();
    gateways.add(Gateway.start(TestVertx.create(), """
        data-dir: %s
        reload: {scan-period-ms: %d}
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
        """.formatted(dataDir, scanMillis, port, targets[0], targets[1], targets[2])));
    return port;
  }

  private Http.Response get(int port, String awsalb) {
    return http.get("127.0.0.1", port, "/", awsalb == null ? Map.of() : Map.of("Cookie", "AWSALB=" + awsalb));
  }

  private static String awsalb(Http.Response r) {
    return value(r.headers().getAll("set-cookie"), "AWSALB");
  }

  /** The targets that answer six requests carrying {@code awsalb}. */
  private Set<String> served(int port, String awsalb) {
    Set<String> out = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      Http.Response r = get(port, awsalb);
      assertThat(r.status()).isEqualTo(200);
      out.add(r.body());
    }
    return out;
  }

  private static int newestKey(Path dataDir) throws Exception {
    return KeyRingFile.load(KeyRingFile.in(dataDir)).newest().id();
  }

  @Test
  void rotation_keepsLiveSessions_newCookiesUseTheNewKey_andAKeyOutOfTheRingEndsItsSessions() throws Exception {
    Path data = dir.resolve("one");
    int port = gateway(data, 3_600_000);
    Http.Response first = get(port, null);
    String old = awsalb(first);
    assertThat(CookieCodec.keyId(old)).isEqualTo(newestKey(data));

    KeyRingFile.rotate(KeyRingFile.in(data), new SecureRandom(), KeyRingFile.KEEP);
    assertThat(reloadKeys(gateways.get(0))).isTrue();
    int rotated = newestKey(data);
    // The new ring reaches the listener verticles in a message: new cookies show when it has.
    await().atMost(Duration.ofSeconds(10)).until(() -> CookieCodec.keyId(awsalb(get(port, old))) == rotated);
    assertThat(served(port, old)).containsExactly(first.body());
    String second = awsalb(get(port, old));

    for (int i = 0; i < KeyRingFile.KEEP - 1; i++) {
      KeyRingFile.rotate(KeyRingFile.in(data), new SecureRandom(), KeyRingFile.KEEP);
    }
    assertThat(reloadKeys(gateways.get(0))).isTrue();
    int last = newestKey(data);
    await().atMost(Duration.ofSeconds(10)).until(() -> CookieCodec.keyId(awsalb(get(port, second))) == last);
    assertThat(served(port, second)).containsExactly(first.body());
    assertThat(served(port, old)).as("the first key has left the ring").hasSizeGreaterThan(1);
  }

  @Test
  void runningGateway_picksUpEachRotationOfItsFileWithinItsScanPeriod() throws Exception {
    Path data = dir.resolve("scan");
    int port = gateway(data, 50);
    int before = CookieCodec.keyId(awsalb(get(port, null)));
    for (int i = 0; i < 5; i++) {
      KeyRingFile.rotate(KeyRingFile.in(data), new SecureRandom(), KeyRingFile.KEEP);
      int rotated = newestKey(data);
      assertThat(rotated).isNotEqualTo(before);
      await().atMost(Duration.ofSeconds(10)).until(() -> CookieCodec.keyId(awsalb(get(port, null))) == rotated);
      before = rotated;
    }
  }

  @Test
  void reloadingTheKeysOnDemand_answersEveryTime() throws Exception {
    Path data = dir.resolve("demand");
    gateway(data, 3_600_000);
    for (int i = 0; i < 20; i++) {
      assertThat(reloadKeys(gateways.get(0))).isFalse();
      KeyRingFile.rotate(KeyRingFile.in(data), new SecureRandom(), KeyRingFile.KEEP);
      assertThat(reloadKeys(gateways.get(0))).as("rotation %d", i).isTrue();
    }
  }

  @Test
  void aCookieFromAnotherGatewaysKeyRing_isStaleAndRewritten() throws Exception {
    int one = gateway(dir.resolve("one"), 3_600_000);
    int two = gateway(dir.resolve("two"), 3_600_000);
    String foreign = awsalb(get(two, null));
    assertThat(served(one, foreign)).hasSizeGreaterThan(1);
    assertThat(CookieCodec.keyId(awsalb(get(one, foreign)))).isEqualTo(newestKey(dir.resolve("one")));
  }

  @Test
  void aBrokenKeyFile_keepsTheRunningKeys() throws Exception {
    Path data = dir.resolve("broken");
    int port = gateway(data, 3_600_000);
    Http.Response first = get(port, null);
    int key = CookieCodec.keyId(awsalb(first));
    Files.writeString(KeyRingFile.in(data), "not a key file\n");
    assertThat(reloadKeys(gateways.get(0))).isFalse();
    assertThat(served(port, awsalb(first))).containsExactly(first.body());
    assertThat(CookieCodec.keyId(awsalb(get(port, null)))).isEqualTo(key);
  }

  @Test
  void aMalformedKeyFileAtStart_stopsTheStart_namingTheFileLineAndReason() throws Exception {
    Path data = dir.resolve("bad");
    Files.createDirectories(data);
    Files.writeString(KeyRingFile.in(data), "# keys\nzz 123\n");
    Vertx vertx = TestVertx.create();
    try {
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> Gateway.start(vertx, "data-dir: " + data + "\n"))
          .hasMessageContaining("cannot use the stickiness key file " + KeyRingFile.in(data))
          .hasMessageContaining("line 2: expected '<id: 8 hex digits> <key: base64url>'");
    } finally {
      Await.result(vertx.close());
    }
  }

  /** Re-reads the gateway's key file now; true when the ring changed. */
  private static boolean reloadKeys(Gateway gateway) {
    return Await.result(gateway.fulcrum().reloadStickinessKeys());
  }
}
