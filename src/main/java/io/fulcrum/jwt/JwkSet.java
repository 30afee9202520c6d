package io.fulcrum.jwt;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.RSAPublicKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The signing keys of a JSON Web Key Set (RFC 7517) that can verify an RS256 signature: RSA keys
 * whose {@code use} (if given) is {@code sig} and whose {@code alg} (if given) is {@code RS256}.
 * Other keys are passed over. ALB's limits hold: at most {@value #MAX_BYTES} bytes and
 * {@value #MAX_KEYS} keys in the set. Immutable and safe to share between threads.
 */
public final class JwkSet {

  public static final int MAX_BYTES = 150 * 1024;
  public static final int MAX_KEYS = 10;
  /** RSA keys shorter than this are refused: they are breakable. */
  static final int MIN_MODULUS_BITS = 2048;

  /** A set without keys: no token verifies. */
  public static final JwkSet EMPTY = new JwkSet(Map.of(), List.of());

  private final Map<String, RSAPublicKey> byId;
  private final List<RSAPublicKey> all;

  private JwkSet(Map<String, RSAPublicKey> byId, List<RSAPublicKey> all) {
    this.byId = Map.copyOf(byId);
    this.all = List.copyOf(all);
  }

  /**
   * Reads a JWKS document.
   *
   * @throws IllegalArgumentException saying what is wrong: not JSON, no {@code keys} array, over
   *                                  ALB's limits, a key id used twice, a malformed RSA key
   */
  public static JwkSet parse(byte[] document) {
    if (document.length > MAX_BYTES) {
      throw new IllegalArgumentException(document.length + " bytes is above the maximum " + MAX_BYTES);
    }
    JsonObject json = StrictJson.object(document);
    if (!(json.getValue("keys") instanceof JsonArray keys)) {
      throw new IllegalArgumentException("no \"keys\" array");
    }
    if (keys.size() > MAX_KEYS) {
      throw new IllegalArgumentException(keys.size() + " keys is above the maximum " + MAX_KEYS);
    }
    Map<String, RSAPublicKey> byId = new HashMap<>();
    List<RSAPublicKey> all = new ArrayList<>();
    for (int i = 0; i < keys.size(); i++) {
      if (!(keys.getValue(i) instanceof JsonObject jwk)) {
        throw new IllegalArgumentException("key " + (i + 1) + " is not an object");
      }
      if (!"RSA".equals(jwk.getValue("kty")) || !optional(jwk, "use", "sig") || !optional(jwk, "alg", "RS256")) {
        continue;
      }
      RSAPublicKey key = rsa(jwk, i + 1);
      Object kid = jwk.getValue("kid");
      if (kid instanceof String id && byId.put(id, key) != null) {
        throw new IllegalArgumentException("key id '" + id + "' is used by two keys");
      }
      all.add(key);
    }
    return new JwkSet(byId, all);
  }

  private static boolean optional(JsonObject jwk, String member, String expected) {
    Object v = jwk.getValue(member);
    return v == null || expected.equals(v);
  }

  private static RSAPublicKey rsa(JsonObject jwk, int n) {
    try {
      BigInteger modulus = unsigned(jwk.getValue("n"));
      BigInteger exponent = unsigned(jwk.getValue("e"));
      if (modulus.bitLength() < MIN_MODULUS_BITS) {
        throw new IllegalArgumentException("a " + modulus.bitLength() + "-bit modulus is below the minimum "
            + MIN_MODULUS_BITS);
      }
      return (RSAPublicKey) KeyFactory.getInstance("RSA").generatePublic(new RSAPublicKeySpec(modulus, exponent));
    } catch (IllegalArgumentException | GeneralSecurityException e) {
      throw new IllegalArgumentException("key " + n + " is not a valid RSA key: " + e.getMessage(), e);
    }
  }

  private static BigInteger unsigned(Object base64url) {
    if (!(base64url instanceof String s) || s.isEmpty() || s.indexOf('=') >= 0) {
      throw new IllegalArgumentException("n and e must be unpadded base64url strings");
    }
    return new BigInteger(1, Base64.getUrlDecoder().decode(s));
  }

  /**
   * The keys that may have signed a token with key id {@code kid}: that key (none when the set has
   * no such id), or every key when the token names none.
   */
  List<RSAPublicKey> candidates(String kid) {
    if (kid == null) {
      return all;
    }
    RSAPublicKey key = byId.get(kid);
    return key == null ? List.of() : List.of(key);
  }

  /** Whether {@code other} holds the same keys under the same ids. */
  public boolean sameKeys(JwkSet other) {
    return all.equals(other.all) && byId.equals(other.byId);
  }

  /** The set in words, for the journal: how many signing keys, and their ids. */
  public String describe() {
    List<String> ids = byId.keySet().stream().sorted().toList();
    return all.size() + " RS256 signing key" + (all.size() == 1 ? "" : "s")
        + (ids.isEmpty() ? "" : " (" + String.join(", ", ids) + ")");
  }

  /** How many usable keys the set holds. */
  public int size() {
    return all.size();
  }
}
