package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.observe.LogDestination;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestPki;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.fulcrum.tls.TlsEngine;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

/**
 * ALB's connection log ({@code connection_logs.s3.*}): a line for every TLS handshake of an HTTPS
 * listener, succeeded or failed, with the client, the TLS version and cipher, the handshake's
 * latency, the client certificate and the verification's result in ALB's words; its
 * {@code conn_trace_id} is the one the connection's access log lines carry. A listener of a load
 * balancer without the log, and a cleartext one, write none.
 */
class ConnectionLogTest {

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final TestPki.Issued root = TestPki.root("Clients Root");
  private final TestPki.Issued alice = TestPki.client(root, "alice");
  private final TestPki.Issued expired = TestPki.client(root, "old", Instant.now().minus(Duration.ofDays(30)),
      Instant.now().minus(Duration.ofDays(1)));
  private final TestPki.Issued stranger = TestPki.client(TestPki.root("Other Root"), "stranger");
  private Gateway gateway;
  private Path data;
  private TestCertificates.Pem server;
  private int verify;
  private int plain;
  private int unlogged;

  private final TlsEngine engine = TlsEngine.current();

  /** Tests named {@code jdkEngine...} run the listeners on the JDK's TLS engine rather than BoringSSL. */
  @BeforeEach
  void start(TestInfo test) throws Exception {
    if (test.getTestMethod().orElseThrow().getName().startsWith("jdkEngine")) {
      TlsEngine.use(TlsEngine.JDK);
    }
    Path dir = Files.createTempDirectory("conn-log");
    data = dir.resolve("data");
    server = TestCertificates.pem(dir, "lb", "127.0.0.1");
    Path bundle = TestPki.bundle(dir.resolve("clients.pem"), root.certificate());
    Backend backend = Backend.start(backends, "b");
    verify = Ports.free();
    plain = Ports.free();
    unlogged = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        data-dir: '%s'
        trust-stores: [{name: clients, ca-certificates: '%s'}]
        load-balancers:
          - name: lb
            attributes:
              connection_logs.s3.enabled: "true"
              connection_logs.s3.bucket: conns
              connection_logs.s3.prefix: edge
              access_logs.s3.enabled: "true"
              access_logs.s3.bucket: access
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                mutual-authentication: {mode: verify, trust-store: clients}
                default-actions: [{type: forward, target-group: tg}]
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: tg}]
          - name: quiet
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: tg2}]
        target-groups:
          - {name: tg, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: tg2, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(data, bundle, verify, server.certificate(), server.privateKey(), plain, server.certificate(),
        server.privateKey(), unlogged, server.certificate(), server.privateKey(), backend.port(), backend.port()),
        1, time);
  }

  @AfterEach
  void stop() {
    gateway.close();
    backends.close();
    TlsEngine.use(engine);
  }

  private int get(SSLContext tls, int port) throws Exception {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).sslContext(tls)
        .connectTimeout(Duration.ofSeconds(5)).build();
    return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/p"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  private List<String> logLines(String bucket) {
    time.advance(Duration.ofMillis(LogDestination.periodEnd(time.millis()) - time.millis()));
    return LogFiles.lines(LogFiles.await(data.resolve("s3").resolve(bucket), 1).get(0));
  }

  @Test
  void jdkEngine_namesTheSameReasons() throws Exception {
    assertThat(get(alice.clientContext(server.x509()), verify)).isEqualTo(200);
    assertThatThrownBy(() -> get(expired.clientContext(server.x509()), verify)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> get(stranger.clientContext(server.x509()), verify)).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> get(TestCertificates.trusting(server.x509()), verify)).isInstanceOf(IOException.class);
    List<String> lines = logLines("conns");
    assertThat(lines.stream().map(l -> l.split(" ")[l.split(" ").length - 2]).toList()).containsExactly("Success",
        "Failed:ClientCertExpired", "Failed:ClientCertUntrusted", "Failed:ClientCertMissing");
  }

  @Test
  void everyHandshake_succeededOrFailed_isALine_withAlbsFields() throws Exception {
    assertThat(get(alice.clientContext(server.x509()), verify)).isEqualTo(200);
    for (TestPki.Issued refused : List.of(expired, stranger)) {
      assertThatThrownBy(() -> get(refused.clientContext(server.x509()), verify)).isInstanceOf(IOException.class);
    }
    assertThatThrownBy(() -> get(TestCertificates.trusting(server.x509()), verify)).isInstanceOf(IOException.class);
    assertThat(get(TestCertificates.trusting(server.x509()), plain)).isEqualTo(200);
    assertThat(get(TestCertificates.trusting(server.x509()), unlogged)).isEqualTo(200);

    List<String> lines = logLines("conns");
    assertThat(lines).hasSize(5);
    // The regular expression of AWS's Athena table for connection logs reads every line.
    Pattern athena = Pattern.compile("([^ ]*) ([^ ]*) ([0-9]*) ([0-9]*) ([A-Za-z0-9.-]*) ([^ ]*) ([-.0-9]*)"
        + " \"([^\"]*)\" ([^ ]*) ([^ ]*) ([^ ]*) ?([^ ]*)?( .*)?");
    List<Matcher> fields = lines.stream().map(athena::matcher).toList();
    assertThat(fields).allMatch(Matcher::matches);
    Matcher ok = fields.get(0);
    assertThat(ok.group(1)).matches("2026-01-01T00:00:00\\.\\d{6}Z");
    assertThat(ok.group(2)).isEqualTo("127.0.0.1");
    assertThat(ok.group(3)).matches("\\d+");
    assertThat(ok.group(4)).isEqualTo(String.valueOf(verify));
    assertThat(ok.group(5)).matches("TLSv1\\.[23]");
    assertThat(ok.group(6)).matches("[A-Z0-9_-]+");
    assertThat(ok.group(7)).matches("\\d+\\.\\d{3}");
    assertThat(ok.group(8)).isEqualTo("CN=alice,O=Fulcrum Tests,C=US");
    assertThat(ok.group(9)).isEqualTo("NotBefore=" + alice.certificate().getNotBefore().toInstant() + ";NotAfter="
        + alice.certificate().getNotAfter().toInstant());
    assertThat(ok.group(10)).isEqualTo(hex(alice.certificate().getSerialNumber()));
    assertThat(ok.group(11)).isEqualTo("Success");
    String traceId = ok.group(12);
    assertThat(traceId).matches("TID_[0-9a-f]{32}");
    assertThat(ok.group(13)).isNull();

    // A refused certificate is named with the version and suite the handshake had agreed on, as ALB logs it.
    Matcher refusedExpired = fields.get(1);
    assertThat(refusedExpired.group(5)).matches("TLSv1\\.[23]");
    assertThat(refusedExpired.group(6)).matches("[A-Z0-9_-]+");
    assertThat(refusedExpired.group(8)).isEqualTo("CN=old,O=Fulcrum Tests,C=US");
    assertThat(refusedExpired.group(9)).isEqualTo("NotBefore=" + expired.certificate().getNotBefore().toInstant()
        + ";NotAfter=" + expired.certificate().getNotAfter().toInstant());
    assertThat(refusedExpired.group(10)).isEqualTo(hex(expired.certificate().getSerialNumber()));
    assertThat(refusedExpired.group(11)).isEqualTo("Failed:ClientCertExpired");
    assertThat(fields.get(2).group(10)).isEqualTo(hex(stranger.certificate().getSerialNumber()));
    assertThat(fields.get(2).group(11)).isEqualTo("Failed:ClientCertUntrusted");
    // No certificate: nothing to name.
    assertThat(lines.get(3)).contains(" \"-\" - - Failed:ClientCertMissing TID_");
    assertThat(lines.get(4)).contains(" " + plain + " TLSv1").contains(" \"-\" - - Success TID_");
    assertThat(lines.stream().map(l -> l.substring(l.lastIndexOf(' ') + 1)).distinct()).hasSize(5);

    assertThat(Files.list(LogFiles.await(data.resolve("s3").resolve("conns"), 1).get(0).getParent()).toList())
        .singleElement().asString().contains("/edge/AWSLogs/000000000000/elasticloadbalancing/us-east-1/2026/01/01/"
            + "conn_log.000000000000_elasticloadbalancing_us-east-1_app.lb.");
    List<String> access = LogFiles.lines(LogFiles.await(data.resolve("s3").resolve("access"), 1).get(0));
    assertThat(access.stream().filter(l -> l.contains(":" + verify + "/p ")).toList()).singleElement().asString()
        .contains(" " + traceId + " ");
  }

  /** Upper-case hex, two digits a byte, without a sign byte. */
  private static String hex(java.math.BigInteger serial) {
    String hex = serial.toString(16).toUpperCase(java.util.Locale.ROOT);
    return hex.length() % 2 == 0 ? hex : "0" + hex;
  }
}
