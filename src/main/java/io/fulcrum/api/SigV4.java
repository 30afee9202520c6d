package io.fulcrum.api;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4 verification for service {@code elasticloadbalancing}, header form
 * ({@code Authorization: AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...}).
 * A request that is unsigned, signed with an unknown key, signed wrongly or more than 15 minutes
 * away from now is refused with AWS's codes; signatures are compared in constant time.
 */
public final class SigV4 {

  public static final String SERVICE = "elasticloadbalancing";
  static final String ALGORITHM = "AWS4-HMAC-SHA256";
  static final Duration MAX_SKEW = Duration.ofMinutes(15);
  private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
      .withZone(ZoneOffset.UTC);

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
    Instant signedAt;
    try {
      signedAt = amzDate == null ? null : Instant.from(AMZ_DATE.parse(amzDate));
    } catch (DateTimeParseException e) {
      signedAt = null;
    }
    if (signedAt == null) {
      throw new ApiError("IncompleteSignature", "X-Amz-Date must be given as yyyyMMdd'T'HHmmss'Z'", 403);
    }
    if (Duration.between(signedAt, now).abs().compareTo(MAX_SKEW) > 0) {
      throw ApiError.sender("RequestExpired", "Request has expired: signed at " + amzDate + ", server time "
          + AMZ_DATE.format(now) + " (more than 15 minutes apart)");
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
    if (claimedHash != null && !claimedHash.equalsIgnoreCase(hex(sha256(r.body())))) {
      throw new ApiError("SignatureDoesNotMatch", "The provided 'x-amz-content-sha256' header does not match what was"
          + " computed.", 403);
    }
    String canonical = canonicalRequest(r, signed);
    String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + String.join("/", scope[1], scope[2], scope[3], scope[4])
        + "\n" + hex(sha256(canonical.getBytes(StandardCharsets.UTF_8)));
    byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), scope[1]);
    key = hmac(key, scope[2]);
    key = hmac(key, scope[3]);
    key = hmac(key, "aws4_request");
    byte[] expected = HexFormat.of().formatHex(hmac(key, stringToSign)).getBytes(StandardCharsets.US_ASCII);
    if (!MessageDigest.isEqual(expected, signature.toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII))) {
      throw new ApiError("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you"
          + " provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
          403);
    }
    return accessKey;
  }

  static String canonicalRequest(SignedRequest r, List<String> signedHeaders) {
    StringBuilder b = new StringBuilder();
    b.append(r.method()).append('\n');
    b.append(canonicalPath(r.path())).append('\n');
    b.append(canonicalQuery(r.rawQuery())).append('\n');
    for (String h : signedHeaders) {
      List<String> values = r.headers().getOrDefault(h, List.of());
      List<String> trimmed = new ArrayList<>();
      values.forEach(v -> trimmed.add(v.trim().replaceAll(" +", " ")));
      b.append(h).append(':').append(String.join(",", trimmed)).append('\n');
    }
    b.append('\n').append(String.join(";", signedHeaders)).append('\n');
    // The hash of the body received, never the one a header claims: a signature must cover the
    // body that is acted on (an unsigned payload is refused).
    b.append(hex(sha256(r.body())));
    return b.toString();
  }

  private static String canonicalPath(String path) {
    if (path == null || path.isEmpty()) {
      return "/";
    }
    StringBuilder b = new StringBuilder();
    for (String seg : path.split("/", -1)) {
      if (b.length() > 0 || path.startsWith("/")) {
        b.append('/');
      }
      b.append(encode(decode(seg)));
    }
    String s = b.toString();
    return s.startsWith("//") ? s.substring(1) : s;
  }

  private static String canonicalQuery(String raw) {
    if (raw == null || raw.isEmpty()) {
      return "";
    }
    List<String> pairs = new ArrayList<>();
    for (String p : raw.split("&")) {
      if (p.isEmpty()) {
        continue;
      }
      int eq = p.indexOf('=');
      String k = eq < 0 ? p : p.substring(0, eq);
      String v = eq < 0 ? "" : p.substring(eq + 1);
      pairs.add(encode(decode(k)) + "=" + encode(decode(v)));
    }
    Collections.sort(pairs);
    return String.join("&", pairs);
  }

  /** RFC 3986 unreserved characters stay; everything else is percent-encoded, upper-case hex. */
  static String encode(String s) {
    StringBuilder b = new StringBuilder();
    for (byte c : s.getBytes(StandardCharsets.UTF_8)) {
      if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
          || c == '~') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit((c >> 4) & 0xF, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return b.toString();
  }

  private static String decode(String s) {
    return io.netty.handler.codec.http.QueryStringDecoder.decodeComponent(s.replace("+", "%2B"), StandardCharsets.UTF_8);
  }

  static byte[] sha256(byte[] data) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(data);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  static String hex(byte[] b) {
    return HexFormat.of().formatHex(b);
  }

  /** Formats an instant as X-Amz-Date (tests sign requests with it). */
  public static String amzDate(Instant t) {
    return AMZ_DATE.format(t);
  }
}
