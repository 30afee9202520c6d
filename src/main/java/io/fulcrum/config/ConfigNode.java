package io.fulcrum.config;

import io.fulcrum.model.Problems;
import io.fulcrum.model.WireEnum;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A typed reader over one object of the config file. Every read records a problem at the key's
 * path when the value has the wrong type; {@link #finish(String...)} reports keys nobody read, so
 * a misspelt key is an error rather than a silently ignored line.
 */
final class ConfigNode {

  private final JsonObject json;
  private final Problems problems;
  private final Set<String> read = new LinkedHashSet<>();

  ConfigNode(JsonObject json, Problems problems) {
    this.json = json == null ? new JsonObject() : json;
    this.problems = problems;
  }

  Problems problems() {
    return problems;
  }

  Problems at(String key) {
    return problems.at(key);
  }

  /**
   * Whether {@code key} has a value that is not null. A required key without one is missing, while
   * one whose value a reader refused has its problem already ("expected an integer, found 8080.5")
   * and needs no second ("a port is required").
   */
  boolean has(String key) {
    read.add(key);
    return json.getValue(key) != null;
  }

  String string(String key, String def) {
    read.add(key);
    Object v = json.getValue(key);
    if (v == null) {
      return def;
    }
    if (v instanceof String s) {
      return s;
    }
    if (v instanceof Number || v instanceof Boolean) {
      return v.toString();
    }
    problems.at(key).add("expected a string, found " + describe(v));
    return def;
  }

  Integer integer(String key, Integer def) {
    read.add(key);
    Object v = json.getValue(key);
    if (v == null) {
      return def;
    }
    if (v instanceof Integer i) {
      return i;
    }
    if (v instanceof Long l && l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) {
      return l.intValue();
    }
    if (v instanceof String s) {
      // Values from environment variables arrive as strings.
      try {
        return Integer.parseInt(s.trim());
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    problems.at(key).add("expected an integer, found " + describe(v));
    return def;
  }

  Long longValue(String key, Long def) {
    read.add(key);
    Object v = json.getValue(key);
    if (v == null) {
      return def;
    }
    if (v instanceof Integer || v instanceof Long) {
      return ((Number) v).longValue();
    }
    if (v instanceof String s) {
      try {
        return Long.parseLong(s.trim());
      } catch (NumberFormatException e) {
        // fall through
      }
    }
    problems.at(key).add("expected an integer, found " + describe(v));
    return def;
  }

  Boolean bool(String key, Boolean def) {
    read.add(key);
    Object v = json.getValue(key);
    if (v == null) {
      return def;
    }
    if (v instanceof Boolean b) {
      return b;
    }
    if ("true".equals(v) || "false".equals(v)) {
      return Boolean.parseBoolean((String) v);
    }
    problems.at(key).add("expected true or false, found " + describe(v));
    return def;
  }

  /**
   * A constant of a {@link WireEnum} by its exact spelling; an absent key gives {@code def}, an
   * unknown spelling records "'x' is not one of: a, b, c" and gives null.
   */
  <E extends Enum<E> & WireEnum> E enumValue(String key, Class<E> type, E def) {
    String text = string(key, null);
    if (text == null) {
      return def;
    }
    return WireEnum.parse(type, text, at(key));
  }

  /** A nested object; an absent key gives an empty object. */
  ConfigNode object(String key) {
    read.add(key);
    Object v = json.getValue(key);
    if (v == null) {
      return new ConfigNode(new JsonObject(), problems.at(key));
    }
    if (v instanceof JsonObject o) {
      return new ConfigNode(o, problems.at(key));
    }
    problems.at(key).add("expected an object (key: value lines), found " + describe(v));
    return new ConfigNode(new JsonObject(), problems.at(key));
  }

  /** A list of objects; an absent key gives an empty list. */
  List<ConfigNode> objects(String key) {
    List<ConfigNode> out = new ArrayList<>();
    JsonArray a = array(key);
    if (a == null) {
      return out;
    }
    for (int i = 0; i < a.size(); i++) {
      Object v = a.getValue(i);
      if (v instanceof JsonObject o) {
        out.add(new ConfigNode(o, problems.at(key).at(i)));
      } else {
        problems.at(key).at(i).add("expected an object, found " + describe(v));
      }
    }
    return out;
  }

  /** A list of scalars as strings; an absent key gives {@code null}. */
  List<String> strings(String key) {
    JsonArray a = array(key);
    if (a == null) {
      return null;
    }
    List<String> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      Object v = a.getValue(i);
      if (v instanceof String || v instanceof Number || v instanceof Boolean) {
        out.add(v.toString());
      } else {
        problems.at(key).at(i).add("expected a string, found " + describe(v));
      }
    }
    return out;
  }

  /** A map of scalar values as strings (attributes); an absent key gives an empty map. */
  Map<String, String> stringMap(String key) {
    return stringMap(key, Set.of());
  }

  /**
   * A map of scalar values as strings, where a boolean for one of {@code onOffKeys} becomes
   * {@code on} or {@code off}: YAML 1.1 reads an unquoted {@code on} or {@code off} as a boolean.
   */
  Map<String, String> stringMap(String key, Set<String> onOffKeys) {
    ConfigNode o = object(key);
    Map<String, String> out = new LinkedHashMap<>();
    for (String k : o.json.fieldNames()) {
      Object v = o.json.getValue(k);
      if (v instanceof Boolean b && onOffKeys.contains(k)) {
        out.put(k, b ? "on" : "off");
      } else if (v instanceof String || v instanceof Number || v instanceof Boolean) {
        out.put(k, v.toString());
      } else if (v == null) {
        out.put(k, "");
      } else {
        o.problems.at(k).add("expected a string, found " + describe(v));
      }
    }
    return out;
  }

  /** Entries of a map whose values are objects (the instance inventory). */
  Map<String, ConfigNode> objectMap(String key) {
    ConfigNode o = object(key);
    Map<String, ConfigNode> out = new LinkedHashMap<>();
    for (String k : o.json.fieldNames()) {
      Object v = o.json.getValue(k);
      if (v instanceof JsonObject jo) {
        out.put(k, new ConfigNode(jo, o.problems.at(k)));
      } else {
        o.problems.at(k).add("expected an object, found " + describe(v));
      }
    }
    return out;
  }

  private JsonArray array(String key) {
    read.add(key);
    Object v = json.getValue(key);
    if (v == null) {
      return null;
    }
    if (v instanceof JsonArray a) {
      return a;
    }
    problems.at(key).add("expected a list, found " + describe(v));
    return null;
  }

  /**
   * Marks every key of this object as read, so that {@link #finish()} reports none of them. For an
   * object whose kind (an action's type, a condition's field) is missing or unknown: a problem was
   * recorded for the kind, and which other keys the object may have is not known.
   */
  void skipRest() {
    read.addAll(json.fieldNames());
  }

  /** Reports every key of this object that was not read. */
  void finish() {
    for (String k : json.fieldNames()) {
      if (!read.contains(k)) {
        problems.at(k).add("unknown key (expected one of: " + String.join(", ", read) + ")");
      }
    }
  }

  private static String describe(Object v) {
    if (v instanceof JsonObject) {
      return "an object";
    }
    if (v instanceof JsonArray) {
      return "a list";
    }
    if (v instanceof String s) {
      return "'" + s + "'";
    }
    return String.valueOf(v);
  }
}
