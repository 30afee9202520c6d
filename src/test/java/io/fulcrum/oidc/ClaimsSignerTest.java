package io.fulcrum.oidc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.sticky.KeyRing;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The claims signer's keys, derived from the key ring, and the tokens it signs. */
class ClaimsSignerTest {

  private static KeyRing.Key key(int id, int fill) {
    byte[] secret = new byte[32];
    Arrays.fill(secret, (byte) fill);
    return new KeyRing.Key(id, secret);
  }

  @Test
  void thePointArithmetic_agreesWithTheJdksKeyGenerator() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"));
    for (int i = 0; i < 3; i++) {
      KeyPair pair = g.generateKeyPair();
      ECPublicKey pub = (ECPublicKey) pair.getPublic();
      assertThat(ClaimsSigner.multiply(pub.getParams().getGenerator(), ((ECPrivateKey) pair.getPrivate()).getS()))
          .isEqualTo(pub.getW());
    }
  }

  @Test
  void aRingKey_alwaysGivesTheSameSigningKey_andAnotherKeyAnother() {
    ClaimsSigner.SigningKey a = ClaimsSigner.derive(key(1, 7));
    ClaimsSigner.SigningKey again = ClaimsSigner.derive(key(1, 7));
    assertThat(again.kid()).isEqualTo(a.kid());
    assertThat(again.publicKey().getW()).isEqualTo(a.publicKey().getW());
    assertThat(ClaimsSigner.derive(key(1, 8)).kid()).isNotEqualTo(a.kid());
    assertThat(a.kid()).matches("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
  }

  @Test
  void theNewestKeySigns_andEveryKeyOfTheRingIsPublished() throws Exception {
    ClaimsSigner signer = ClaimsSigner.of(new KeyRing(List.of(key(2, 9), key(1, 7))));
    ClaimsSigner.SigningKey old = ClaimsSigner.derive(key(1, 7));
    assertThat(signer.key(old.kid())).isNotNull();
    assertThat(signer.key("nope")).isNull();
    String token = signer.sign("arn:lb", "https://idp", "client", "{\"sub\":\"u\",\"exp\":1}", 1_900_000_000L);
    String[] parts = token.split("\\.");
    String header = new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8);
    assertThat(header).isEqualTo("{\"alg\":\"ES256\",\"kid\":\"" + signer.newest().kid()
        + "\",\"signer\":\"arn:lb\",\"iss\":\"https://idp\",\"client\":\"client\",\"exp\":1900000000}");
    String payload = new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8);
    assertThat(payload).as("the token's exp replaces the claims'").isEqualTo(
        "{\"sub\":\"u\",\"exp\":1900000000,\"iss\":\"https://idp\"}");
    Signature verify = Signature.getInstance("SHA256withECDSAinP1363Format");
    verify.initVerify(signer.newest().publicKey());
    verify.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
    assertThat(verify.verify(Base64.getUrlDecoder().decode(parts[2]))).isTrue();
    assertThat(signer.newest().pem()).startsWith("-----BEGIN PUBLIC KEY-----\n").endsWith("-----END PUBLIC KEY-----\n");
  }

  @Test
  void sessionsAndStates_readBackAsWritten_andNothingElseReadsAsThem() {
    Session s = new Session("https://idp", "c", "sub-ü", "at", "{\"sub\":\"sub-ü\"}", "rt", 100_000L, 123_456L);
    assertThat(Session.decode(s.encode())).isEqualTo(s);
    LoginState st = new LoginState(5L, "arn:rule", "c", "nonce", "https://h/p?q");
    assertThat(LoginState.decode(st.encode())).isEqualTo(st);
    byte[] truncated = Arrays.copyOf(s.encode(), s.encode().length - 1);
    assertThat(Session.decode(truncated)).isNull();
    assertThat(Session.decode(new byte[] {9})).isNull();
    assertThat(s.validFor("https://idp", "c", 123_455L)).isTrue();
    assertThat(s.validFor("https://idp", "c", 123_456L)).as("expired").isFalse();
    assertThat(s.validFor("https://idp", "other", 0)).as("another client's").isFalse();
    assertThat(s.refreshDue(99_999L)).isFalse();
    assertThat(s.refreshDue(100_000L)).isTrue();
    assertThat(s.refreshed("at2", "{}", "", 0).refreshDue(200_000L)).as("no refresh token: never").isFalse();
  }
}
