package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.forward;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.model.Arns;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestPki;
import io.fulcrum.tls.SelfSignedCertificate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeTrustStoreRevocation;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Listener;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.MutualAuthenticationAttributes;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TrustStore;

/**
 * Mutual TLS through the real AWS SDK: an HTTPS listener created in verify mode with a trust store
 * of the config file (DescribeTrustStores, DescribeTrustStoreAssociations), changed to passthrough,
 * kept across other changes and a restart; what does not fit refused with AWS's codes, changing
 * nothing. Real handshakes check each step.
 */
class MutualTlsApiTest {

  private static final Arns ARNS = new Arns("us-east-1", "000000000000");
  private static final String SELF_SIGNED = ARNS.selfSignedCertificate();

  @TempDir
  Path dir;
  @TempDir
  Path pkiDir;
  private LbApiHarness h;

  private final TestPki.Issued root = TestPki.root("Clients Root");
  private final TestPki.Issued alice = TestPki.client(root, "alice");

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
  }

  private String trustStoreYaml() {
    Path bundle = TestPki.bundle(pkiDir.resolve("clients.pem"), root.certificate());
    Path lost = TestPki.crl(pkiDir.resolve("lost.crl"), root, TestPki.client(root, "lost").certificate());
    Path left = TestPki.crl(pkiDir.resolve("left.crl"), root, TestPki.client(root, "left-1").certificate(),
        TestPki.client(root, "left-2").certificate());
    return "trust-stores:\n  - {name: clients, ca-certificates: '" + bundle + "', revocations: ['" + lost + "', '"
        + left + "']}\n";
  }

  /** A GET over TLS with {@code context}: the answer, or the handshake's failure. */
  private String get(SSLContext context, int port) throws IOException {
    try (SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      socket.startHandshake();
      socket.getOutputStream().write("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      socket.getInputStream().transferTo(out);
      return out.toString(StandardCharsets.UTF_8);
    }
  }

  private X509Certificate serverCertificate() {
    return TestCertificates.read(dir.resolve("tls").resolve(SelfSignedCertificate.CERT_FILE));
  }

  @Test
  void verifyListener_isCreatedWithATrustStore_thenTurnedToPassthrough_andKeptAcrossChangesAndARestart()
      throws Exception {
    h = LbApiHarness.start(dir, trustStoreYaml(), 1);
    String trustStore = ARNS.trustStore("clients");
    String lb = h.createLoadBalancer("secure");
    int port = Ports.free();

    Listener created = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(port)
        .certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(h.tg("blue")))
        .mutualAuthentication(m -> m.mode("verify").trustStoreArn(trustStore))).listeners().get(0);

    MutualAuthenticationAttributes m = created.mutualAuthentication();
    assertThat(m.mode()).isEqualTo("verify");
    assertThat(m.trustStoreArn()).isEqualTo(trustStore);
    assertThat(m.ignoreClientCertificateExpiry()).isFalse();
    assertThat(m.trustStoreAssociationStatusAsString()).isEqualTo("active");
    assertThat(m.advertiseTrustStoreCaNamesAsString()).isEqualTo("off");
    SSLContext anonymous = TestCertificates.trusting(serverCertificate());
    SSLContext withCertificate = alice.clientContext(serverCertificate());
    assertThat(get(withCertificate, port)).startsWith("HTTP/1.1 200").endsWith("blue");
    assertThat(h.blue.lastRequest().getJsonObject("headers").getString("x-amzn-mtls-clientcert-subject"))
        .isEqualTo("CN=alice,O=Fulcrum Tests,C=US");
    assertThatThrownBy(() -> get(anonymous, port)).as("no certificate, no session").isInstanceOf(IOException.class);

    assertThat(h.elb.describeTrustStores(b -> b.names("clients")).trustStores())
        .extracting(TrustStore::name, TrustStore::trustStoreArn, TrustStore::statusAsString,
            TrustStore::numberOfCaCertificates, TrustStore::totalRevokedEntries)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("clients", trustStore, "ACTIVE", 1, 3L));
    assertThat(h.elb.describeTrustStoreRevocations(b -> b.trustStoreArn(trustStore)).trustStoreRevocations())
        .extracting(DescribeTrustStoreRevocation::revocationId, DescribeTrustStoreRevocation::revocationTypeAsString,
            DescribeTrustStoreRevocation::numberOfRevokedEntries)
        .containsExactly(org.assertj.core.groups.Tuple.tuple(1L, "CRL", 1L),
            org.assertj.core.groups.Tuple.tuple(2L, "CRL", 2L));
    assertThat(h.elb.describeTrustStoreRevocations(b -> b.trustStoreArn(trustStore).revocationIds(2L))
        .trustStoreRevocations()).extracting(DescribeTrustStoreRevocation::revocationId).containsExactly(2L);
    assertThat(h.elb.describeTrustStoreAssociations(b -> b.trustStoreArn(trustStore)).trustStoreAssociations())
        .extracting(a -> a.resourceArn()).containsExactly(lb);

    // Passthrough: a client without a certificate gets through; a change that names no mode keeps it.
    h.elb.modifyListener(b -> b.listenerArn(created.listenerArn()).mutualAuthentication(a -> a.mode("passthrough")));
    assertThat(get(anonymous, port)).startsWith("HTTP/1.1 200");
    h.elb.modifyListener(b -> b.listenerArn(created.listenerArn()).sslPolicy("ELBSecurityPolicy-TLS13-1-2-2021-06"));
    assertThat(h.elb.describeListeners(b -> b.listenerArns(created.listenerArn())).listeners().get(0)
        .mutualAuthentication().mode()).isEqualTo("passthrough");
    assertThat(h.elb.describeTrustStoreAssociations(b -> b.trustStoreArn(trustStore)).trustStoreAssociations())
        .isEmpty();

    h.elb.modifyListener(b -> b.listenerArn(created.listenerArn()).mutualAuthentication(a -> a.mode("verify")
        .trustStoreArn(trustStore).ignoreClientCertificateExpiry(true).advertiseTrustStoreCaNames("on")));
    h.close();
    h = LbApiHarness.start(dir, trustStoreYaml(), 1);
    MutualAuthenticationAttributes restored = h.elb.describeListeners(b -> b.listenerArns(created.listenerArn()))
        .listeners().get(0).mutualAuthentication();
    assertThat(restored.mode()).isEqualTo("verify");
    assertThat(restored.ignoreClientCertificateExpiry()).isTrue();
    assertThat(restored.advertiseTrustStoreCaNamesAsString()).isEqualTo("on");
    // The session is made (the restarted harness's backends listen on other ports than the state file's targets).
    assertThat(get(withCertificate, port)).startsWith("HTTP/1.1 ");
    assertThatThrownBy(() -> get(anonymous, port)).isInstanceOf(IOException.class);
  }

  @Test
  void whatDoesNotFit_isRefusedWithAwsCodes_changingNothing() {
    h = LbApiHarness.start(dir, trustStoreYaml(), 1);
    String trustStore = ARNS.trustStore("clients");
    String lb = h.createLoadBalancer("secure");
    String https = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(Ports.free())
        .certificates(c -> c.certificateArn(SELF_SIGNED)).defaultActions(forward(h.tg("blue")))).listeners().get(0)
        .listenerArn();
    String http = h.createListener(lb, Ports.free(), forward(h.tg("blue")));

    assertThat(h.elb.describeListeners(b -> b.listenerArns(https)).listeners().get(0).mutualAuthentication().mode())
        .as("an HTTPS listener created without it").isEqualTo("off");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(https).mutualAuthentication(a -> a.mode("verify"))),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(https).mutualAuthentication(a -> a.mode("verify")
        .trustStoreArn(ARNS.trustStore("partners")))), "TrustStoreNotFound");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(https).mutualAuthentication(a -> a.mode("strict"))),
        "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(https).mutualAuthentication(a -> a
        .mode("passthrough").trustStoreArn(trustStore))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(http).mutualAuthentication(a -> a
        .mode("passthrough"))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createTrustStore(b -> b.name("more").caCertificatesBundleS3Bucket("bucket")
        .caCertificatesBundleS3Key("ca.pem")), "OperationNotPermitted");
    h.refusedUnchanged(() -> h.elb.describeTrustStores(b -> b.trustStoreArns(ARNS.trustStore("partners"))),
        "TrustStoreNotFound");
    h.refusedUnchanged(() -> h.elb.describeTrustStoreRevocations(b -> b.trustStoreArn(trustStore).revocationIds(3L)),
        "RevocationIdNotFound");
  }

  /** A trust store is shared by a resource policy; nothing is shared here, so it has none. */
  @Test
  void getResourcePolicy_ofATrustStore_isNone_andOfAnythingElse_resourceNotFound() {
    h = LbApiHarness.start(dir, trustStoreYaml(), 1);
    String lb = h.createLoadBalancer("web");

    assertThat(h.elb.getResourcePolicy(b -> b.resourceArn(ARNS.trustStore("clients"))).policy()).isNull();
    h.refusedUnchanged(() -> h.elb.getResourcePolicy(b -> b.resourceArn(ARNS.trustStore("partners"))),
        "ResourceNotFound");
    h.refusedUnchanged(() -> h.elb.getResourcePolicy(b -> b.resourceArn(lb)),
        "ResourceNotFound");
    h.refusedUnchanged(() -> h.elb.getResourcePolicy(b -> { }), "ValidationError");
  }
}
