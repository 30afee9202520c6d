package io.fulcrum.jwt;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.jwt.TokenCheck.Outcome;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.JwtValidation.Claim;
import io.fulcrum.model.JwtValidation.ClaimFormat;
import io.fulcrum.testing.TestJwts;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** A jwt-validation action's check of a request's bearer token, against keys and a clock given. */
class TokenCheckTest {

  private static final String ISSUER = "https://issuer.example.com";
  private static final long NOW = 1_767_225_600_000L;
  private static final TestJwts.Key K1 = TestJwts.Key.rsa("k1");
  private static final TestJwts.Key K2 = TestJwts.Key.rsa("k2");
  private static final JwkSet KEYS = JwkSet.parse(TestJwts.jwks(K1, K2).getBytes(StandardCharsets.UTF_8));

  private final TokenCheck plain = new TokenCheck(new JwtValidation("https://idp/jwks", ISSUER, List.of()));

  private static String bearer(String token) {
    return "Bearer " + token;
  }

  private static JsonObject claims() {
    return TestJwts.claims(ISSUER, NOW);
  }

  @Test
  void aTokenSignedByAKeyOfTheSet_fromTheIssuer_unexpired_isValid() {
    assertThat(plain.check(bearer(K1.sign(claims())), KEYS, NOW)).isEqualTo(Outcome.VALID);
    assertThat(plain.check(bearer(K2.sign(claims())), KEYS, NOW)).isEqualTo(Outcome.VALID);
    assertThat(plain.check("bearer " + K2.sign(claims()), KEYS, NOW)).as("the scheme is case-insensitive")
        .isEqualTo(Outcome.VALID);
  }

  @Test
  void noToken_isMissing() {
    assertThat(plain.check(null, KEYS, NOW)).isEqualTo(Outcome.MISSING);
    assertThat(plain.check("Bearer ", KEYS, NOW)).isEqualTo(Outcome.MISSING);
    assertThat(plain.check("Basic dXNlcjpwYXNz", KEYS, NOW)).isEqualTo(Outcome.MISSING);
  }

  @Test
  void somethingThatIsNotACompactJws_isMalformed() {
    String good = K1.sign(claims());
    assertThat(plain.check(bearer("abc"), KEYS, NOW)).isEqualTo(Outcome.MALFORMED);
    assertThat(plain.check(bearer("a.b"), KEYS, NOW)).isEqualTo(Outcome.MALFORMED);
    assertThat(plain.check(bearer(good + ".x"), KEYS, NOW)).as("five parts: a JWE").isEqualTo(Outcome.MALFORMED);
    assertThat(plain.check(bearer(good + "="), KEYS, NOW)).as("padding").isEqualTo(Outcome.MALFORMED);
    assertThat(plain.check(bearer("e30.e30.%%%"), KEYS, NOW)).as("not base64url").isEqualTo(Outcome.MALFORMED);
    String notJson = K1.sign(new JsonObject().put("alg", "RS256").put("kid", "k1"), "not json");
    assertThat(plain.check(bearer(notJson), KEYS, NOW)).isEqualTo(Outcome.MALFORMED);
  }

  @Test
  void aMemberNamedTwice_isMalformed_evenWhenSigned() {
    // A lenient reader keeps one of the two: a signer and a reader could disagree on which.
    String payload = "{\"iss\":\"https://evil.example\",\"iss\":\"" + ISSUER + "\",\"exp\":" + (NOW / 1000 + 60) + "}";
    String token = K1.sign(new JsonObject().put("alg", "RS256").put("kid", "k1"), payload);
    assertThat(plain.check(bearer(token), KEYS, NOW)).isEqualTo(Outcome.MALFORMED);
  }

  @ParameterizedTest
  @CsvSource({"none", "HS256", "RS512", "ES256"})
  void anAlgorithmOtherThanRs256_isRefused(String alg) {
    String token = K1.sign(new JsonObject().put("alg", alg).put("kid", "k1"), claims().encode());
    assertThat(plain.check(bearer(token), KEYS, NOW)).isEqualTo(Outcome.UNSUPPORTED_ALGORITHM);
  }

