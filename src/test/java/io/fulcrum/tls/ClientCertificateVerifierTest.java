package io.fulcrum.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.model.TrustStore;
import io.fulcrum.testing.TestPki;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Mutual TLS verify mode's judgement of a client chain: through intermediates the client sends or
 * the trust store holds, in any order, at the injected clock's time; expiry (ignored when asked),
 * revocation lists, and the CA names a handshake advertises.
 */
class ClientCertificateVerifierTest {

  @TempDir
  Path dir;

  private final TestPki.Issued root = TestPki.root("Test Root");
  private final TestPki.Issued intermediate = TestPki.intermediate(root, "Test Issuing CA");

  private ClientCertificateVerifier verifier(Clock clock, boolean ignoreExpiry, boolean advertise, List<String> crls,
      X509Certificate... cas) {
    Path bundle = TestPki.bundle(dir.resolve("bundle-" + System.nanoTime() + ".pem"), cas);
    return ClientCertificateVerifier.load(new TrustStore("arn", "ts", bundle.toString(), crls), ignoreExpiry,
        advertise, clock);
  }

  private ClientCertificateVerifier verifier(X509Certificate... cas) {
    return verifier(Clock.systemUTC(), false, false, List.of(), cas);
  }

  private static X509Certificate[] presented(TestPki.Issued client) {
    X509Certificate[] chain = new X509Certificate[client.chain().size() + 1];
    chain[0] = client.certificate();
    for (int i = 0; i < client.chain().size(); i++) {
      chain[i + 1] = client.chain().get(i);
    }
    return chain;
  }

  private static ClientCertificateVerifier.Failure failure(ClientCertificateVerifier v, X509Certificate... chain) {
    try {
      v.verify(chain);
      return null;
    } catch (ClientCertificateVerifier.Refused e) {
      return e.failure();
    }
  }

  @Test
  void aClientOfAnIntermediate_chainsToTheRoot_withTheIntermediateSentOrHeld() {
    TestPki.Issued client = TestPki.client(intermediate, "alice");

    assertThat(failure(verifier(root.certificate()), presented(client))).isNull();
    assertThat(failure(verifier(root.certificate()), client.certificate()))
        .as("without the intermediate, nothing leads to the root").isEqualTo(ClientCertificateVerifier.Failure.ClientCertUntrusted);
    assertThat(failure(verifier(root.certificate(), intermediate.certificate()), client.certificate()))
        .as("the bundle's intermediate").isNull();
    assertThat(failure(verifier(intermediate.certificate()), client.certificate()))
        .as("an intermediate alone is trusted too").isNull();
    assertThat(failure(verifier(root.certificate()), client.certificate(), root.certificate(),
        intermediate.certificate())).as("any order, the root itself sent too").isNull();
  }

  @Test
  void aCertificateOfAnotherCa_orSelfSigned_orNone_isUntrusted() {
    TestPki.Issued other = TestPki.root("Other Root");
    TestPki.Issued stranger = TestPki.client(other, "mallory");
    ClientCertificateVerifier v = verifier(root.certificate());

    assertThat(failure(v, presented(stranger))).isEqualTo(ClientCertificateVerifier.Failure.ClientCertUntrusted);
    assertThat(failure(v, other.certificate())).isEqualTo(ClientCertificateVerifier.Failure.ClientCertUntrusted);
    assertThat(failure(v)).isEqualTo(ClientCertificateVerifier.Failure.ClientCertMissing);
    // Same names, other keys: the signature is what counts.
    TestPki.Issued impostorRoot = TestPki.root("Test Root");
    TestPki.Issued impostor = TestPki.client(impostorRoot, "alice");
    assertThat(failure(v, presented(impostor))).isEqualTo(ClientCertificateVerifier.Failure.ClientCertUntrusted);
  }

  @Test
  void expiry_isJudgedAtTheClocksTime_andCanBeIgnored() {
    Instant notBefore = Instant.parse("2026-01-01T00:00:00Z");
    Instant notAfter = Instant.parse("2026-06-01T00:00:00Z");
    TestPki.Issued client = TestPki.client(root, "bob", notBefore, notAfter);
    Clock before = Clock.fixed(notBefore.minus(Duration.ofDays(1)), ZoneOffset.UTC);
    Clock during = Clock.fixed(notBefore.plus(Duration.ofDays(30)), ZoneOffset.UTC);
    Clock after = Clock.fixed(notAfter.plus(Duration.ofSeconds(1)), ZoneOffset.UTC);

    assertThat(failure(verifier(during, false, false, List.of(), root.certificate()), presented(client))).isNull();
    assertThat(failure(verifier(after, false, false, List.of(), root.certificate()), presented(client)))
        .isEqualTo(ClientCertificateVerifier.Failure.ClientCertExpired);
    assertThat(failure(verifier(before, false, false, List.of(), root.certificate()), presented(client)))
        .isEqualTo(ClientCertificateVerifier.Failure.ClientCertNotYetValid);
    assertThat(failure(verifier(after, true, false, List.of(), root.certificate()), presented(client)))
        .as("expiry ignored").isNull();
    assertThat(failure(verifier(before, true, false, List.of(), root.certificate()), presented(client)))
        .as("not yet valid, ignored alike").isNull();
    TestPki.Issued stranger = TestPki.client(TestPki.root("Other"), "eve", notBefore, notAfter);
    assertThat(failure(verifier(after, true, false, List.of(), root.certificate()), presented(stranger)))
        .as("ignoring expiry trusts nothing more").isEqualTo(ClientCertificateVerifier.Failure.ClientCertUntrusted);
  }

