package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.Arns;
import io.fulcrum.model.Problem;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
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
import java.security.cert.X509Certificate;
import java.time.Duration;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ActionTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;

/**
 * A listener's certificate renewed in place (the files rewritten, the config file untouched, as
 * cert-manager or certbot do) on a running Fulcrum watching its file as Main does: new connections
 * are served the new certificate, by HTTPS and TLS listeners the file owns and by an HTTPS listener
 * the API created naming the certificate by ARN; a replacement that cannot be served is refused,
 * naming the key, and the listeners keep the certificate they have.
 */
class CertificateReloadTest {

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

  private void start(Path file) {
    watched = WatchedFulcrum.start(gatewayVertx, file, 1);
  }

  /** The certificate a new TLS connection to {@code port} is served. */
  private static X509Certificate served(int port) throws IOException {
    try (SSLSocket socket = (SSLSocket) TestCertificates.trustingAnything().getSocketFactory()
        .createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      return (X509Certificate) socket.getSession().getPeerCertificates()[0];
    }
  }

  private static int status(X509Certificate trusted, int port) throws Exception {
    HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
        .sslContext(TestCertificates.trusting(trusted)).build();
    return client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  /**
   * Renews {@code current}'s files with a new key pair the way renewal tools do: each file written
   * aside and moved in, the key first (a check between the two moves sees a key that is not the
   * certificate's, which is refused until the certificate follows).
   */
  private TestCertificates.Pem renew(TestCertificates.Pem current) throws IOException {
    Path aside = Files.createDirectories(dir.resolve("renewed"));
    TestCertificates.Pem next = TestCertificates.pem(aside, "lb", "127.0.0.1");
    Files.move(next.privateKey(), current.privateKey(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    Files.move(next.certificate(), current.certificate(), StandardCopyOption.REPLACE_EXISTING,
        StandardCopyOption.ATOMIC_MOVE);
    return new TestCertificates.Pem(current.certificate(), current.privateKey(), next.x509());
  }

  private void breakCertificate(Path certificate) throws IOException {
    Path broken = dir.resolve("broken.pem");
    Files.writeString(broken, "not a certificate");
    Files.move(broken, certificate, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void aCertificateRenewedInPlace_isServedByTheFilesListeners_andOneThatCannotBeServedIsRefused() throws Exception {
    TestCertificates.Pem first = TestCertificates.pem(dir, "lb", "127.0.0.1");
    int backend = Backend.start(backends, "b").port();
    int https = Ports.free();
    int tls = Ports.free();
    Path file = dir.resolve("fulcrum.yaml");
    String certificates = "[{certificate: '%s', private-key: '%s'}]".formatted(first.certificate(), first.privateKey());
    Files.writeString(file, """
        control: {port: 0}
        dns: {port: 0}
        data-dir: '%s'
        reload: {scan-period-ms: 50}
        load-balancers:
          - name: web
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: %s
                default-actions: [{type: forward, target-group: tg}]
          - name: net
            type: network
            listeners:
              - protocol: TLS
                port: %d
                certificates: %s
                default-actions: [{type: forward, target-group: tcp}]
        target-groups:
          - {name: tg, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: tcp, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(dir.resolve("data"), https, certificates, tls, certificates, backend, backend));
    start(file);
    assertThat(served(https)).isEqualTo(first.x509());
    assertThat(served(tls)).isEqualTo(first.x509());

    TestCertificates.Pem second = renew(first);

    await().atMost(Duration.ofSeconds(20)).until(() -> served(https).equals(second.x509()));
    await().atMost(Duration.ofSeconds(20)).until(() -> served(tls).equals(second.x509()));
    assertThat(status(second.x509(), https)).isEqualTo(200);

    watched.rejected.clear(); // a check between the renewal's two moves may have refused the half-renewed pair
    breakCertificate(first.certificate());
    await().atMost(Duration.ofSeconds(20)).until(() -> !watched.rejected.isEmpty());
    assertThat(watched.rejected.get(0)).extracting(Problem::toString).first().asString()
        .startsWith("load-balancers[0].listeners[0].certificates[0].certificate: '" + first.certificate()
            + "' is not a PEM certificate chain");
    assertThat(served(https)).as("the certificate served stays").isEqualTo(second.x509());
    assertThat(served(tls)).isEqualTo(second.x509());
    assertThat(status(second.x509(), https)).isEqualTo(200);
  }

  @Test
  void aCertificateTheApiNamesByArn_renewedInPlace_isServedByTheApisListener() throws Exception {
    TestCertificates.Pem first = TestCertificates.pem(dir, "lb", "127.0.0.1");
    int backend = Backend.start(backends, "b").port();
    int https = Ports.free();
    Path file = dir.resolve("fulcrum.yaml");
    Files.writeString(file, ElbClients.CREDENTIALS_YAML + """
        control: {port: 0}
        dns: {port: 0}
        data-dir: '%s'
        reload: {scan-period-ms: 50}
        resources: {source: api}
        certificates:
          - {certificate: '%s', private-key: '%s'}
        target-groups:
          - {name: tg, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(dir.resolve("data"), first.certificate(), first.privateKey(), backend));
    start(file);
    String certificateArn = new Arns("us-east-1", "000000000000").certificate(first.certificate().toString());
    try (ElasticLoadBalancingV2Client elb = ElbClients.client(watched.fulcrum.controlPort())) {
      String lb = elb.createLoadBalancer(b -> b.name("web").subnets("zone-a")).loadBalancers().get(0)
          .loadBalancerArn();
      elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(https)
          .certificates(c -> c.certificateArn(certificateArn))
          .defaultActions(a -> a.type(ActionTypeEnum.FIXED_RESPONSE)
              .fixedResponseConfig(f -> f.statusCode("200"))));
    }
    await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(() -> served(https).equals(first.x509()));

    TestCertificates.Pem second = renew(first);

    await().atMost(Duration.ofSeconds(20)).until(() -> served(https).equals(second.x509()));
    assertThat(status(second.x509(), https)).isEqualTo(200);
  }
}
