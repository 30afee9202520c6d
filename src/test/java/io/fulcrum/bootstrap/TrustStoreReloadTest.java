package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.Problem;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestPki;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A trust store's revocation list replaced in place, the config file untouched, on a running
 * Fulcrum watching its file as Main does: the listener verifying with it takes the new list (a
 * client revoked now fails its handshake), and a list that cannot be read is refused, the running
 * configuration staying.
 */
class TrustStoreReloadTest {

  @TempDir
  Path dir;

  private final Vertx backends = TestVertx.create();
  private final Vertx gatewayVertx = TestVertx.create();
  private WatchedFulcrum watched;

  @AfterEach
  void tearDown() {
    if (watched != null) {
      watched.close();
    }
    Await.result(gatewayVertx.close());
    Await.result(backends.close());
  }

  /** Written aside and moved in, as an operator's tooling would, so that no half file is ever read. */
  private void replace(Path file, Path with) throws IOException {
    Files.move(with, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  private static int status(SSLContext tls, int port) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).sslContext(tls).build();
    return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private static boolean refused(SSLContext tls, int port) {
    try {
      status(tls, port);
      return false;
    } catch (IOException e) {
      return true;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @Test
  void aRevocationListReplacedInPlace_appliesWithoutAnEdit_andOneThatCannotBeReadIsRefused() throws Exception {
    TestPki.Issued root = TestPki.root("Clients Root");
    TestPki.Issued alice = TestPki.client(root, "alice");
    TestPki.Issued bob = TestPki.client(root, "bob");
    TestCertificates.Pem server = TestCertificates.pem(dir, "lb", "127.0.0.1");
    Path bundle = TestPki.bundle(dir.resolve("clients.pem"), root.certificate());
    Path crl = TestPki.crl(dir.resolve("clients.crl"), root);
    int backend = Backend.start(backends, "b").port();
    int port = Ports.free();
    Path file = dir.resolve("fulcrum.yaml");
    Files.writeString(file, """
        control: {port: 0}
        dns: {port: 0}
        data-dir: '%s'
        reload: {scan-period-ms: 50}
        trust-stores:
          - {name: clients, ca-certificates: '%s', revocations: ['%s']}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                mutual-authentication: {mode: verify, trust-store: clients}
                default-actions: [{type: forward, target-group: tg}]
        target-groups:
          - {name: tg, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(dir.resolve("data"), bundle, crl, port, server.certificate(), server.privateKey(), backend));
    watched = WatchedFulcrum.start(gatewayVertx, file, 1);
    List<List<Problem>> rejected = watched.rejected;
    SSLContext asAlice = alice.clientContext(server.x509());
    SSLContext asBob = bob.clientContext(server.x509());
    assertThat(status(asAlice, port)).isEqualTo(200);

    replace(crl, TestPki.crl(dir.resolve("next.crl"), root, alice.certificate()));

    await().atMost(Duration.ofSeconds(20)).until(() -> refused(asAlice, port));
    assertThat(status(asBob, port)).isEqualTo(200);
    assertThat(watched.fulcrum.registry().environment().trustStores().values()).singleElement()
        .satisfies(t -> assertThat(t.revokedCount()).isEqualTo(1));

    Path broken = dir.resolve("broken.crl");
    Files.writeString(broken, "not a list");
    replace(crl, broken);
    await().atMost(Duration.ofSeconds(20)).until(() -> !rejected.isEmpty());
    assertThat(rejected.get(0)).extracting(Problem::toString).singleElement().asString()
        .startsWith("trust-stores[0].revocations: '" + crl + "' is not a certificate revocation list");
    assertThat(refused(asAlice, port)).as("the running configuration stays").isTrue();
    assertThat(status(asBob, port)).isEqualTo(200);
  }
}
