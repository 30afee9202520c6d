package io.fulcrum.routing;

/**
 * An ELB condition pattern: {@code *} matches any run of characters (also none), {@code ?}
 * exactly one. In query-string values ({@link #caseInsensitiveWithEscapes}) {@code \*} and
 * {@code \?} stand for the characters themselves, as AWS documents. Compiled once;
 * {@link #matches(CharSequence)} allocates nothing and, with AWS's limit of 5 wildcards per rule,
 * runs in time linear in practice (greedy with one backtrack point).
 */
public final class Glob {

  /** The pattern's characters, escapes taken out (and in lower case when the match ignores case). */
  private final String pattern;
  /** Which of {@link #pattern}'s characters are wildcards: a {@code *} or {@code ?} that was not escaped. */
  private final boolean[] wild;
  private final boolean ignoreCase;
  private final Kind kind;
  private final String literal;

  private enum Kind { EXACT, PREFIX, SUFFIX, ANY, GENERAL }

  private Glob(String source, boolean ignoreCase, boolean escapes) {
    StringBuilder chars = new StringBuilder(source.length());
    boolean[] wildcards = new boolean[source.length()];
    int stars = 0;
    int questions = 0;
    for (int i = 0; i < source.length(); i++) {
      char c = source.charAt(i);
      if (escapes && c == '\\' && i + 1 < source.length() && isWildcard(source.charAt(i + 1))) {
        chars.append(source.charAt(++i)); // the character itself
        continue;
      }
      if (c == '*') {
        stars++;
      } else if (c == '?') {
        questions++;
      }
      wildcards[chars.length()] = isWildcard(c);
      chars.append(c);
    }
    String unescaped = chars.toString();
    this.pattern = ignoreCase ? lower(unescaped) : unescaped;
    this.wild = java.util.Arrays.copyOf(wildcards, unescaped.length());
    this.ignoreCase = ignoreCase;
    int last = unescaped.length() - 1;
    if (stars == 0 && questions == 0) {
      kind = Kind.EXACT;
      literal = this.pattern;
    } else if (questions == 0 && stars == 1 && last == 0) {
      kind = Kind.ANY;
      literal = "";
    } else if (questions == 0 && stars == 1 && wild[last]) {
      kind = Kind.PREFIX;
      literal = this.pattern.substring(0, last);
    } else if (questions == 0 && stars == 1 && wild[0]) {
      kind = Kind.SUFFIX;
      literal = this.pattern.substring(1);
    } else {
      kind = Kind.GENERAL;
      literal = null;
    }
  }

  private static boolean isWildcard(char c) {
    return c == '*' || c == '?';
  }

  public static Glob caseSensitive(String pattern) {
    return new Glob(pattern, false, false);
  }

  public static Glob caseInsensitive(String pattern) {
    return new Glob(pattern, true, false);
  }

  /** Case-insensitive, and {@code \*} or {@code \?} is that character rather than a wildcard (query strings). */
  public static Glob caseInsensitiveWithEscapes(String pattern) {
    return new Glob(pattern, true, true);
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
        if (wild[pi] && pc == '*') {
          starP = pi++;
          starS = si;
          continue;
        }
        if ((wild[pi] && pc == '?') || pc == fold(s.charAt(si))) {
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
    while (pi < m && wild[pi] && pattern.charAt(pi) == '*') {
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