  @Test
  void aRevokedClient_orOneUnderARevokedIntermediate_isRefused_othersPass() {
    TestPki.Issued alice = TestPki.client(intermediate, "alice");
    TestPki.Issued carol = TestPki.client(intermediate, "carol");
    Path crl = TestPki.crl(dir.resolve("issuing.crl"), intermediate, carol.certificate());
    // A list is checked against its issuer when the trust store is read: that CA is in the bundle.
    ClientCertificateVerifier v = verifier(Clock.systemUTC(), false, false, List.of(crl.toString()), root.certificate(),
        intermediate.certificate());

    assertThat(failure(v, presented(alice))).isNull();
    assertThat(failure(v, presented(carol))).isEqualTo(ClientCertificateVerifier.Failure.ClientCertCrlHit);
    assertThat(v.revokedPerList()).containsExactly(1);

    Path rootCrl = TestPki.crl(dir.resolve("root.crl"), root, intermediate.certificate());
    ClientCertificateVerifier revokedCa = verifier(Clock.systemUTC(), false, false, List.of(rootCrl.toString()),
        root.certificate());
    assertThat(failure(revokedCa, presented(alice))).isEqualTo(ClientCertificateVerifier.Failure.ClientCertCrlHit);
  }

  @Test
  void aCertificateNotMeantForClients_orOfX509v1_isRefused_evenFromATrustedCa() {
    ClientCertificateVerifier v = verifier(root.certificate());
    int signing = KeyUsage.digitalSignature;

    assertThat(failure(v, presented(TestPki.client(root, "server", signing, KeyPurposeId.id_kp_serverAuth))))
        .isEqualTo(ClientCertificateVerifier.Failure.ClientCertPurposeInvalid);
    assertThat(failure(v, presented(TestPki.client(root, "ca-like", KeyUsage.keyCertSign))))
        .isEqualTo(ClientCertificateVerifier.Failure.ClientCertPurposeInvalid);
    assertThat(failure(v, presented(TestPki.v1Client(root, "old"))))
        .isEqualTo(ClientCertificateVerifier.Failure.ClientCertTypeUnsupported);
    assertThat(failure(v, presented(TestPki.client(root, "both", signing, KeyPurposeId.id_kp_serverAuth,
        KeyPurposeId.id_kp_clientAuth)))).isNull();
    assertThat(failure(v, presented(TestPki.client(root, "any", KeyUsage.keyAgreement,
        KeyPurposeId.anyExtendedKeyUsage)))).isNull();
  }

  @Test
  void caNames_areAdvertisedOnlyWhenAsked() {
    assertThat(verifier(Clock.systemUTC(), false, true, List.of(), root.certificate(), intermediate.certificate())
        .getAcceptedIssuers()).containsExactly(root.certificate(), intermediate.certificate());
    assertThat(verifier(root.certificate()).getAcceptedIssuers()).isEmpty();
  }

  @Test
  void badFiles_areNamed() throws Exception {
    Path empty = Files.writeString(dir.resolve("empty.pem"), "");
    Path bundle = TestPki.bundle(dir.resolve("ok.pem"), root.certificate());
    Path foreignCrl = TestPki.crl(dir.resolve("foreign.crl"), TestPki.root("Other"));

    assertThatThrownBy(() -> ClientCertificateVerifier.load(new TrustStore("a", "t", empty.toString(), List.of()),
        false, false, Clock.systemUTC())).hasMessageContaining("'" + empty + "' holds no certificate");
    assertThatThrownBy(() -> ClientCertificateVerifier.load(new TrustStore("a", "t", dir.resolve("absent.pem")
        .toString(), List.of()), false, false, Clock.systemUTC())).hasMessageContaining("cannot be read");
    assertThatThrownBy(() -> ClientCertificateVerifier.load(new TrustStore("a", "t", bundle.toString(),
        List.of(foreignCrl.toString())), false, false, Clock.systemUTC()))
        .hasMessageContaining("'" + foreignCrl + "'").hasMessageContaining("not signed by a CA of the trust store");
    assertThatThrownBy(() -> ClientCertificateVerifier.load(new TrustStore("a", "t", bundle.toString(),
        List.of(bundle.toString())), false, false, Clock.systemUTC()))
        .hasMessageContaining("is not a certificate revocation list");
  }
}
