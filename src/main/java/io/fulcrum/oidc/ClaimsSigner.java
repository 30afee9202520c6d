package io.fulcrum.oidc;

import io.fulcrum.sticky.KeyRing;
import io.vertx.core.json.JsonObject;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECFieldFp;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.ECPublicKeySpec;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs the user claims that authenticate-oidc passes to targets ({@code x-amzn-oidc-data}): an
 * ES256 JSON Web Token whose header names the key ({@code kid}), the load balancer
 * ({@code signer}), the issuer and the client, as ALB's does, and whose payload is the user info
 * endpoint's claims with {@code iss} and {@code exp}. Like ALB's, its three parts are base64url
 * <em>with</em> padding, which code written for ALB expects.
 *
 * <p>Keys: one P-256 key per key of the stickiness key ring, derived from it (HMAC-SHA256 of the
 * ring key with a label of its own, as the private scalar), so every process sharing the key file
 * signs with the same key, a rotation brings a new one, and the control plane publishes the public
 * key of every {@code kid} in use at {@code GET /public-keys/<kid>}, as ALB's regional endpoint does.
 * Immutable; {@link #sign} may be called from any thread.
 */
public final class ClaimsSigner {

  private static final byte[] LABEL = "fulcrum x-amzn-oidc-data ES256".getBytes(StandardCharsets.US_ASCII);
  private static final Base64.Encoder PADDED = Base64.getUrlEncoder();
  private static final Map<KeyRing.Key, SigningKey> DERIVED = new ConcurrentHashMap<>();
  private static final ECParameterSpec P256 = p256();

  /** A signing key and the id tokens name it by. */
  public record SigningKey(String kid, ECPrivateKey privateKey, ECPublicKey publicKey) {
    /** The public key in PEM ({@code -----BEGIN PUBLIC KEY-----}), as ALB's key endpoint serves it. */
    public String pem() {
      String b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
          .encodeToString(publicKey.getEncoded());
      return "-----BEGIN PUBLIC KEY-----\n" + b64 + "\n-----END PUBLIC KEY-----\n";
    }

    @Override
    public String toString() {
      return "SigningKey[" + kid + "]";
    }
  }

  private final SigningKey newest;
  private final Map<String, SigningKey> byKid;

  private ClaimsSigner(List<SigningKey> keys) {
    this.newest = keys.get(0);
    Map<String, SigningKey> m = new LinkedHashMap<>();
    keys.forEach(k -> m.put(k.kid(), k));
    this.byKid = Map.copyOf(m);
  }

  /** The signer of a key ring: its newest key signs; every key's public half is published. */
  public static ClaimsSigner of(KeyRing ring) {
    return new ClaimsSigner(ring.keys().stream().map(k -> DERIVED.computeIfAbsent(k, ClaimsSigner::derive)).toList());
  }

  /** The key that signs. */
  public SigningKey newest() {
    return newest;
  }

  /** The key of {@code kid}, or null. */
  public SigningKey key(String kid) {
    return byKid.get(kid);
  }

  /**
   * The {@code x-amzn-oidc-data} value for a user's claims.
   *
   * @param signer       the load balancer's ARN
   * @param claims       the user info endpoint's JSON object
   * @param expiresAtSec the token's {@code exp}, in seconds
   */
  public String sign(String signer, String issuer, String clientId, String claims, long expiresAtSec) {
    JsonObject header = new JsonObject().put("alg", "ES256").put("kid", newest.kid()).put("signer", signer)
        .put("iss", issuer).put("client", clientId).put("exp", expiresAtSec);
    JsonObject payload = new JsonObject(claims).put("exp", expiresAtSec).put("iss", issuer);
    String signingInput = PADDED.encodeToString(header.encode().getBytes(StandardCharsets.UTF_8)) + '.'
        + PADDED.encodeToString(payload.encode().getBytes(StandardCharsets.UTF_8));
    try {
      Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
      s.initSign(newest.privateKey());
      s.update(signingInput.getBytes(StandardCharsets.US_ASCII));
      return signingInput + '.' + PADDED.encodeToString(s.sign());
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("signing the user claims failed", e);
    }
  }

  /** The P-256 key of a ring key: private scalar from HMAC-SHA256, public point computed, checked by a signature. */
  static SigningKey derive(KeyRing.Key ringKey) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(ringKey.secret(), "HmacSHA256"));
      BigInteger n = P256.getOrder();
      BigInteger d = new BigInteger(1, mac.doFinal(LABEL)).mod(n.subtract(BigInteger.ONE)).add(BigInteger.ONE);
      ECPoint q = multiply(P256.getGenerator(), d);
      KeyFactory kf = KeyFactory.getInstance("EC");
      ECPrivateKey priv = (ECPrivateKey) kf.generatePrivate(new ECPrivateKeySpec(d, P256));
      ECPublicKey pub = (ECPublicKey) kf.generatePublic(new ECPublicKeySpec(q, P256));
      Signature sign = Signature.getInstance("SHA256withECDSA");
      sign.initSign(priv);
      sign.update(LABEL);
      byte[] sig = sign.sign();
      Signature verify = Signature.getInstance("SHA256withECDSA");
      verify.initVerify(pub);
      verify.update(LABEL);
      if (!verify.verify(sig)) {
        throw new IllegalStateException("the derived P-256 public key does not match its private key");
      }
      return new SigningKey(UUID.nameUUIDFromBytes(pub.getEncoded()).toString(), priv, pub);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("deriving the claims signing key failed", e);
    }
  }

  private static ECParameterSpec p256() {
    try {
      AlgorithmParameters p = AlgorithmParameters.getInstance("EC");
      p.init(new ECGenParameterSpec("secp256r1"));
      return p.getParameterSpec(ECParameterSpec.class);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("P-256 is not available", e);
    }
  }

  /** {@code k·point} on P-256 (double and add, affine): run once per ring key, off the request path. */
  static ECPoint multiply(ECPoint point, BigInteger k) {
    ECPoint result = ECPoint.POINT_INFINITY;
    for (int i = k.bitLength() - 1; i >= 0; i--) {
      result = add(result, result);
      if (k.testBit(i)) {
        result = add(result, point);
      }
    }
    return result;
  }

  private static ECPoint add(ECPoint a, ECPoint b) {
    if (a.equals(ECPoint.POINT_INFINITY)) {
      return b;
    }
    if (b.equals(ECPoint.POINT_INFINITY)) {
      return a;
    }
    BigInteger p = ((ECFieldFp) P256.getCurve().getField()).getP();
    BigInteger lambda;
    if (a.getAffineX().equals(b.getAffineX())) {
      if (a.getAffineY().add(b.getAffineY()).mod(p).signum() == 0) {
        return ECPoint.POINT_INFINITY;
      }
      BigInteger x = a.getAffineX();
      lambda = x.multiply(x).multiply(BigInteger.valueOf(3)).add(P256.getCurve().getA())
          .multiply(a.getAffineY().shiftLeft(1).modInverse(p)).mod(p);
    } else {
      lambda = b.getAffineY().subtract(a.getAffineY())
          .multiply(b.getAffineX().subtract(a.getAffineX()).modInverse(p)).mod(p);
    }
    BigInteger x = lambda.multiply(lambda).subtract(a.getAffineX()).subtract(b.getAffineX()).mod(p);
    BigInteger y = lambda.multiply(a.getAffineX().subtract(x)).subtract(a.getAffineY()).mod(p);
    return new ECPoint(x, y);
  }
}
