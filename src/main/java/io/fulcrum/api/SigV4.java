package io.fulcrum.api;

import io.fulcrum.sigv4.SigV4Signature;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * AWS Signature Version 4 verification for service {@code elasticloadbalancing}, header form
 * ({@code Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...}; the
 * algorithm is {@link SigV4Signature}'s).
 * A request that is unsigned, signed with an unknown key, signed wrongly or more than 15 minutes
 * away from now is refused with AWS's codes; signatures are compared in constant time.
 */
public final class SigV4 {

  public static final String SERVICE = "elasticloadbalancing";
  static final String ALGORITHM = SigV4Signature.ALGORITHM;
  static final Duration MAX_SKEW = Duration.ofMinutes(15);

  private final Map<String, String> secrets;
  private final String region;

  /**
   * @param secrets secret access keys by access key id
   * @param region  the region a credential scope must name
   */
  public SigV4(Map<String, String> secrets, String region) {
    this.secrets = Map.copyOf(secrets);
    this.region = region;
  }

  /** What a request carries that the signature covers. */
  public record SignedRequest(String method, String path, String rawQuery, Map<String, List<String>> headers,
      byte[] body) {
    String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null || v.isEmpty() ? null : v.get(0);
    }
  }

  /**
   * Verifies a request's signature.
   *
   * @return the access key id that signed it
   * @throws ApiError {@code MissingAuthenticationToken}, {@code IncompleteSignature},
   *                  {@code InvalidClientTokenId}, {@code SignatureDoesNotMatch} (403) or
   *                  {@code RequestExpired} (400)
   */
  public String verify(SignedRequest r, Instant now) {
    String auth = r.header("authorization");
    if (auth == null) {
      throw new ApiError("MissingAuthenticationToken", "Request is missing Authentication Token", 403);
    }
    if (!auth.startsWith(ALGORITHM + " ")) {
      throw new ApiError("IncompleteSignature", "Unsupported authorization algorithm (expected " + ALGORITHM + ")", 403);
    }
    Map<String, String> parts = new TreeMap<>();
    for (String p : auth.substring(ALGORITHM.length() + 1).split(",")) {
      int eq = p.indexOf('=');
      if (eq > 0) {
        parts.put(p.substring(0, eq).trim(), p.substring(eq + 1).trim());
      }
    }
    String credential = parts.get("Credential");
    String signedHeaders = parts.get("SignedHeaders");
    String signature = parts.get("Signature");
    if (credential == null || signedHeaders == null || signature == null) {
      throw new ApiError("IncompleteSignature",
          "Authorization header requires 'Credential', 'SignedHeaders' and 'Signature' parameters", 403);
    }
    String[] scope = credential.split("/");
    if (scope.length != 5 || !scope[4].equals("aws4_request")) {
      throw new ApiError("IncompleteSignature", "Credential is not of the form <key>/<date>/<region>/<service>/aws4_request", 403);
    }
    String accessKey = scope[0];
    String secret = secrets.get(accessKey);
    if (secret == null) {
      throw new ApiError("InvalidClientTokenId", "The security token included in the request is invalid.", 403);
    }
    String amzDate = r.header("x-amz-date");
    Instant signedAt = SigV4Signature.parseAmzDate(amzDate);
    if (signedAt == null) {
      throw new ApiError("IncompleteSignature", "X-Amz-Date must be given as yyyyMMdd'T'HHmmss'Z'", 403);
    }
    if (Duration.between(signedAt, now).abs().compareTo(MAX_SKEW) > 0) {
      throw ApiError.sender("RequestExpired", "Request has expired: signed at " + amzDate + ", server time "
          + SigV4Signature.amzDate(now) + " (more than 15 minutes apart)");
    }
    if (!scope[1].equals(amzDate.substring(0, 8))) {
      throw new ApiError("SignatureDoesNotMatch", "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of"
          + " date from HTTP: '" + scope[1] + "' != '" + amzDate.substring(0, 8) + "'", 403);
    }
    if (!scope[2].equals(region)) {
      throw new ApiError("SignatureDoesNotMatch", "Credential should be scoped to a valid region, not '" + scope[2] + "'. ",
          403);
    }
    if (!scope[3].equals(SERVICE)) {
      throw new ApiError("SignatureDoesNotMatch", "Credential should be scoped to correct service: '" + SERVICE + "'. ", 403);
    }
    List<String> signed = List.of(signedHeaders.split(";"));
    if (!signed.contains("host")) {
      throw new ApiError("SignatureDoesNotMatch", "'Host' must be a 'SignedHeader' in the AWS Authorization.", 403);
    }
    String claimedHash = r.header("x-amz-content-sha256");
    if (claimedHash != null && !claimedHash.equalsIgnoreCase(SigV4Signature.sha256Hex(r.body()))) {
      throw new ApiError("SignatureDoesNotMatch", "The provided 'x-amz-content-sha256' header does not match what was"
          + " computed.", 403);
    }
    String canonical = SigV4Signature.canonicalRequest(
        new SigV4Signature.Request(r.method(), r.path(), r.rawQuery(), r.headers(), r.body()), signed);
    byte[] expected = SigV4Signature.signature(secret, amzDate, scope[2], scope[3], canonical)
        .getBytes(StandardCharsets.US_ASCII);
    if (!MessageDigest.isEqual(expected, signature.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII))) {
      throw new ApiError("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you"
          + " provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
          403);
    }
    return accessKey;
  }

  /** Formats an instant as X-Amz-Date (tests sign requests with it). */
  public static String amzDate(Instant t) {
    return SigV4Signature.amzDate(t);
  }
}
