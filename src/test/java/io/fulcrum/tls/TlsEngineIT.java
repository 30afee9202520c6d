package io.fulcrum.tls;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TcpTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar on each TLS engine ({@code FULCRUM_TLS_ENGINE}): an HTTPS listener, and a TLS
 * listener whose TLS group's target speaks TLS, so that the listeners' sessions and the one to the
 * target all run on the engine named; a value that names no engine stops start-up.
 */
class TlsEngineIT {

  @TempDir
  Path work;

  private final Vertx targets = TestVertx.create();
  private final int control = Ports.free();
  private final int https = Ports.free();
  private final int tls = Ports.free();
  /** The TLS listener's certificate (the HTTPS listener has the self-signed default). */
  private TestCertificates.Pem listener;
  private TcpTarget target;
  private FulcrumProcess fulcrum;

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
    if (target != null) {
      target.close();
    }
    targets.close();
  }

  @Test
  void jdk_endsAndOpensEverySessionOnTheJdksEngine() throws Exception {
    servesBothListeners("jdk", "TLS: JDK ");
  }

  @Test
  @EnabledOnOs(value = OS.LINUX, architectures = {"amd64", "aarch64"})
  void auto_isBoringSsl_onLinux() throws Exception {
    servesBothListeners(null, "TLS: BoringSSL");
  }

  @Test
  void anUnknownEngine_stopsStartUp_namingTheVariable() throws Exception {
    fulcrum = start("libressl");
    assertThat(fulcrum.waitForExit(FulcrumProcess.START_TIMEOUT)).as(fulcrum.describe()).isEqualTo(2);
    assertThat(fulcrum.stderr()).contains("FULCRUM_TLS_ENGINE=libressl: not a TLS engine; use one of auto, openssl, jdk");
  }

  private void servesBothListeners(String engine, String logged) throws Exception {
    fulcrum = start(engine);
    fulcrum.waitReady(control);
    assertThat(fulcrum.stderr()).as("the log").contains(logged);

    HttpClient client = HttpClient.newBuilder().sslContext(TestCertificates.trustingAnything())
        .connectTimeout(Duration.ofSeconds(5)).build();
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + https + "/"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("over https");

    try (FlowClient flow = FlowClient.over(TestCertificates.trusting(listener.x509()).getSocketFactory()
        .createSocket("127.0.0.1", tls))) {
      assertThat(flow.ask("tls both ways")).isEqualTo("s:tls both ways");
      assertThat(((SSLSocket) flow.socket()).getSession().getPeerCertificates()[0]).isEqualTo(listener.x509());
    }
  }

  private FulcrumProcess start(String engine) throws Exception {
    Path certs = Files.createDirectories(work.resolve("certs"));
    listener = TestCertificates.pem(certs, "listener", "nlb.example");
    target = TcpTarget.start(targets, "s", TestCertificates.pem(certs, "target", "target.example"));
    Path config = Files.writeString(work.resolve("fulcrum.yaml"), """
        nodes: [{zone: zone-a, address: 127.0.0.1}]
        control: {address: 127.0.0.1, port: %d}
        dns: {enabled: false}
        reload: {enabled: false}
        load-balancers:
          - name: alb
            listeners:
              - protocol: HTTPS
                port: %d
                default-actions: [{type: fixed-response, status-code: "200", content-type: text/plain, message-body: over https}]
          - name: nlb
            type: network
            listeners:
              - protocol: TLS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: tls}]
        target-groups:
          - {name: tls, target-type: ip, protocol: TLS, port: 443, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(control, https, tls, listener.certificate(), listener.privateKey(), target.port()));
    FulcrumProcess.Builder builder = FulcrumProcess.builder(work).directory(work)
        .args("--config", config.toString(), "--instances", "1");
    if (engine != null) {
      builder.env("FULCRUM_TLS_ENGINE", engine);
    }
    return builder.start();
  }
}
