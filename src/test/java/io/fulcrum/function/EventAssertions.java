package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeSet;

/**
 * Compares ALB events field by field against golden files ({@code src/test/resources/lambda/golden}),
 * naming the path of the first field that differs. In a golden file, {@code ${name}} stands for a
 * value of the run (the listener port, the target group ARN), and the value {@code ${traceId}} for
 * any trace id ALB would generate ({@code Root=1-<8 hex>-<24 hex>}).
 */
final class EventAssertions {

  static final String TRACE_ID = "${traceId}";
  static final String TRACE_ID_PATTERN = "Root=1-[0-9a-f]{8}-[0-9a-f]{24}";

  private EventAssertions() {
  }

  /** A golden event with its placeholders replaced. */
  static JsonObject golden(String name, Map<String, String> values) {
    try (InputStream in = EventAssertions.class.getResourceAsStream("/lambda/golden/" + name + ".json")) {
      assertThat(in).as("golden file " + name).isNotNull();
      String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
      for (Map.Entry<String, String> e : values.entrySet()) {
        text = text.replace("${" + e.getKey() + "}", e.getValue());
      }
      return new JsonObject(text);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static void assertSameEvent(JsonObject expected, JsonObject actual) {
    compare("event", expected, actual);
  }

  private static void compare(String path, Object expected, Object actual) {
    if (expected instanceof JsonObject e) {
      assertThat(actual).as(path + " is an object").isInstanceOf(JsonObject.class);
      JsonObject a = (JsonObject) actual;
      assertThat(new TreeSet<>(a.fieldNames())).as(path + ": its fields").isEqualTo(new TreeSet<>(e.fieldNames()));
      for (String key : e.fieldNames()) {
        compare(path + "." + key, e.getValue(key), a.getValue(key));
      }
    } else if (expected instanceof JsonArray e) {
      assertThat(actual).as(path + " is a list").isInstanceOf(JsonArray.class);
      JsonArray a = (JsonArray) actual;
      assertThat(a.size()).as(path + ": its length (" + a + ")").isEqualTo(e.size());
      for (int i = 0; i < e.size(); i++) {
        compare(path + "[" + i + "]", e.getValue(i), a.getValue(i));
      }
    } else if (TRACE_ID.equals(expected)) {
      assertThat(actual).as(path).isInstanceOf(String.class);
      assertThat((String) actual).as(path).matches(TRACE_ID_PATTERN);
    } else {
      assertThat(actual).as(path).isEqualTo(expected);
    }
  }
}
