package io.fulcrum.routing;

/**
 * An ELB condition pattern: {@code *} matches any run of characters (also none), {@code ?}
 * exactly one. Compiled once; {@link #matches(CharSequence)} allocates nothing and, with AWS's
 * limit of 5 wildcards per rule, runs in time linear in practice (greedy with one backtrack point).
 */
public final class Glob {

  private final String pattern;
  private final boolean ignoreCase;
  private final Kind kind;
  private final String literal;

  private enum Kind { EXACT, PREFIX, SUFFIX, ANY, GENERAL }

  private Glob(String pattern, boolean ignoreCase) {
    this.pattern = ignoreCase ? lower(pattern) : pattern;
    this.ignoreCase = ignoreCase;
    int stars = 0;
    int questions = 0;
    for (int i = 0; i < pattern.length(); i++) {
      char c = pattern.charAt(i);
      if (c == '*') {
        stars++;
      } else if (c == '?') {
        questions++;
      }
    }
    if (stars == 0 && questions == 0) {
      kind = Kind.EXACT;
      literal = this.pattern;
    } else if (questions == 0 && stars == 1 && pattern.equals("*")) {
      kind = Kind.ANY;
      literal = "";
    } else if (questions == 0 && stars == 1 && pattern.endsWith("*")) {
      kind = Kind.PREFIX;
      literal = this.pattern.substring(0, pattern.length() - 1);
    } else if (questions == 0 && stars == 1 && pattern.startsWith("*")) {
      kind = Kind.SUFFIX;
      literal = this.pattern.substring(1);
    } else {
      kind = Kind.GENERAL;
      literal = null;
    }
  }

  public static Glob caseSensitive(String pattern) {
    return new Glob(pattern, false);
  }

  public static Glob caseInsensitive(String pattern) {
    return new Glob(pattern, true);
  }

  public boolean matches(CharSequence s) {
    if (s == null) {
      return false;
    }
    switch (kind) {
      case ANY:
        return true;
      case EXACT:
        return s.length() == literal.length() && regionMatches(s, 0, literal, 0, literal.length());
      case PREFIX:
        return s.length() >= literal.length() && regionMatches(s, 0, literal, 0, literal.length());
      case SUFFIX:
        return s.length() >= literal.length()
            && regionMatches(s, s.length() - literal.length(), literal, 0, literal.length());
      default:
        return general(s);
    }
  }

  private boolean general(CharSequence s) {
    int si = 0;
    int pi = 0;
    int starP = -1;
    int starS = 0;
    int n = s.length();
    int m = pattern.length();
    while (si < n) {
      if (pi < m) {
        char pc = pattern.charAt(pi);
        if (pc == '*') {
          starP = pi++;
          starS = si;
          continue;
        }
        if (pc == '?' || pc == fold(s.charAt(si))) {
          pi++;
          si++;
          continue;
        }
      }
      if (starP >= 0) {
        pi = starP + 1;
        si = ++starS;
        continue;
      }
      return false;
    }
    while (pi < m && pattern.charAt(pi) == '*') {
      pi++;
    }
    return pi == m;
  }

  private boolean regionMatches(CharSequence s, int from, String lit, int lfrom, int len) {
    for (int i = 0; i < len; i++) {
      if (fold(s.charAt(from + i)) != lit.charAt(lfrom + i)) {
        return false;
      }
    }
    return true;
  }

  private char fold(char c) {
    if (!ignoreCase) {
      return c;
    }
    return c >= 'A' && c <= 'Z' ? (char) (c + 32) : Character.toLowerCase(c);
  }

  private static String lower(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      b.append(c >= 'A' && c <= 'Z' ? (char) (c + 32) : Character.toLowerCase(c));
    }
    return b.toString();
  }

  @Override
  public String toString() {
    return pattern;
  }
}
