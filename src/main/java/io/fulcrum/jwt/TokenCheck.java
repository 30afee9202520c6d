package io.fulcrum.jwt;

import io.fulcrum.model.JwtValidation;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.Arrays;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One jwt-validation action compiled for requests: checks the {@code Authorization: Bearer} token of
 * a request as ALB does. The token is a JWS in compact form signed with RS256 by a key of the set;
 * {@code iss} must be the issuer and {@code exp} must be in the future; {@code nbf} and {@code iat},
 * when present, must not be; every additional claim must hold one of its values. Times allow
 * {@value #LEEWAY_SECONDS} s of clock difference with the issuer. Immutable; any thread.
 */
public final class TokenCheck {

  /** How far a token's times may be off the load balancer's clock (as Envoy's jwt_authn default). */
  public static final long LEEWAY_SECONDS = 60;
  private static final String BEARER = "bearer ";
  private static final ThreadLocal<Signature> RS256 = ThreadLocal.withInitial(() -> {
    try {
      return Signature.getInstance("SHA256withRSA");
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("the JDK lacks SHA256withRSA", e);
    }
  });

  /** How many tokens each thread (event loop) keeps as verified; the least recently used goes first. */
  static final int VERIFIED_PER_THREAD = 512;
  private static final ThreadLocal<Verified> VERIFIED = ThreadLocal.withInitial(Verified::new);

  private final String issuer;
  private final List<Wanted> claims;

  public TokenCheck(JwtValidation action) {
    this.issuer = action.issuer();
    this.claims = action.additionalClaims().stream()
        .map(c -> new Wanted(c.name(), c.format(), Set.copyOf(c.values()))).toList();
  }

  /** An additional claim, with its values as a set. */
  private record Wanted(String name, JwtValidation.ClaimFormat format, Set<String> values) {
  }

  /** A token this check found valid: with the same keys, it stays valid within its times. */
  private record Seen(TokenCheck check, String token) {
  }

  /**
   * Why a token was valid: the key set it verified with (identity: keys fetched again are judged
   * anew) and the times, leeway applied, between which it is (seconds since the epoch).
   */
  private record Validity(JwkSet keys, double from, double until) {
  }

  /**
   * The tokens verified on one thread, least recently used evicted first: a client sends the same
   * token for its life, and an RSA verification costs more than the rest of a proxied request.
   */
  private static final class Verified extends LinkedHashMap<Seen, Validity> {
    Verified() {
      super(64, 0.75f, true);
    }

    @Override
    protected boolean removeEldestEntry(Map.Entry<Seen, Validity> eldest) {
      return size() > VERIFIED_PER_THREAD;
    }
  }

  /** What a check found. Every outcome but {@link #VALID} refuses the request. */
  public enum Outcome {
    VALID("valid"),
    MISSING("no bearer token"),
    MALFORMED("not a signed JWT in compact form"),
    UNSUPPORTED_ALGORITHM("not signed with RS256"),
    UNKNOWN_KEY("signed by a key the JWKS does not hold"),
    BAD_SIGNATURE("signature does not verify"),
    WRONG_ISSUER("iss is not the issuer"),
    EXPIRED("exp has passed, or is missing"),
    NOT_YET_VALID("nbf is in the future"),
    ISSUED_IN_FUTURE("iat is in the future"),
    CLAIM_MISMATCH("an additional claim does not hold one of its values");

    private final String reason;

    Outcome(String reason) {
      this.reason = reason;
    }

    /** The outcome in words, for logs. */
    public String reason() {
      return reason;
    }
  }

  /**
   * Checks a request's token.
   *
   * @param authorization the request's {@code Authorization} header, or null
   * @param keys          the JWKS's keys
   * @param nowMillis     the load balancer's clock
   */
  public Outcome check(String authorization, JwkSet keys, long nowMillis) {
    String token = bearer(authorization);
    if (token == null) {
      return Outcome.MISSING;
    }
    Verified verified = VERIFIED.get();
    Seen seen = new Seen(this, token);
    Validity known = verified.get(seen);
    if (known != null) {
      double now = nowMillis / 1000.0;
      if (known.keys() == keys && now >= known.from() && now < known.until()) {
        return Outcome.VALID;
      }
      verified.remove(seen);
    }
    Verdict verdict = verify(token, keys, nowMillis);
    if (verdict.validity() != null) {
      verified.put(seen, verdict.validity());
    }
    return verdict.outcome();
  }

  /** A full check's outcome, with the token's validity when it is valid. */
  private record Verdict(Outcome outcome, Validity validity) {
    static final Map<Outcome, Verdict> REFUSED = new EnumMap<>(Outcome.class);

    static {
      for (Outcome o : Outcome.values()) {
        REFUSED.put(o, new Verdict(o, null));
      }
    }

    static Verdict of(Outcome refused) {
      return REFUSED.get(refused);
    }
  }

  private Verdict verify(String token, JwkSet keys, long nowMillis) {
    int first = token.indexOf('.');
    int second = first < 0 ? -1 : token.indexOf('.', first + 1);
    if (second < 0 || token.indexOf('.', second + 1) >= 0 || token.indexOf('=') >= 0) {
      return Verdict.of(Outcome.MALFORMED);
    }
    JsonObject header;
    JsonObject claimsSet;
    byte[] signature;
    try {
      Base64.Decoder b64 = Base64.getUrlDecoder();
      header = StrictJson.object(b64.decode(token.substring(0, first)));
      claimsSet = StrictJson.object(b64.decode(token.substring(first + 1, second)));
      signature = b64.decode(token.substring(second + 1));
    } catch (IllegalArgumentException e) {
      return Verdict.of(Outcome.MALFORMED);
    }
    // Only RS256; a "crit" header names extensions this check would have to understand (RFC 7515 §4.1.11).
    if (!"RS256".equals(header.getValue("alg")) || header.containsKey("crit")) {
      return Verdict.of(Outcome.UNSUPPORTED_ALGORITHM);
    }
    Object kid = header.getValue("kid");
    if (kid != null && !(kid instanceof String)) {
      return Verdict.of(Outcome.MALFORMED);
    }
    List<RSAPublicKey> candidates = keys.candidates((String) kid);
    if (candidates.isEmpty()) {
      return Verdict.of(Outcome.UNKNOWN_KEY);
    }
    byte[] signed = token.substring(0, second).getBytes(StandardCharsets.US_ASCII);
    if (!verifies(candidates, signed, signature)) {
      return Verdict.of(Outcome.BAD_SIGNATURE);
    }
    return claims(claimsSet, keys, nowMillis);
  }

  private static double number(Object value) {
    return value == null ? Double.NEGATIVE_INFINITY : ((Number) value).doubleValue();
  }

  private static String bearer(String authorization) {
    if (authorization == null || authorization.length() <= BEARER.length()
        || !authorization.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
      return null;
    }
    String token = authorization.substring(BEARER.length()).trim();
    return token.isEmpty() ? null : token;
  }

  private static boolean verifies(List<RSAPublicKey> candidates, byte[] signed, byte[] signature) {
    Signature rs256 = RS256.get();
    for (RSAPublicKey key : candidates) {
      try {
        rs256.initVerify(key);
        rs256.update(signed);
        if (rs256.verify(signature)) {
          return true;
        }
      } catch (GeneralSecurityException e) {
        // a signature of the wrong length for this key: not this one
      }
    }
    return false;
  }

  private Verdict claims(JsonObject c, JwkSet keys, long nowMillis) {
    if (!issuer.equals(c.getValue("iss"))) {
      return Verdict.of(Outcome.WRONG_ISSUER);
    }
    double now = nowMillis / 1000.0;
    Object exp = c.getValue("exp");
    Object nbf = c.getValue("nbf");
    Object iat = c.getValue("iat");
    if (!(exp instanceof Number) || nbf != null && !(nbf instanceof Number)
        || iat != null && !(iat instanceof Number)) {
      return Verdict.of(exp == null ? Outcome.EXPIRED : Outcome.MALFORMED);
    }
    if (now >= ((Number) exp).doubleValue() + LEEWAY_SECONDS) {
      return Verdict.of(Outcome.EXPIRED);
    }
    if (nbf != null && now + LEEWAY_SECONDS < ((Number) nbf).doubleValue()) {
      return Verdict.of(Outcome.NOT_YET_VALID);
    }
    if (iat != null && now + LEEWAY_SECONDS < ((Number) iat).doubleValue()) {
      return Verdict.of(Outcome.ISSUED_IN_FUTURE);
    }
    for (Wanted claim : claims) {
      if (!holds(claim.format(), claim.values(), c.getValue(claim.name()))) {
        return Verdict.of(Outcome.CLAIM_MISMATCH);
      }
    }
    double from = Math.max(number(nbf), number(iat)) - LEEWAY_SECONDS;
    return new Verdict(Outcome.VALID, new Validity(keys, from, ((Number) exp).doubleValue() + LEEWAY_SECONDS));
  }

  /** How many tokens the calling thread keeps as verified (for tests). */
  static int verifiedOnThisThread() {
    return VERIFIED.get().size();
  }

  /** Whether a claim's value, in the claim's format, holds one of the wanted values. */
  private static boolean holds(JwtValidation.ClaimFormat format, Set<String> wanted, Object value) {
    return switch (format) {
      case SINGLE_STRING -> value instanceof String s && wanted.contains(s);
      case STRING_ARRAY -> value instanceof JsonArray a && a.stream().anyMatch(wanted::contains);
      case SPACE_SEPARATED_VALUES -> value instanceof String s
          && Arrays.stream(s.split(" ")).anyMatch(wanted::contains);
    };
  }
}
