package io.fulcrum.api;

import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The parameters of a Query-protocol request ({@code Action=...&Version=...&...}), decoded, with
 * the protocol's structure: nested members joined by dots ({@code Matcher.HttpCode}) and lists as
 * {@code .member.N}, 1-based ({@code Targets.member.1.Id}). A view may be rooted at a prefix.
 */
public final class QueryParams {

  private final Map<String, String> all;
  private final String prefix;

  private QueryParams(Map<String, String> all, String prefix) {
    this.all = all;
    this.prefix = prefix;
  }

  /** Parses a form-encoded body ({@code application/x-www-form-urlencoded}). */
  public static QueryParams parse(String form) {
    Map<String, String> out = new LinkedHashMap<>();
    if (form != null && !form.isEmpty()) {
      QueryStringDecoder d = new QueryStringDecoder(form, StandardCharsets.UTF_8, false, 10_000);
      d.parameters().forEach((k, v) -> out.put(k, v.isEmpty() ? "" : v.get(v.size() - 1)));
    }
    return new QueryParams(Collections.unmodifiableMap(out), "");
  }

  public static QueryParams of(Map<String, String> values) {
    return new QueryParams(Map.copyOf(values), "");
  }

  /** The full parameter name of a member of this view, as AWS reports it in messages. */
  public String name(String member) {
    return prefix + member;
  }

  public boolean has(String member) {
    return all.containsKey(prefix + member);
  }

  /** Whether any parameter starts with this member (a structure or list given at all). */
  public boolean hasAny(String member) {
    String p = prefix + member;
    for (String k : all.keySet()) {
      if (k.equals(p) || k.startsWith(p + ".")) {
        return true;
      }
    }
    return false;
  }

  /** The value, or null when absent. */
  public String string(String member) {
    return all.get(prefix + member);
  }

  public String required(String member) {
    String v = string(member);
    if (v == null) {
      throw ApiError.validation("1 validation error detected: Value null at '" + lowerFirst(member)
          + "' failed to satisfy constraint: Member must not be null");
    }
    return v;
  }

  /** An integer, or null when absent; a non-number is a {@code ValidationError}. */
  public Integer integer(String member) {
    Long v = number(member, "integer");
    if (v != null && (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE)) {
      throw ApiError.validation("Value '" + v + "' at '" + lowerFirst(member) + "' is not a valid integer");
    }
    return v == null ? null : v.intValue();
  }

  /** A long, or null when absent; a non-number is a {@code ValidationError}. */
  public Long longValue(String member) {
    return number(member, "long");
  }

  private Long number(String member, String kind) {
    String v = string(member);
    if (v == null) {
      return null;
    }
    try {
      return Long.parseLong(v.trim());
    } catch (NumberFormatException e) {
      throw ApiError.validation("Value '" + v + "' at '" + lowerFirst(member) + "' is not a valid " + kind);
    }
  }

  /** A boolean ({@code true}/{@code false}), or null when absent. */
  public Boolean bool(String member) {
    String v = string(member);
    if (v == null) {
      return null;
    }
    if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(v);
    }
    throw ApiError.validation("Value '" + v + "' at '" + lowerFirst(member) + "' is not a valid boolean");
  }

  /** A nested structure: {@code struct("Matcher")} reads {@code Matcher.HttpCode} as {@code HttpCode}. */
  public QueryParams struct(String member) {
    return new QueryParams(all, prefix + member + ".");
  }

  /**
   * The structures of a list member, in index order: {@code structs("Targets")} gives one view per
   * {@code Targets.member.N}. An empty list ({@code Targets=}) or an absent one gives none.
   */
  public List<QueryParams> structs(String member) {
    String p = prefix + member + ".member.";
    List<QueryParams> out = new ArrayList<>();
    indexesUnder(p).forEach(i -> out.add(new QueryParams(all, p + i + ".")));
    return out;
  }

  /** The values of a list of strings ({@code Names.member.N}), in index order. */
  public List<String> strings(String member) {
    String p = prefix + member + ".member.";
    TreeMap<Integer, String> byIndex = new TreeMap<>();
    all.forEach((k, v) -> {
      if (k.startsWith(p)) {
        Integer i = index(k.substring(p.length()));
        if (i != null) {
          byIndex.put(i, v);
        }
      }
    });
    return new ArrayList<>(byIndex.values());
  }

  /**
   * A map member ({@code Params.entry.N.key}, {@code Params.entry.N.value}), in index order; an
   * absent one gives an empty map. An entry without a key, or a key given twice, is a
   * {@code ValidationError}; an entry without a value has the empty one.
   */
  public Map<String, String> map(String member) {
    String p = prefix + member + ".entry.";
    Map<String, String> out = new LinkedHashMap<>();
    indexesUnder(p).forEach(i -> {
      String key = all.get(p + i + ".key");
      String at = lowerFirst(member) + ".entry." + i + ".key";
      if (key == null) {
        throw ApiError.validation("1 validation error detected: Value null at '" + at
            + "' failed to satisfy constraint: Member must not be null");
      }
      String value = all.get(p + i + ".value");
      if (out.put(key, value == null ? "" : value) != null) {
        throw ApiError.validation("Value '" + key + "' at '" + at + "' is given more than once");
      }
    });
    return out;
  }

  /** The indexes N of the parameters {@code p + N + ...}, in order. */
  private SortedSet<Integer> indexesUnder(String p) {
    TreeSet<Integer> out = new TreeSet<>();
    for (String k : all.keySet()) {
      if (k.startsWith(p)) {
        String rest = k.substring(p.length());
        int dot = rest.indexOf('.');
        Integer i = index(dot < 0 ? rest : rest.substring(0, dot));
        if (i != null) {
          out.add(i);
        }
      }
    }
    return out;
  }

  private static Integer index(String s) {
    try {
      int i = Integer.parseInt(s);
      return i >= 1 ? i : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  static String lowerFirst(String member) {
    String last = member.contains(".") ? member.substring(member.lastIndexOf('.') + 1) : member;
    return last.isEmpty() ? last : Character.toLowerCase(last.charAt(0)) + last.substring(1);
  }

  @Override
  public String toString() {
    return prefix.isEmpty() ? all.toString() : prefix + "*";
  }
}
