package io.fulcrum.bench;

import io.fulcrum.jwt.JwkSet;
import io.fulcrum.jwt.TokenCheck;
import io.fulcrum.model.JwtValidation;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.Signature;
import java.security.interfaces.RSAPublicKey;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A jwt-validation action's check of one request's bearer token (RS256, 2,048-bit key): a token
 * seen before on the thread (the usual case: a client sends the same token for its life), and a
 * token never seen (the full parse and RSA verification), each time a different one.
 */
@State(org.openjdk.jmh.annotations.Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TokenCheckBenchmark {

  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final int FRESH = 4096;

  private TokenCheck check;
  private JwkSet keys;
  private String known;
  private String[] fresh;
  private int next;
  private long now;

  @Setup
  public void setUp() throws Exception {
    KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
    g.initialize(2048);
    KeyPair pair = g.generateKeyPair();
    RSAPublicKey pub = (RSAPublicKey) pair.getPublic();
    keys = JwkSet.parse(("{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"k1\",\"n\":\"" + unsigned(pub.getModulus())
        + "\",\"e\":\"" + unsigned(pub.getPublicExponent()) + "\"}]}").getBytes(StandardCharsets.UTF_8));
    check = new TokenCheck(new JwtValidation("https://idp/jwks", "https://idp", List.of(new JwtValidation.Claim(
        "scope", JwtValidation.ClaimFormat.SPACE_SEPARATED_VALUES, List.of("orders:read")))));
    now = System.currentTimeMillis();
    known = "Bearer " + token(pair, 0);
    // More distinct tokens than a thread keeps, so that each one is verified afresh.
    fresh = new String[FRESH];
    for (int i = 0; i < FRESH; i++) {
      fresh[i] = "Bearer " + token(pair, i + 1);
    }
  }

  private String token(KeyPair pair, int n) throws Exception {
    long s = now / 1000;
    String claims = "{\"iss\":\"https://idp\",\"sub\":\"client-" + n + "\",\"scope\":\"profile orders:read\","
        + "\"iat\":" + s + ",\"exp\":" + (s + 3600) + "}";
    String signed = B64.encodeToString("{\"alg\":\"RS256\",\"kid\":\"k1\"}".getBytes(StandardCharsets.UTF_8)) + "."
        + B64.encodeToString(claims.getBytes(StandardCharsets.UTF_8));
    Signature sig = Signature.getInstance("SHA256withRSA");
    sig.initSign(pair.getPrivate());
    sig.update(signed.getBytes(StandardCharsets.US_ASCII));
    return signed + "." + B64.encodeToString(sig.sign());
  }

  private static String unsigned(BigInteger n) {
    byte[] b = n.toByteArray();
    return B64.encodeToString(b[0] == 0 ? java.util.Arrays.copyOfRange(b, 1, b.length) : b);
  }

  @Benchmark
  public TokenCheck.Outcome tokenSeenBefore() {
    return check.check(known, keys, now);
  }

  @Benchmark
  public TokenCheck.Outcome tokenNeverSeen() {
    String token = fresh[next];
    next = (next + 1) % FRESH;
    return check.check(token, keys, now);
  }
}
