package io.fulcrum.function;

import io.fulcrum.bus.FunctionReply;
import io.fulcrum.bus.FunctionRequest;
import io.fulcrum.bus.LambdaError;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The ALB event format (SPEC §6): a request as the event a Lambda function receives, and the
 * function's response JSON as an HTTP response, checked the way ALB checks it. Stateless and
 * thread-safe.
 */
public final class AlbEvents {

  /** ALB's limit on a function's response JSON (SPEC §6.3): 1 MB. */
  public static final int MAX_RESPONSE_BYTES = 1024 * 1024;

  /** Content types whose bodies go into the event as text (SPEC §6.1); any other is base64-encoded. */
  private static final Set<String> TEXT_TYPES = Set.of("application/json", "application/javascript", "application/xml");

  /** Response headers ALB does not pass on (SPEC §6.2): hop-by-hop ones, and Content-Length, which it computes. */
  private static final Set<String> DROPPED = Set.of("connection", "keep-alive", "proxy-connection", "te", "trailer",
      "transfer-encoding", "upgrade", "content-length");

  private AlbEvents() {
  }

  /** A request whose headers or text body are not UTF-8 (ALB: {@code LambdaBadRequest}). */
  public static final class NotUtf8Exception extends Exception {
    NotUtf8Exception(String what) {
      super(what + " is not valid UTF-8");
    }
  }

  /**
   * The event for a request (SPEC §6.1): header names lower-cased; query keys and values as the
   * client sent them; with multi-value headers off the last value of a repeated header or query key
   * wins, with them on every value is kept in order; the body as text for text/*, JSON, JavaScript
   * and XML without a Content-Encoding, base64 otherwise.
   *
   * @throws NotUtf8Exception when the path, the query, a header value or a text body is not UTF-8
   */
  public static JsonObject event(FunctionRequest r) throws NotUtf8Exception {
    Map<String, List<String>> headers = new LinkedHashMap<>();
    String contentType = null;
    boolean contentEncoding = false;
    for (Map.Entry<String, String> h : r.headers()) {
      String name = h.getKey().toLowerCase(Locale.ROOT);
      if (name.startsWith(":")) {
        // HTTP/2 pseudo-headers are not headers.
        continue;
      }
      String value = utf8(h.getValue(), "the value of header " + name);
      headers.computeIfAbsent(name, k -> new ArrayList<>()).add(value);
      if (name.equals("content-type")) {
        contentType = value;
      } else if (name.equals("content-encoding")) {
        contentEncoding = true;
      }
    }
    Map<String, List<String>> query = query(r.rawQuery() == null ? null : utf8(r.rawQuery(), "the query"));

    JsonObject event = new JsonObject()
        .put("requestContext", new JsonObject().put("elb", new JsonObject().put("targetGroupArn", r.targetGroupArn())))
        .put("httpMethod", r.method())
        .put("path", utf8(r.path(), "the path"));
    if (r.multiValueHeaders()) {
      event.put("multiValueQueryStringParameters", multi(query));
      event.put("multiValueHeaders", multi(headers));
    } else {
      event.put("queryStringParameters", last(query));
      event.put("headers", last(headers));
    }
    Buffer body = r.body();
    if (body.length() == 0) {
      event.put("body", "").put("isBase64Encoded", false);
    } else if (!contentEncoding && isText(contentType)) {
      event.put("body", utf8(body.getBytes(), "the body")).put("isBase64Encoded", false);
    } else {
      event.put("body", Base64.getEncoder().encodeToString(body.getBytes())).put("isBase64Encoded", true);
    }
    return event;
  }

  /** The raw query's keys and values, undecoded, in order ({@code a&b=} gives {@code a: "", b: ""}). */
  static Map<String, List<String>> query(String rawQuery) {
    Map<String, List<String>> out = new LinkedHashMap<>();
    if (rawQuery == null || rawQuery.isEmpty()) {
      return out;
    }
    for (String part : rawQuery.split("&")) {
      if (part.isEmpty()) {
        continue;
      }
      int eq = part.indexOf('=');
      String key = eq < 0 ? part : part.substring(0, eq);
      String value = eq < 0 ? "" : part.substring(eq + 1);
      out.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
    }
    return out;
  }

  static boolean isText(String contentType) {
    if (contentType == null) {
      return false;
    }
    int semi = contentType.indexOf(';');
    String type = (semi < 0 ? contentType : contentType.substring(0, semi)).trim().toLowerCase(Locale.ROOT);
    return type.startsWith("text/") || TEXT_TYPES.contains(type);
  }

  private static JsonObject last(Map<String, List<String>> values) {
    JsonObject o = new JsonObject();
    values.forEach((k, v) -> o.put(k, v.get(v.size() - 1)));
    return o;
  }

  private static JsonObject multi(Map<String, List<String>> values) {
    JsonObject o = new JsonObject();
    values.forEach((k, v) -> o.put(k, new JsonArray(new ArrayList<>(v))));
    return o;
  }

  /** A header value, path or query as the listener decoded it (ISO-8859-1), read again as the UTF-8 bytes it was. */
  private static String utf8(String latin1, String what) throws NotUtf8Exception {
    for (int i = 0; i < latin1.length(); i++) {
      if (latin1.charAt(i) >= 0x80) {
        return utf8(latin1.getBytes(StandardCharsets.ISO_8859_1), what);
      }
    }
    return latin1;
  }

