package io.fulcrum.sigv4;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * AWS Signature Version 4, header form ({@code Authorization: AWS4-HMAC-SHA256 Credential=...,
 * SignedHeaders=..., Signature=...}): the canonical request, the string to sign and the signature,
 * shared by the ELBv2 API, which verifies what clients sign, and the Lambda Invoke client, which
 * signs its own requests. Stateless.
 */
public final class SigV4Signature {

  public static final String ALGORITHM = "AWS4-HMAC-SHA256";
  private static final DateTimeFormatter AMZ_DATE = DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'")
      .withZone(ZoneOffset.UTC);

  private SigV4Signature() {
  }

  /**
   * What a signature covers.
   *
   * @param headers by lower-case name
   */
  public record Request(String method, String path, String rawQuery, Map<String, List<String>> headers, byte[] body) {
  }

  /** Credentials to sign with; {@code sessionToken} is null for long-term keys. */
  public record Credentials(String accessKeyId, String secretAccessKey, String sessionToken) {
    @Override
    public String toString() {
      return "Credentials[" + accessKeyId + ", secret hidden" + (sessionToken == null ? "" : ", session token") + "]";
    }
  }

  /**
   * Signs {@code r}, which carries every header it will be sent with but the ones returned:
   * {@code X-Amz-Date}, {@code X-Amz-Security-Token} (with a session token) and
   * {@code Authorization}, in that order. Every header of {@code r} is signed, {@code host}
   * included (it must be there).
   */
  public static Map<String, String> sign(Request r, Credentials credentials, String region, String service,
      Instant now) {
    String amzDate = amzDate(now);
    Map<String, String> added = new LinkedHashMap<>();
    added.put("X-Amz-Date", amzDate);
    if (credentials.sessionToken() != null) {
      added.put("X-Amz-Security-Token", credentials.sessionToken());
    }
    Map<String, List<String>> all = new TreeMap<>(r.headers());
    added.forEach((k, v) -> all.put(k.toLowerCase(Locale.ROOT), List.of(v)));
    if (!all.containsKey("host")) {
      throw new IllegalArgumentException("a signed request names its host");
    }
    List<String> signed = new ArrayList<>(all.keySet());
    String canonical = canonicalRequest(new Request(r.method(), r.path(), r.rawQuery(), all, r.body()), signed);
    String date = amzDate.substring(0, 8);
    String scope = String.join("/", date, region, service, "aws4_request");
    added.put("Authorization", ALGORITHM + " Credential=" + credentials.accessKeyId() + "/" + scope + ", SignedHeaders="
        + String.join(";", signed) + ", Signature="
        + signature(credentials.secretAccessKey(), amzDate, region, service, canonical));
    return added;
  }

  /** The signature (hex) of a canonical request made at {@code amzDate} in the given scope. */
  public static String signature(String secret, String amzDate, String region, String service, String canonical) {
    String date = amzDate.substring(0, 8);
    String stringToSign = ALGORITHM + "\n" + amzDate + "\n" + String.join("/", date, region, service, "aws4_request")
        + "\n" + sha256Hex(canonical.getBytes(StandardCharsets.UTF_8));
    byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), date);
    key = hmac(key, region);
    key = hmac(key, service);
    key = hmac(key, "aws4_request");
    return HexFormat.of().formatHex(hmac(key, stringToSign));
  }

  /** The canonical request, over {@code signedHeaders} (lower case, in order) and the body as it is. */
  public static String canonicalRequest(Request r, List<String> signedHeaders) {
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
    // The hash of the body itself, never one a header claims: a signature covers the body acted on.
    b.append(sha256Hex(r.body()));
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
  public static String encode(String s) {
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
    return io.netty.handler.codec.http.QueryStringDecoder.decodeComponent(s.replace("+", "%2B"),
        StandardCharsets.UTF_8);
  }

  public static String sha256Hex(byte[] data) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(data));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] hmac(byte[] key, String data) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  /** An instant as {@code X-Amz-Date} writes it. */
  public static String amzDate(Instant t) {
    return AMZ_DATE.format(t);
  }

  /** An {@code X-Amz-Date} value, or null when it is not one. */
  public static Instant parseAmzDate(String value) {
    try {
      return value == null ? null : Instant.from(AMZ_DATE.parse(value));
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
