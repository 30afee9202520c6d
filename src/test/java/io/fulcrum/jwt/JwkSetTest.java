package io.fulcrum.jwt;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.testing.TestJwts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Reading a JWKS document: the RSA signing keys, within ALB's limits. */
class JwkSetTest {

  private static final TestJwts.Key K1 = TestJwts.Key.rsa("k1");

  private static JwkSet parse(String json) {
    return JwkSet.parse(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void rsaSigningKeys_areRead_otherKeysPassedOver() {
    JsonArray keys = new JsonArray().add(K1.jwk())
        .add(new JsonObject().put("kty", "EC").put("kid", "ec").put("crv", "P-256").put("x", "AA").put("y", "AA"))
        .add(K1.jwk().put("kid", "enc").put("use", "enc"))
        .add(K1.jwk().put("kid", "ps").put("alg", "PS256"))
        .add(K1.jwk().put("kid", "plain").put("use", null).put("alg", null));
    JwkSet set = parse(new JsonObject().put("keys", keys).encode());
    assertThat(set.size()).isEqualTo(2);
    assertThat(set.candidates("k1")).hasSize(1);
    assertThat(set.candidates("plain")).hasSize(1);
    assertThat(set.candidates("enc")).isEmpty();
    assertThat(set.candidates(null)).hasSize(2);
  }

  @Test
  void alb_sLimits_holdForTheDocument() {
    JsonArray eleven = new JsonArray();
    for (int i = 0; i < 11; i++) {
      eleven.add(new JsonObject().put("kty", "oct").put("kid", "k" + i));
    }
    assertThatThrownBy(() -> parse(new JsonObject().put("keys", eleven).encode()))
        .hasMessageContaining("11 keys is above the maximum 10");
    String big = new JsonObject().put("keys", new JsonArray()).put("pad", "x".repeat(JwkSet.MAX_BYTES)).encode();
    assertThatThrownBy(() -> parse(big)).hasMessageContaining("above the maximum " + JwkSet.MAX_BYTES);
  }

  @Test
  void aDocumentThatIsNotAKeySet_saysWhy() {
    assertThatThrownBy(() -> parse("[]")).hasMessageContaining("not a JSON object");
    assertThatThrownBy(() -> parse("{\"keys\": {}}")).hasMessageContaining("no \"keys\" array");
    assertThatThrownBy(() -> parse("{\"keys\": []} x")).hasMessageContaining("not valid JSON");
    assertThatThrownBy(() -> parse(TestJwts.jwks(K1, K1))).hasMessageContaining("key id 'k1' is used by two keys");
    assertThatThrownBy(() -> parse(new JsonObject().put("keys", new JsonArray().add(K1.jwk().put("n", "AQAB=")))
        .encode())).hasMessageContaining("key 1 is not a valid RSA key");
    assertThatThrownBy(() -> parse(TestJwts.jwks(TestJwts.Key.rsa("short", 1024))))
        .hasMessageContaining("1024-bit modulus is below the minimum 2048");
  }
}
