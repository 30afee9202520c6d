package io.fulcrum.model;

import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * One attribute key: its default and how a value is checked. A key's value is always a string,
 * as in the ELBv2 API.
 *
 * @param key          the exact AWS key (or a {@code fulcrum.} key)
 * @param defaultValue the value when none is given
 * @param check        returns {@code null} when the value is valid, else what was expected
 */
public record AttributeSpec(String key, String defaultValue, Function<String, String> check) {

  public static AttributeSpec bool(String key, boolean def) {
    return new AttributeSpec(key, Boolean.toString(def),
        v -> v.equals("true") || v.equals("false") ? null : "expected: true or false");
  }

  public static AttributeSpec range(String key, long def, long min, long max) {
    return new AttributeSpec(key, Long.toString(def), v -> checkRange(v, min, max));
  }

  public static AttributeSpec oneOf(String key, String def, List<String> values) {
    Set<String> allowed = Set.copyOf(values);
    return new AttributeSpec(key, def,
        v -> allowed.contains(v) ? null : "expected one of: " + String.join(", ", values));
  }

  /** {@code off} or a number in {@code min..max}. */
  public static AttributeSpec offOrRange(String key, String def, long min, long max) {
    return new AttributeSpec(key, def,
        v -> v.equals("off") ? null : checkRange(v, min, max) == null ? null : "expected: off or " + min + "-" + max);
  }

  static String checkRange(String v, long min, long max) {
    long n;
    try {
      n = Long.parseLong(v);
    } catch (NumberFormatException e) {
      return "expected an integer " + min + "-" + max;
    }
    return n < min || n > max ? "expected " + min + "-" + max : null;
  }
}
