package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetType;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Health checks of a group with the PROXY protocol against a real target that, like HAProxy's
 * {@code accept-proxy} with TLS, reads the header in cleartext and then starts TLS: the header is
 * v2 LOCAL, the HTTPS check goes through TLS after it, and the status line decides.
 */
class ProxyProtocolProberTest {

  private final Vertx vertx = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final List<byte[]> headers = new CopyOnWriteArrayList<>();
  private final List<String> requests = new CopyOnWriteArrayList<>();

  private final List<ServerSocket> servers = new CopyOnWriteArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (ServerSocket s : servers) {
      s.close();
    }
    vertx.close();
  }

  /**
   * A target that reads exactly the 16-byte LOCAL header from its socket, then starts TLS over it
   * and answers {@code status} to the request (plain blocking sockets: the header must not take
   * any of the TLS bytes after it). Serves one check.
   */
  private ServerSocket target(String status) throws Exception {
    Path p12 = TestCertificates.pkcs12(Files.createTempDirectory("ppv2").resolve("target.p12"), "secret",
        List.of(List.of("target.example")));
    KeyStore keys = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      keys.load(in, "secret".toCharArray());
    }
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(keys, "secret".toCharArray());
    SSLContext tls = SSLContext.getInstance("TLS");
    tls.init(kmf.getKeyManagers(), null, null);
    ServerSocket server = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"));
    servers.add(server);
    Thread serving = new Thread(() -> {
      try (Socket plain = server.accept()) {
        headers.add(plain.getInputStream().readNBytes(16));
        try (SSLSocket secure = (SSLSocket) tls.getSocketFactory().createSocket(plain, null, plain.getPort(), false)) {
          secure.setUseClientMode(false);
          BufferedReader in = new BufferedReader(new InputStreamReader(secure.getInputStream(), StandardCharsets.US_ASCII));
          StringBuilder head = new StringBuilder();
          for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
            head.append(line).append("\r\n");
          }
          requests.add(head.toString());
          secure.getOutputStream().write(("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\n\r\n")
              .getBytes(StandardCharsets.US_ASCII));
          secure.getOutputStream().flush();
        }
      } catch (IOException e) {
        requests.add("failed: " + e);
      }
    }, "ppv2-target");
    serving.setDaemon(true);
    serving.start();
    return server;
  }

  private CheckResult probe(ServerSocket server, String protocol) {
    HealthCheck check = HealthCheck.resolve(new HealthCheck.Input(null, protocol, null, "/ready", null, null, null,
        null, null, null), TargetType.IP, Protocol.TLS, null, new Problems());
    Promise<CheckResult> result = Promise.promise();
    vertx.runOnContext(v -> new ProxyProtocolProber(vertx, time).probe("127.0.0.1", server.getLocalPort(), check, true,
        result::complete));
    return Await.result(result.future());
  }

  @Test
  void httpsCheck_sendsTheLocalHeader_thenTls_andPassesOnAMatchingStatus() throws Exception {
    CheckResult r = probe(target("200 OK"), "HTTPS");
    assertThat(r.passed()).isTrue();
    assertThat(headers).singleElement().satisfies(h -> {
      assertThat(new String(h, 0, 12, StandardCharsets.ISO_8859_1)).isEqualTo("\r\n\r\n\0\r\nQUIT\n");
      assertThat(h[12]).as("version 2, LOCAL").isEqualTo((byte) 0x20);
      assertThat(h[13]).isZero();
      assertThat(h[14] << 8 | h[15]).as("no addresses").isZero();
    });
    assertThat(requests).singleElement().satisfies(req -> assertThat(req)
        .startsWith("GET /ready HTTP/1.1\r\n").contains("User-Agent: ELB-HealthChecker/2.0\r\n"));
  }

  @Test
  void httpsCheck_failsOnAStatusOutsideTheMatcher_withNlbsOnlyReason() throws Exception {
    CheckResult r = probe(target("503 Service Unavailable"), "HTTPS");
    assertThat(r.passed()).isFalse();
    assertThat(r.failure()).isEqualTo(TargetHealth.FAILED);
  }

  @Test
  void statusLine_isReadStrictly() {
    assertThat(ProxyProtocolProber.status("HTTP/1.1 204 No Content")).isEqualTo(204);
    assertThat(ProxyProtocolProber.status("HTTP/1.0 404")).isEqualTo(404);
    assertThat(ProxyProtocolProber.status("HTTP/2 200")).isEqualTo(-1);
    assertThat(ProxyProtocolProber.status("HTTP/1.1 2x0 OK")).isEqualTo(-1);
    assertThat(ProxyProtocolProber.status("SSH-2.0-OpenSSH")).isEqualTo(-1);
  }
}