  @Test
  void anUnsignedToken_isRefused() {
    String unsigned = TestJwts.b64("{\"alg\":\"none\"}") + "." + TestJwts.b64(claims().encode()) + ".";
    assertThat(plain.check(bearer(unsigned), KEYS, NOW)).isEqualTo(Outcome.UNSUPPORTED_ALGORITHM);
  }

  @Test
  void aCriticalHeaderExtension_isRefused() {
    String token = K1.sign(new JsonObject().put("alg", "RS256").put("kid", "k1").put("crit", new JsonArray().add("x"))
        .put("x", 1), claims().encode());
    assertThat(plain.check(bearer(token), KEYS, NOW)).isEqualTo(Outcome.UNSUPPORTED_ALGORITHM);
  }

  @Test
  void aKeyIdTheSetLacks_isAnUnknownKey() {
    TestJwts.Key other = TestJwts.Key.rsa("k3");
    assertThat(plain.check(bearer(other.sign(claims())), KEYS, NOW)).isEqualTo(Outcome.UNKNOWN_KEY);
    assertThat(plain.check(bearer(K1.sign(claims())), JwkSet.EMPTY, NOW)).as("keys not read yet")
        .isEqualTo(Outcome.UNKNOWN_KEY);
  }

  @Test
  void withoutAKeyId_everyKeyIsTried() {
    TestJwts.Key anonymous = new TestJwts.Key(null, K2.pair());
    assertThat(plain.check(bearer(anonymous.sign(claims())), KEYS, NOW)).isEqualTo(Outcome.VALID);
    TestJwts.Key stranger = TestJwts.Key.rsa(null);
    assertThat(plain.check(bearer(stranger.sign(claims())), KEYS, NOW)).isEqualTo(Outcome.BAD_SIGNATURE);
  }

  @Test
  void aTokenSignedByAnotherKeyUnderAKnownKeyId_orAltered_doesNotVerify() {
    TestJwts.Key impostor = new TestJwts.Key("k1", TestJwts.Key.rsa("x").pair());
    assertThat(plain.check(bearer(impostor.sign(claims())), KEYS, NOW)).isEqualTo(Outcome.BAD_SIGNATURE);
    String token = K1.sign(claims());
    String[] parts = token.split("\\.");
    String altered = parts[0] + "." + TestJwts.b64(claims().put("sub", "admin").encode()) + "." + parts[2];
    assertThat(plain.check(bearer(altered), KEYS, NOW)).isEqualTo(Outcome.BAD_SIGNATURE);
  }

  @Test
  void theIssuerMustMatchExactly() {
    assertThat(plain.check(bearer(K1.sign(claims().put("iss", ISSUER + "/"))), KEYS, NOW))
        .isEqualTo(Outcome.WRONG_ISSUER);
    JsonObject none = claims();
    none.remove("iss");
    assertThat(plain.check(bearer(K1.sign(none)), KEYS, NOW)).isEqualTo(Outcome.WRONG_ISSUER);
  }

  @Test
  void expiry_isRequired_andJudgedWithAMinuteOfLeeway() {
    long exp = NOW / 1000;
    String token = K1.sign(claims().put("exp", exp));
    assertThat(plain.check(bearer(token), KEYS, NOW + 59_999)).isEqualTo(Outcome.VALID);
    assertThat(plain.check(bearer(token), KEYS, NOW + 60_000)).isEqualTo(Outcome.EXPIRED);
    JsonObject none = claims();
    none.remove("exp");
    assertThat(plain.check(bearer(K1.sign(none)), KEYS, NOW)).isEqualTo(Outcome.EXPIRED);
    assertThat(plain.check(bearer(K1.sign(claims().put("exp", "tomorrow"))), KEYS, NOW))
        .isEqualTo(Outcome.MALFORMED);
  }

  @Test
  void notBefore_andIssuedAt_whenPresent_mayNotBeAheadOfTheClockBeyondTheLeeway() {
    long now = NOW / 1000;
    assertThat(plain.check(bearer(K1.sign(claims().put("nbf", now + 60))), KEYS, NOW)).isEqualTo(Outcome.VALID);
    assertThat(plain.check(bearer(K1.sign(claims().put("nbf", now + 61))), KEYS, NOW))
        .isEqualTo(Outcome.NOT_YET_VALID);
    assertThat(plain.check(bearer(K1.sign(claims().put("iat", now + 61))), KEYS, NOW))
        .isEqualTo(Outcome.ISSUED_IN_FUTURE);
    assertThat(plain.check(bearer(K1.sign(claims().put("nbf", now - 10.5))), KEYS, NOW)).as("a fractional date")
        .isEqualTo(Outcome.VALID);
  }

