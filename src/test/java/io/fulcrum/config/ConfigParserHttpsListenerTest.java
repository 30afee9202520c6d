package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.withListener;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Listener;
import io.fulcrum.model.Protocol;
import io.fulcrum.testing.TestCertificates;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HTTPS listener keys: certificates (PEM pairs or PKCS#12), ssl-policy, and h2c on HTTP listeners. */
class ConfigParserHttpsListenerTest {

  private static final String L = "load-balancers[0].listeners[0].";
  private static final String FORWARD = "default-actions: [{type: forward, target-group: web}]";

  @TempDir
  static Path dir;
  private static TestCertificates.Pem pem;
  private static Path p12;

  @BeforeAll
  static void certificates() {
    pem = TestCertificates.pem(dir, "shop", "shop.example.com");
    p12 = TestCertificates.pkcs12(dir.resolve("all.p12"), "secret", List.of(List.of("a.example.com")));
  }

  private static Listener listener(String yaml) {
    return parse(withListener(yaml)).resources().loadBalancers().get(0).listeners().get(0);
  }

  @Test
  void httpsListener_withAPemPair_andThePolicyDefault() {
    Listener l = listener("- {protocol: HTTPS, port: 8443, certificates: [{certificate: '%s', private-key: '%s'}], %s}"
        .formatted(pem.certificate(), pem.privateKey(), FORWARD));

    assertThat(l.protocol()).isEqualTo(Protocol.HTTPS);
    assertThat(l.sslPolicy()).isEqualTo("ELBSecurityPolicy-2016-08");
    assertThat(l.certificates()).hasSize(1);
    assertThat(l.certificates().get(0).certificateFile()).isEqualTo(pem.certificate().toString());
    assertThat(l.certificates().get(0).privateKeyFile()).isEqualTo(pem.privateKey().toString());
    assertThat(l.h2c()).isFalse();
  }

  @Test
  void httpsListener_withAPkcs12Keystore_andAPolicy() {
    Listener l = listener(("- {protocol: HTTPS, port: 8443, ssl-policy: ELBSecurityPolicy-TLS13-1-3-2021-06,"
        + " certificates: [{pkcs12: '%s', password: secret}], %s}").formatted(p12, FORWARD));

    assertThat(l.sslPolicy()).isEqualTo("ELBSecurityPolicy-TLS13-1-3-2021-06");
    assertThat(l.certificates().get(0).pkcs12File()).isEqualTo(p12.toString());
    assertThat(l.certificates().get(0).password()).isEqualTo("secret");
  }

  @Test
  void httpsListener_withoutCertificates_isValid_theSelfSignedOneIsGeneratedAtStart() {
    assertThat(listener("- {protocol: HTTPS, port: 8443, " + FORWARD + "}").certificates())
        .containsExactly(io.fulcrum.model.Certificate.selfSigned(
            new io.fulcrum.model.Arns("us-east-1", "000000000000").selfSignedCertificate()));
  }

  @Test
  void h2c_isAnHttpListenerSwitch_offByDefault() {
    assertThat(listener("- {protocol: HTTP, port: 8080, h2c: true, " + FORWARD + "}").h2c()).isTrue();
    assertThat(listener("- {protocol: HTTP, port: 8080, " + FORWARD + "}").h2c()).isFalse();
  }

  @Test
  void unknownPolicy_unreadableFiles_andHalfPairs_areRejectedAtTheirKeys() {
    assertThat(messages(withListener("- {protocol: HTTPS, port: 8443, ssl-policy: ELBSecurityPolicy-2099-01, "
        + FORWARD + "}"))).singleElement().asString()
        .startsWith(L + "ssl-policy: 'ELBSecurityPolicy-2099-01' is not a security policy (expected one of: "
            + "ELBSecurityPolicy-2016-08, ");
    assertThat(messages(withListener(("- {protocol: HTTPS, port: 8443, certificates: [{certificate: '%s',"
        + " private-key: /nonexistent/key.pem}], %s}").formatted(pem.certificate(), FORWARD))))
        .containsExactly(L + "certificates[0].private-key: '/nonexistent/key.pem' cannot be read (paths are relative"
            + " to the working directory)");
    assertThat(messages(withListener(("- {protocol: HTTPS, port: 8443, certificates: [{certificate: '%s'}], %s}")
        .formatted(pem.certificate(), FORWARD))))
        .containsExactly(L + "certificates[0]: give certificate and private-key (PEM files), or pkcs12 (and password)");
  }

  @Test
  void filesThatCannotBeServed_areRejectedAtTheKeyNamingThem() throws Exception {
    Path garbage = java.nio.file.Files.writeString(dir.resolve("garbage.pem"), "not PEM at all");
    TestCertificates.Pem other = TestCertificates.pem(dir, "other", "other.example.com");
    TestCertificates.Pem rsa = TestCertificates.pem(dir, "rsa", "RSA", java.time.Instant.now(),
        java.time.Instant.now().plusSeconds(86_400), "rsa.example.com");
    String pair = "- {protocol: HTTPS, port: 8443, certificates: [{certificate: '%s', private-key: '%s'}], %s}";
    assertThat(messages(withListener(pair.formatted(garbage, pem.privateKey(), FORWARD))))
        .containsExactly(L + "certificates[0].certificate: '" + garbage + "' is not a PEM certificate chain:"
            + " Missing -----BEGIN CERTIFICATE----- delimiter");
    assertThat(messages(withListener(pair.formatted(pem.certificate(), garbage, FORWARD)))).singleElement().asString()
        .startsWith(L + "certificates[0].private-key: '" + garbage + "' is not a PEM private key (PKCS#8, PKCS#1 RSA or SEC 1 EC):"
            + " Missing -----BEGIN PRIVATE KEY-----");
    assertThat(messages(withListener(pair.formatted(pem.certificate(), other.privateKey(), FORWARD))))
        .containsExactly(L + "certificates[0].private-key: '" + other.privateKey() + "' is not the private key of the"
            + " certificate in '" + pem.certificate() + "' (the first one there)");
    assertThat(messages(withListener(pair.formatted(pem.certificate(), rsa.privateKey(), FORWARD))))
        .as("an RSA key for an EC certificate").containsExactly(L + "certificates[0].private-key: '" + rsa.privateKey()
            + "' is not the private key of the certificate in '" + pem.certificate() + "' (the first one there)");
    assertThat(listener(pair.formatted(rsa.certificate(), rsa.privateKey(), FORWARD)).certificates()).hasSize(1);

    String keystore = "- {protocol: HTTPS, port: 8443, certificates: [{pkcs12: '%s', password: %s}], %s}";
    assertThat(messages(withListener(keystore.formatted(p12, "wrong", FORWARD))))
        .containsExactly(L + "certificates[0].pkcs12: '" + p12 + "' cannot be opened with the password given");
    assertThat(messages(withListener(keystore.formatted(garbage, "secret", FORWARD)))).singleElement().asString()
        .startsWith(L + "certificates[0].pkcs12: '" + garbage + "' is not a PKCS#12 keystore: ");
  }

  @Test
  void tlsKeysOnAnHttpListener_areRejected() {
    assertThat(messages(withListener(("- {protocol: HTTP, port: 8080, ssl-policy: ELBSecurityPolicy-2016-08,"
        + " certificates: [{pkcs12: '%s'}], %s}").formatted(p12, FORWARD))))
        .containsExactly(L + "ssl-policy: a security policy is only for HTTPS and TLS listeners",
            L + "certificates: certificates are only for HTTPS and TLS listeners");
  }
}
