package io.fulcrum.model;

import java.util.BitSet;

/**
 * A health-check matcher ({@code Matcher.HttpCode} or {@code Matcher.GrpcCode}): single codes,
 * comma lists, ranges and mixes such as {@code 200-299,302} (SPEC §1.4). Immutable.
 */
public final class CodeMatcher {

  private final String text;
  private final BitSet codes;

  private CodeMatcher(String text, BitSet codes) {
    this.text = text;
    this.codes = codes;
  }

  /**
   * Parses a matcher whose codes must all lie in {@code min..max}; records a problem and returns
   * {@code null} when the text is malformed or a code is out of range.
   */
  public static CodeMatcher parse(String text, int min, int max, Problems problems) {
    String expected = "(expected codes " + min + "-" + max + " as a code, a list or a range, e.g. \""
        + min + "\", \"" + min + "," + (min + 1) + "\", \"" + min + "-" + max + "\")";
    if (text == null || text.isBlank()) {
      problems.add("a matcher is required " + expected);
      return null;
    }
    BitSet codes = new BitSet(max + 1);
    for (String part : text.split(",", -1)) {
      String p = part.trim();
      int dash = p.indexOf('-');
      int lo;
      int hi;
      try {
        if (dash < 0) {
          lo = hi = code(p);
        } else {
          lo = code(p.substring(0, dash).trim());
          hi = code(p.substring(dash + 1).trim());
        }
      } catch (NumberFormatException e) {
        problems.add("'" + text + "' is not a valid matcher " + expected);
        return null;
      }
      if (lo > hi) {
        problems.add("'" + text + "' has a range whose start is above its end " + expected);
        return null;
      }
      if (lo < min || hi > max) {
        problems.add("'" + text + "' has a code outside " + min + "-" + max + " " + expected);
        return null;
      }
      codes.set(lo, hi + 1);
    }
    return new CodeMatcher(text.replaceAll("\\s", ""), codes);
  }

  /**
   * One code: ASCII digits only. {@link Integer#parseInt} alone would also take a sign and
   * non-ASCII digits ({@code +200}, Arabic-Indic {@code 200}), which no matcher syntax allows.
   */
  private static int code(String s) {
    if (s.isEmpty() || s.length() > 9 || !s.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw new NumberFormatException(s);
    }
    return Integer.parseInt(s);
  }

  public boolean matches(int code) {
    return code >= 0 && codes.get(code);
  }

  /** The matcher as configured, e.g. {@code 200-299}. */
  public String text() {
    return text;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof CodeMatcher m && m.codes.equals(codes);
  }

  @Override
  public int hashCode() {
    return codes.hashCode();
  }

  @Override
  public String toString() {
    return text;
  }
}
