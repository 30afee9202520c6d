package io.fulcrum.testing;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;

/**
 * Signing keys and JSON Web Tokens for jwt-validation tests, made with the JDK alone (so the code
 * under test and the tokens share nothing but the standards).
 */
public final class TestJwts {

  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private TestJwts() {
  }

  /** An RSA signing key with its key id. */
  public record Key(String kid, KeyPair pair) {

    public static Key rsa(String kid) {
      return rsa(kid, 2048);
    }

    public static Key rsa(String kid, int bits) {
      try {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(bits);
        return new Key(kid, g.generateKeyPair());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }

    /** The public key as a JWK ({@code kty RSA}, {@code use sig}, {@code alg RS256}, with its kid if any). */
    public JsonObject jwk() {
      RSAPublicKey k = (RSAPublicKey) pair.getPublic();
      JsonObject jwk = new JsonObject().put("kty", "RSA").put("use", "sig").put("alg", "RS256")
          .put("n", unsigned(k.getModulus())).put("e", unsigned(k.getPublicExponent()));
      return kid == null ? jwk : jwk.put("kid", kid);
    }

    /** A compact JWS of {@code claims}, signed RS256, its header naming this key. */
    public String sign(JsonObject claims) {
      JsonObject header = new JsonObject().put("alg", "RS256").put("typ", "JWT");
      return sign(kid == null ? header : header.put("kid", kid), claims.encode());
    }

    /** A compact JWS with the header and payload as given (for malformed tokens). */
    public String sign(JsonObject header, String payload) {
      String signed = b64(header.encode()) + "." + b64(payload);
      try {
        Signature s = Signature.getInstance("SHA256withRSA");
        s.initSign(pair.getPrivate());
        s.update(signed.getBytes(StandardCharsets.US_ASCII));
        return signed + "." + B64.encodeToString(s.sign());
      } catch (GeneralSecurityException e) {
        throw new IllegalStateException(e);
      }
    }
  }

  /** A JWKS document holding the keys' public halves. */
  public static String jwks(Key... keys) {
    JsonArray list = new JsonArray();
    for (Key k : keys) {
      list.add(k.jwk());
    }
    return new JsonObject().put("keys", list).encode();
  }

  /** Claims from {@code issuer}, issued at {@code nowMillis} and good for an hour. */
  public static JsonObject claims(String issuer, long nowMillis) {
    long now = nowMillis / 1000;
    return new JsonObject().put("iss", issuer).put("sub", "client-1").put("iat", now).put("exp", now + 3600);
  }

  public static String b64(String text) {
    return B64.encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String unsigned(BigInteger n) {
    byte[] b = n.toByteArray();
    if (b.length > 1 && b[0] == 0) {
      b = java.util.Arrays.copyOfRange(b, 1, b.length);
    }
    return B64.encodeToString(b);
  }
}