  private static String utf8(byte[] bytes, String what) throws NotUtf8Exception {
    try {
      return StandardCharsets.UTF_8.newDecoder()
          .onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT)
          .decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new NotUtf8Exception(what);
    }
  }

  /**
   * Turns a function's response JSON into the client's response (SPEC §6.2), or the error ALB
   * answers with (SPEC §6.3): larger than 1 MB, not a JSON object, no numeric {@code statusCode},
   * a field present as {@code null}, a field of the wrong type, a header value that is not a
   * string, or a body that is not base64 when {@code isBase64Encoded} says it is. With multi-value
   * headers on, {@code multiValueHeaders} is read and {@code headers} ignored, and the other way
   * round. Hop-by-hop headers and Content-Length are dropped.
   */
  public static FunctionReply response(Buffer json, boolean multiValueHeaders) {
    if (json.length() > MAX_RESPONSE_BYTES) {
      return FunctionReply.failed(LambdaError.RESPONSE_TOO_LARGE);
    }
    try {
      return parse(json, multiValueHeaders);
    } catch (InvalidResponse | DecodeException | IllegalArgumentException | ClassCastException e) {
      return FunctionReply.failed(LambdaError.INVALID_RESPONSE);
    }
  }

  private static final class InvalidResponse extends Exception {
    InvalidResponse(String why) {
      super(why, null, false, false);
    }
  }

  private static FunctionReply parse(Buffer json, boolean multiValueHeaders) throws InvalidResponse {
    Object doc = Json.decodeValue(json);
    if (!(doc instanceof JsonObject o)) {
      throw new InvalidResponse("not a JSON object");
    }
    for (String field : List.of("statusCode", "statusDescription", "isBase64Encoded", "headers", "multiValueHeaders",
        "body")) {
      if (o.containsKey(field) && o.getValue(field) == null) {
        throw new InvalidResponse(field + " is null");
      }
    }
    Object code = o.getValue("statusCode");
    if (!(code instanceof Integer || code instanceof Long)) {
      throw new InvalidResponse("no numeric statusCode");
    }
    long status = ((Number) code).longValue();
    if (status < 200 || status > 599) {
      throw new InvalidResponse("statusCode " + status + " is not a final HTTP status");
    }
    String description = (String) o.getValue("statusDescription");
    Object base64 = o.getValue("isBase64Encoded", false);
    if (!(base64 instanceof Boolean)) {
      throw new InvalidResponse("isBase64Encoded is not a boolean");
    }
    String bodyText = (String) o.getValue("body", "");

    List<Map.Entry<String, String>> headers = new ArrayList<>();
    if (multiValueHeaders) {
      Object m = o.getValue("multiValueHeaders");
      if (m != null) {
        for (Map.Entry<String, Object> e : ((JsonObject) m)) {
          if (!(e.getValue() instanceof JsonArray values)) {
            throw new InvalidResponse("multiValueHeaders." + e.getKey() + " is not a list");
          }
          for (Object v : values) {
            header(headers, e.getKey(), v);
          }
        }
      }
    } else {
      Object h = o.getValue("headers");
      if (h != null) {
        for (Map.Entry<String, Object> e : ((JsonObject) h)) {
          header(headers, e.getKey(), e.getValue());
        }
      }
    }
    Buffer body = (Boolean) base64 ? Buffer.buffer(Base64.getDecoder().decode(bodyText)) : Buffer.buffer(bodyText);
    if (body.length() > 0 && headers.stream().noneMatch(e -> e.getKey().equalsIgnoreCase("content-type"))) {
      headers.add(Map.entry("Content-Type", "application/octet-stream"));
    }
    return new FunctionReply(null, (int) status, reasonPhrase((int) status, description), headers, body, 0);
  }

  private static void header(List<Map.Entry<String, String>> out, String name, Object value) throws InvalidResponse {
    if (!(value instanceof String v)) {
      throw new InvalidResponse("header " + name + " is not a string");
    }
    if (!token(name) || !fieldValue(v)) {
      throw new InvalidResponse("header " + name + " is not a valid HTTP header");
    }
    if (!DROPPED.contains(name.toLowerCase(Locale.ROOT))) {
      out.add(Map.entry(name, wire(v)));
    }
  }

  /** A value as the chars whose codes are its UTF-8 bytes: Netty writes each char of a header as one byte. */
  private static String wire(String v) {
    for (int i = 0; i < v.length(); i++) {
      if (v.charAt(i) >= 0x80) {
        return new String(v.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
      }
    }
    return v;
  }

  /** The reason phrase from {@code statusDescription} ({@code "200 OK"} gives {@code OK}), or null. */
  static String reasonPhrase(int status, String description) {
    if (description == null) {
      return null;
    }
    String code = Integer.toString(status);
    String phrase = description.strip();
    if (phrase.equals(code)) {
      return null;
    }
    if (phrase.startsWith(code + " ")) {
      phrase = phrase.substring(code.length() + 1).strip();
    }
    return phrase.isEmpty() || !phrase.chars().allMatch(c -> c == '\t' || c >= ' ' && c < 0x7f) ? null : phrase;
  }

  private static boolean token(String name) {
    if (name.isEmpty()) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c <= ' ' || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean fieldValue(String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < ' ' && c != '\t' || c == 0x7f) {
        return false;
      }
    }
    return true;
  }
}
