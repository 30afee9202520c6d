package io.fulcrum.model;

import java.util.List;

/**
 * A listener rule condition (ELBv2 {@code RuleCondition}). Values are as configured; matching is
 * compiled by {@code io.fulcrum.routing}. Factories validate AWS's per-value rules.
 */
public sealed interface RuleCondition {

  /** The AWS field name: {@code path-pattern}, {@code host-header}, ... */
  String field();

  /** How many values this condition contributes to the per-rule limits. */
  int valueCount();

  /** How many wildcard characters ({@code *}, {@code ?}) its values hold. */
  int wildcardCount();

  int MAX_VALUE_LENGTH = 128;

  /** Path patterns: case-sensitive, {@code *} and {@code ?} wildcards, matched on the path only. */
  record PathPattern(List<String> values) implements RuleCondition {
    public PathPattern {
      values = List.copyOf(values);
    }

    @Override
    public String field() {
      return "path-pattern";
    }

    @Override
    public int valueCount() {
      return values.size();
    }

    @Override
    public int wildcardCount() {
      return wildcards(values);
    }
  }

  /** Host names: case-insensitive, with wildcards. */
  record HostHeader(List<String> values) implements RuleCondition {
    public HostHeader {
      values = List.copyOf(values);
    }

    @Override
    public String field() {
      return "host-header";
    }

    @Override
    public int valueCount() {
      return values.size();
    }

    @Override
    public int wildcardCount() {
      return wildcards(values);
    }
  }

  /** A header by name, any of whose values matches one of the patterns (case-insensitive). */
  record HttpHeader(String name, List<String> values) implements RuleCondition {
    public HttpHeader {
      values = List.copyOf(values);
    }

    @Override
    public String field() {
      return "http-header";
    }

    @Override
    public int valueCount() {
      return values.size();
    }

    @Override
    public int wildcardCount() {
      return wildcards(values);
    }
  }

  /** Request methods, exact and case-sensitive. */
  record HttpRequestMethod(List<String> values) implements RuleCondition {
    public HttpRequestMethod {
      values = List.copyOf(values);
    }

    @Override
    public String field() {
      return "http-request-method";
    }

    @Override
    public int valueCount() {
      return values.size();
    }

    @Override
    public int wildcardCount() {
      return 0;
    }
  }

  /** Query parameters: key (optional) and value patterns, case-insensitive, with wildcards. */
  record QueryString(List<KeyValue> values) implements RuleCondition {
    public QueryString {
      values = List.copyOf(values);
    }

    @Override
    public String field() {
      return "query-string";
    }

    @Override
    public int valueCount() {
      return values.size();
    }

    @Override
    public int wildcardCount() {
      int n = 0;
      for (KeyValue kv : values) {
        n += queryWildcards(kv.value()) + (kv.key() == null ? 0 : queryWildcards(kv.key()));
      }
      return n;
    }
  }

  /** The client's address (not X-Forwarded-For) in one of the blocks. */
  record SourceIp(List<Cidr> values) implements RuleCondition {
    public SourceIp {
      values = List.copyOf(values);
    }

    @Override
    public String field() {
      return "source-ip";
    }

    @Override
    public int valueCount() {
      return values.size();
    }

    @Override
    public int wildcardCount() {
      return 0;
    }
  }

  /**
   * Regular expressions ({@code RegexValues}) in place of wildcard values, for a path-pattern,
   * host-header or http-header condition: one that matches somewhere in the value satisfies it.
   *
   * @param headerName the header of an http-header condition; null for the others
   */
  record Regex(String field, String headerName, List<String> values) implements RuleCondition {
    /** The fields that take regular expressions. */
    public static final List<String> FIELDS = List.of("path-pattern", "host-header", "http-header");

    public Regex {
      values = List.copyOf(values);
    }

    @Override
    public int valueCount() {
      return values.size();
    }

    @Override
    public int wildcardCount() {
      return 0;
    }
  }

  /** A query-string pair; {@code key} is {@code null} when any key may match. */
  record KeyValue(String key, String value) {
  }

  private static int wildcards(List<String> values) {
    int n = 0;
    for (String v : values) {
      n += wildcards(v);
    }
    return n;
  }

