package io.fulcrum.routing;

import io.fulcrum.model.Cidr;
import io.fulcrum.model.RuleCondition;
import java.util.List;
import java.util.function.Predicate;
import java.util.regex.Pattern;

/** A compiled rule condition. Immutable; called on the owning event loop. */
interface ConditionMatcher {

  boolean matches(RequestFacts request);

  static ConditionMatcher compile(RuleCondition c) {
    if (c instanceof RuleCondition.PathPattern p) {
      Glob[] globs = p.values().stream().map(v -> Glob.caseSensitive(RulePath.pattern(v))).toArray(Glob[]::new);
      return r -> any(globs, r.rulePath());
    }
    if (c instanceof RuleCondition.HostHeader h) {
      Glob[] globs = h.values().stream().map(Glob::caseInsensitive).toArray(Glob[]::new);
      return r -> any(globs, ruleHost(r.host()));
    }
    if (c instanceof RuleCondition.HttpHeader h) {
      Glob[] globs = h.values().stream().map(Glob::caseInsensitive).toArray(Glob[]::new);
      return header(h.name(), v -> any(globs, v));
    }
    if (c instanceof RuleCondition.Regex x) {
      return regex(x);
    }
    if (c instanceof RuleCondition.HttpRequestMethod m) {
      String[] methods = m.values().toArray(String[]::new);
      return r -> {
        String method = r.method();
        for (String s : methods) {
          if (s.equals(method)) {
            return true;
          }
        }
        return false;
      };
    }
    if (c instanceof RuleCondition.QueryString q) {
      int n = q.values().size();
      Glob[] keys = new Glob[n];
      Glob[] values = new Glob[n];
      for (int i = 0; i < n; i++) {
        RuleCondition.KeyValue kv = q.values().get(i);
        keys[i] = kv.key() == null ? null : Glob.caseInsensitiveWithEscapes(kv.key());
        values[i] = Glob.caseInsensitiveWithEscapes(kv.value());
      }
      return r -> {
        List<String[]> params = r.queryParameters();
        for (int p = 0; p < params.size(); p++) {
          String[] kv = params.get(p);
          for (int i = 0; i < n; i++) {
            if ((keys[i] == null || keys[i].matches(kv[0])) && values[i].matches(kv[1])) {
              return true;
            }
          }
        }
        return false;
      };
    }
    if (c instanceof RuleCondition.SourceIp s) {
      Cidr[] cidrs = s.values().toArray(Cidr[]::new);
      return r -> {
        byte[] address = r.sourceAddress();
        for (Cidr cidr : cidrs) {
          if (cidr.contains(address)) {
            return true;
          }
        }
        return false;
      };
    }
    throw new IllegalArgumentException("unknown condition " + c);
  }

  /**
   * The host as host-header conditions compare it: without the one trailing dot of a fully
   * qualified name ({@code admin.example.com.} is {@code admin.example.com} to DNS and to the
   * virtual hosts of NGINX and most servers), so that the dot does not walk past a rule.
   */
  static String ruleHost(String host) {
    int n = host == null ? 0 : host.length();
    return n > 1 && host.charAt(n - 1) == '.' ? host.substring(0, n - 1) : host;
  }

  /**
   * Regular expressions, one of which is found somewhere in the value (anchor with {@code ^} and
   * {@code $} for the whole value): the path as rules compare it ({@link RulePath}), case-sensitive;
   * the host name as the host-header condition compares it, case-insensitive; any value of the
   * header, case-sensitive.
   */
  private static ConditionMatcher regex(RuleCondition.Regex x) {
    int flags = x.field().equals("host-header") ? Pattern.CASE_INSENSITIVE : 0;
    Pattern[] patterns = x.values().stream().map(v -> Pattern.compile(v, flags)).toArray(Pattern[]::new);
    return switch (x.field()) {
      case "path-pattern" -> r -> found(patterns, r.rulePath());
      case "host-header" -> r -> found(patterns, ruleHost(r.host()));
      default -> header(x.headerName(), v -> found(patterns, v));
    };
  }

  /** Any value of the header {@code name} that {@code matches}. */
  private static ConditionMatcher header(String name, Predicate<String> matches) {
    return r -> {
      List<String> values = r.headers().getAll(name);
      for (int i = 0; i < values.size(); i++) {
        if (matches.test(values.get(i))) {
          return true;
        }
      }
      return false;
    };
  }

  private static boolean found(Pattern[] patterns, String value) {
    if (value == null) {
      return false;
    }
    for (Pattern p : patterns) {
      if (p.matcher(value).find()) {
        return true;
      }
    }
    return false;
  }

  private static boolean any(Glob[] globs, String value) {
    if (value == null) {
      return false;
    }
    for (Glob g : globs) {
      if (g.matches(value)) {
        return true;
      }
    }
    return false;
  }
}
