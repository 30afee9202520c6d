package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.bus.FunctionReply;
import io.fulcrum.bus.FunctionRequest;
import io.fulcrum.bus.LambdaError;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The pure rules of the event and response formats (SPEC §6.1, §6.2), case by case. */
class AlbEventsTest {

  private static JsonObject event(String contentType, String contentEncoding, String body) throws Exception {
    List<Map.Entry<String, String>> headers = new java.util.ArrayList<>();
    if (contentType != null) {
      headers.add(Map.entry("Content-Type", contentType));
    }
    if (contentEncoding != null) {
      headers.add(Map.entry("Content-Encoding", contentEncoding));
    }
    return AlbEvents.event(new FunctionRequest("arn", "f", false, "POST", "/", null, headers, Buffer.buffer(body)));
  }

  @ParameterizedTest(name = "{0} -> base64 {1}")
  @CsvSource(nullValues = "none", value = {
      "text/plain, false", "TEXT/HTML; charset=utf-8, false", "text/csv, false", "application/json, false",
      "Application/JSON ; charset=UTF-8, false", "application/javascript, false", "application/xml, false",
      "application/xhtml+xml, true", "application/ld+json, true", "application/x-www-form-urlencoded, true",
      "image/png, true", "application/octet-stream, true", "none, true"})
  void bodyIsText_onlyForTextJsonJavascriptAndXml(String contentType, boolean base64) throws Exception {
    JsonObject e = event(contentType, null, "a=1");

    assertThat(e.getBoolean("isBase64Encoded")).isEqualTo(base64);
    assertThat(e.getString("body")).isEqualTo(base64 ? "YT0x" : "a=1");
  }

  @Test
  void anyContentEncoding_makesTheBodyBase64_evenIdentity() throws Exception {
    assertThat(event("application/json", "identity", "{}").getBoolean("isBase64Encoded")).isTrue();
  }

  @Test
  void queryString_keepsEmptyKeysAndValues_andSkipsEmptyParts() {
    assertThat(AlbEvents.query("&&a=1&b&=c&a=2&d=")).containsExactly(
        Map.entry("a", List.of("1", "2")), Map.entry("b", List.of("")), Map.entry("", List.of("c")),
        Map.entry("d", List.of("")));
    assertThat(AlbEvents.query(null)).isEmpty();
    assertThat(AlbEvents.query("")).isEmpty();
  }

  /**
   * A path and a query with bytes outside ASCII (UTF-8 sent raw, as clients do) are that text in the
   * event, as header values are; they were read one char per byte (café as cafÃ©).
   */
  @Test
  void pathAndQuery_withUtf8BytesOutsideAscii_areThatText() throws Exception {
    // As the listener reads a request line: one char per byte.
    String path = new String("/café".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    String query = new String("n=José&e=%C3%A9".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);

    JsonObject e = AlbEvents.event(new FunctionRequest("arn", "f", false, "GET", path, query, List.of(), null));

    assertThat(e.getString("path")).isEqualTo("/café");
    assertThat(e.getJsonObject("queryStringParameters").getString("n")).isEqualTo("José");
    assertThat(e.getJsonObject("queryStringParameters").getString("e")).as("not decoded").isEqualTo("%C3%A9");
  }

  /** A path or query whose bytes are not UTF-8 cannot be put in the event (502, {@code LambdaBadRequest}). */
  @ParameterizedTest(name = "path {0}, query {1}")
  @CsvSource(nullValues = "none", value = {"/caf\u00e9, none", "/, n=Jos\u00e9"})
  void pathOrQuery_thatIsNotUtf8_isRefused(String path, String query) {
    assertThatThrownBy(() -> AlbEvents.event(new FunctionRequest("arn", "f", false, "GET", path, query, List.of(), null)))
        .isInstanceOf(AlbEvents.NotUtf8Exception.class);
  }

  @Test
  void pseudoHeaders_areNotHeaders() throws Exception {
    JsonObject e = AlbEvents.event(new FunctionRequest("arn", "f", true, "GET", "/", null,
        List.of(Map.entry(":authority", "x"), Map.entry(":path", "/"), Map.entry("Accept", "*/*")), null));

    assertThat(e.getJsonObject("multiValueHeaders").fieldNames()).containsExactly("accept");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', nullValues = "none", value = {
      "200 OK | OK", "404 Not Found | Not Found", "Created | Created", "200  | none", "'' | none",
      "'200 Bad\u0001Phrase' | none", "none | none"})
  void statusDescription_becomesTheReasonPhrase(String description, String phrase) {
    assertThat(AlbEvents.reasonPhrase(description != null && description.startsWith("Created") ? 201
        : description != null && description.startsWith("404") ? 404 : 200, description)).isEqualTo(phrase);
  }

  @Test
  void responseOfExactlyTheLimit_isRead_andOneByteMoreIsTooLarge() {
    String prefix = "{\"statusCode\":200,\"body\":\"";
    String atLimit = prefix + "z".repeat(AlbEvents.MAX_RESPONSE_BYTES - prefix.length() - 2) + "\"}";

    assertThat(AlbEvents.response(Buffer.buffer(atLimit), false).ok()).isTrue();
    FunctionReply over = AlbEvents.response(Buffer.buffer(atLimit + " "), false);
    assertThat(over.error()).isEqualTo(LambdaError.RESPONSE_TOO_LARGE);
  }

  @Test
  void largeStatusNumber_isInvalid_notAnOverflow() {
    assertThat(AlbEvents.response(Buffer.buffer("{\"statusCode\":4294967496}"), false).error())
        .isEqualTo(LambdaError.INVALID_RESPONSE);
  }
}