  @Test
  void additionalClaims_eachMustHoldOneOfItsValues_inItsFormat() {
    TokenCheck check = new TokenCheck(new JwtValidation("https://idp/jwks", ISSUER, List.of(
        new Claim("client_id", ClaimFormat.SINGLE_STRING, List.of("svc-a", "svc-b")),
        new Claim("scope", ClaimFormat.SPACE_SEPARATED_VALUES, List.of("orders:read")),
        new Claim("groups", ClaimFormat.STRING_ARRAY, List.of("ops", "dev")))));
    JsonObject ok = claims().put("client_id", "svc-b").put("scope", "profile orders:read")
        .put("groups", new JsonArray().add("finance").add("dev"));
    assertThat(check.check(bearer(K1.sign(ok)), KEYS, NOW)).isEqualTo(Outcome.VALID);

    assertThat(check.check(bearer(K1.sign(ok.copy().put("client_id", "svc-c"))), KEYS, NOW))
        .isEqualTo(Outcome.CLAIM_MISMATCH);
    assertThat(check.check(bearer(K1.sign(ok.copy().put("client_id", new JsonArray().add("svc-a")))), KEYS, NOW))
        .as("an array where a single string is expected").isEqualTo(Outcome.CLAIM_MISMATCH);
    assertThat(check.check(bearer(K1.sign(ok.copy().put("scope", "orders:readwrite profile"))), KEYS, NOW))
        .as("words, not substrings").isEqualTo(Outcome.CLAIM_MISMATCH);
    assertThat(check.check(bearer(K1.sign(ok.copy().put("groups", "dev"))), KEYS, NOW))
        .as("a string where an array is expected").isEqualTo(Outcome.CLAIM_MISMATCH);
    JsonObject without = ok.copy();
    without.remove("groups");
    assertThat(check.check(bearer(K1.sign(without)), KEYS, NOW)).isEqualTo(Outcome.CLAIM_MISMATCH);
  }

  @Test
  void aVerifiedTokenIsKept_butOnlyWithinItsTimes_andWithTheSameKeys() {
    String token = bearer(K1.sign(claims().put("exp", NOW / 1000 + 100).put("nbf", NOW / 1000)));
    assertThat(plain.check(token, KEYS, NOW)).isEqualTo(Outcome.VALID);
    assertThat(plain.check(token, KEYS, NOW + 100_000)).isEqualTo(Outcome.VALID);
    assertThat(plain.check(token, KEYS, NOW + 160_000)).as("expired, kept or not").isEqualTo(Outcome.EXPIRED);
    assertThat(plain.check(token, KEYS, NOW - 61_000)).as("not yet valid").isEqualTo(Outcome.NOT_YET_VALID);
    assertThat(plain.check(token, KEYS, NOW)).isEqualTo(Outcome.VALID);
    JwkSet rotated = JwkSet.parse(TestJwts.jwks(K2).getBytes(StandardCharsets.UTF_8));
    assertThat(plain.check(token, rotated, NOW)).as("its key is gone").isEqualTo(Outcome.UNKNOWN_KEY);
    TokenCheck stricter = new TokenCheck(new JwtValidation("https://idp/jwks", ISSUER,
        List.of(new Claim("scope", ClaimFormat.SINGLE_STRING, List.of("admin")))));
    assertThat(stricter.check(token, KEYS, NOW)).as("another action judges it anew")
        .isEqualTo(Outcome.CLAIM_MISMATCH);
  }

  @Test
  void theTokensKeptPerThread_areBounded() {
    for (int i = 0; i < TokenCheck.VERIFIED_PER_THREAD + 20; i++) {
      assertThat(plain.check(bearer(K1.sign(claims().put("jti", "t" + i))), KEYS, NOW)).isEqualTo(Outcome.VALID);
    }
    assertThat(TokenCheck.verifiedOnThisThread()).isEqualTo(TokenCheck.VERIFIED_PER_THREAD);
  }
}
