package io.fulcrum.model;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A complete, validated attribute set: every key that applies, in AWS's order, defaults
 * included. Immutable.
 */
public final class Attributes {

  private final Map<String, String> values;

  Attributes(Map<String, String> values) {
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(values));
  }

  /**
   * Resolves {@code given} over {@code base} (or over the defaults when {@code base} is null)
   * against the keys in {@code specs}. An unknown key or a bad value is recorded at the key's path.
   */
  static Attributes resolve(List<AttributeSpec> specs, Attributes base, Map<String, String> given,
      String owner, Problems problems) {
    Map<String, String> out = new LinkedHashMap<>();
    Map<String, AttributeSpec> byKey = new LinkedHashMap<>();
    for (AttributeSpec s : specs) {
      byKey.put(s.key(), s);
      out.put(s.key(), base != null && base.values.containsKey(s.key()) ? base.values.get(s.key()) : s.defaultValue());
    }
    for (Map.Entry<String, String> e : given.entrySet()) {
      AttributeSpec spec = byKey.get(e.getKey());
      Problems p = problems.at(e.getKey());
      if (spec == null) {
        p.add(owner + " attribute key '" + e.getKey() + "' is not recognized");
        continue;
      }
      String value = e.getValue() == null ? "" : e.getValue();
      String error = spec.check().apply(value);
      if (error != null) {
        p.add("'" + value + "' is not valid (" + error + ")");
        continue;
      }
      out.put(e.getKey(), value);
    }
    return new Attributes(out);
  }

  public String get(String key) {
    return values.get(key);
  }

  public int getInt(String key) {
    return Integer.parseInt(values.get(key));
  }

  public boolean getBoolean(String key) {
    return Boolean.parseBoolean(values.get(key));
  }

  /** {@code off} as 0, else the number. */
  public int getOffOrInt(String key) {
    String v = values.get(key);
    return v == null || v.equals("off") ? 0 : Integer.parseInt(v);
  }

  /** Every key and value, in AWS's order. */
  public Map<String, String> asMap() {
    return values;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Attributes a && a.values.equals(values);
  }

  @Override
  public int hashCode() {
    return values.hashCode();
  }

  @Override
  public String toString() {
    return values.toString();
  }
}
