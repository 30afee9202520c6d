package io.fulcrum.jwt;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a JSON object as security-sensitive input must be read: a member name given twice is an
 * error (a lenient parser keeps one of them, and a token's reader and its signer could disagree on
 * which), and so is anything after the object.
 */
public final class StrictJson {

  private static final JsonFactory FACTORY = JsonFactory.builder()
      .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
      .build();

  private StrictJson() {
  }

  /** @throws IllegalArgumentException when {@code bytes} is not exactly one JSON object */
  public static JsonObject object(byte[] bytes) {
    try (JsonParser p = FACTORY.createParser(bytes)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IllegalArgumentException("not a JSON object");
      }
      Map<String, Object> map = object(p);
      if (p.nextToken() != null) {
        throw new IllegalArgumentException("text after the JSON object");
      }
      return new JsonObject(map);
    } catch (JsonProcessingException e) {
      throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage(), e);
    } catch (IOException e) {
      throw new IllegalArgumentException("not valid JSON: " + e.getMessage(), e);
    }
  }

  private static Map<String, Object> object(JsonParser p) throws IOException {
    Map<String, Object> out = new LinkedHashMap<>();
    for (JsonToken t = p.nextToken(); t != JsonToken.END_OBJECT; t = p.nextToken()) {
      String name = p.currentName();
      out.put(name, value(p, p.nextToken()));
    }
    return out;
  }

  private static Object value(JsonParser p, JsonToken t) throws IOException {
    return switch (t) {
      case START_OBJECT -> object(p);
      case START_ARRAY -> {
        List<Object> list = new ArrayList<>();
        for (JsonToken e = p.nextToken(); e != JsonToken.END_ARRAY; e = p.nextToken()) {
          list.add(value(p, e));
        }
        yield list;
      }
      case VALUE_STRING -> p.getText();
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> p.getNumberValue();
      case VALUE_TRUE -> Boolean.TRUE;
      case VALUE_FALSE -> Boolean.FALSE;
      case VALUE_NULL -> null;
      default -> throw new IllegalArgumentException("unexpected JSON token " + t);
    };
  }
}