  /** The wildcards of a query-string pattern, where an escaped {@code \*} or {@code \?} is the character. */
  private static int queryWildcards(String v) {
    int n = 0;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '\\' && i + 1 < v.length() && (v.charAt(i + 1) == '*' || v.charAt(i + 1) == '?')) {
        i++;
      } else if (c == '*' || c == '?') {
        n++;
      }
    }
    return n;
  }

  private static int wildcards(String v) {
    int n = 0;
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c == '*' || c == '?') {
        n++;
      }
    }
    return n;
  }

  // ---- validation of single values (SPEC §8.5 and the ELBv2 condition rules) ----

  /** Checks a path pattern; records a problem at {@code p} when invalid. */
  static boolean checkPathPattern(String v, Problems p) {
    if (!checkLength(v, p)) {
      return false;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!(Character.isLetterOrDigit(c) && c < 0x80) && "_-.$/~\"'@:+&*?".indexOf(c) < 0) {
        p.add("'" + v + "' contains '" + c + "' (expected: A-Z, a-z, 0-9, _ - . $ / ~ \" ' @ : + & * ?)");
        return false;
      }
    }
    return true;
  }

  static boolean checkHostPattern(String v, Problems p) {
    if (!checkLength(v, p)) {
      return false;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!(Character.isLetterOrDigit(c) && c < 0x80) && "-.*?".indexOf(c) < 0) {
        p.add("'" + v + "' contains '" + c + "' (expected: A-Z, a-z, 0-9, - . * ?)");
        return false;
      }
    }
    int dot = v.lastIndexOf('.');
    if (dot < 0) {
      p.add("'" + v + "' must include at least one '.'");
      return false;
    }
    for (int i = dot + 1; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!Character.isLetter(c) && c != '*' && c != '?') {
        p.add("'" + v + "' may only have letters after its final '.'");
        return false;
      }
    }
    return true;
  }

  static boolean checkHeaderName(String v, Problems p) {
    if (v == null || v.isEmpty() || v.length() > 40) {
      p.add("a header name of 1-40 characters is required");
      return false;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!(Character.isLetterOrDigit(c) && c < 0x80) && "!#$%&'+-.^_`|~".indexOf(c) < 0) {
        p.add("'" + v + "' is not a valid header name");
        return false;
      }
    }
    return true;
  }

  static boolean checkMethod(String v, Problems p) {
    if (v == null || v.isEmpty() || v.length() > 40) {
      p.add("a method of 1-40 characters is required");
      return false;
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (!(c >= 'A' && c <= 'Z') && c != '-' && c != '_') {
        p.add("'" + v + "' is not a valid method (expected: A-Z, - and _, case-sensitive)");
        return false;
      }
    }
    return true;
  }

  static boolean checkLength(String v, Problems p) {
    if (v == null || v.isEmpty() || v.length() > MAX_VALUE_LENGTH) {
      p.add("a value of 1-" + MAX_VALUE_LENGTH + " characters is required");
      return false;
    }
    return true;
  }

  /** Validates the values of a condition in place; used by the config parser and the API. */
  static void validate(RuleCondition c, Problems p) {
    Problems pv = p.at(c instanceof Regex ? "regex-values" : "values");
    if (c.valueCount() == 0) {
      pv.add("a " + c.field() + " condition needs at least one value");
    }
    if (c instanceof PathPattern pp) {
      for (int i = 0; i < pp.values().size(); i++) {
        checkPathPattern(pp.values().get(i), pv.at(i));
      }
    } else if (c instanceof HostHeader h) {
      for (int i = 0; i < h.values().size(); i++) {
        checkHostPattern(h.values().get(i), pv.at(i));
      }
    } else if (c instanceof HttpHeader h) {
      checkHeaderName(h.name(), p.at("http-header-name"));
      for (int i = 0; i < h.values().size(); i++) {
        checkLength(h.values().get(i), pv.at(i));
      }
    } else if (c instanceof Regex r) {
      if (r.field().equals("http-header")) {
        checkHeaderName(r.headerName(), p.at("http-header-name"));
      }
      Problems pr = p.at("regex-values");
      for (int i = 0; i < r.values().size(); i++) {
        if (checkLength(r.values().get(i), pr.at(i))) {
          AwsRegex.check(r.values().get(i), pr.at(i));
        }
      }
    } else if (c instanceof HttpRequestMethod m) {
      for (int i = 0; i < m.values().size(); i++) {
        checkMethod(m.values().get(i), pv.at(i));
      }
    } else if (c instanceof QueryString q) {
      for (int i = 0; i < q.values().size(); i++) {
        KeyValue kv = q.values().get(i);
        if (kv.key() != null && (kv.key().isEmpty() || kv.key().length() > MAX_VALUE_LENGTH)) {
          pv.at(i).at("key").add("a key of 1-" + MAX_VALUE_LENGTH + " characters is required when given");
        }
        checkLength(kv.value(), pv.at(i).at("value"));
      }
    }
    // source-ip CIDRs are parsed, and so checked, by whoever builds the condition.
  }
}
