package io.fulcrum.model;

import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The regular expressions of rule conditions ({@code RegexValues}) and transforms: Java's
 * dialect, less what AWS's leaves out (lookaheads and lookbehinds, atomic groups, backreferences,
 * possessive quantifiers, Unicode character classes; subroutines and recursion Java has not).
 */
public final class AwsRegex {

  /** What AWS's expressions leave out, with what each is called. */
  private static final List<Object[]> UNSUPPORTED = List.of(
      new Object[] {Pattern.compile("\\(\\?<?[=!]"), "lookaheads and lookbehinds"},
      new Object[] {Pattern.compile("\\(\\?>"), "atomic groups"},
      new Object[] {Pattern.compile("\\\\[1-9]|\\\\k<"), "backreferences"},
      new Object[] {Pattern.compile("(?<!\\\\)[*+?}]\\+"), "possessive quantifiers"},
      new Object[] {Pattern.compile("\\\\[pP]"), "Unicode character classes"});

  private AwsRegex() {
  }

  /**
   * Checks {@code regex} (at {@code p}): within AWS's dialect, and one Java compiles.
   *
   * @return the compiled expression, or null when it does not compile
   */
  public static Pattern check(String regex, Problems p) {
    for (Object[] u : UNSUPPORTED) {
      if (((Pattern) u[0]).matcher(regex).find()) {
        p.add("regular expressions here do not support " + u[1]);
      }
    }
    try {
      return Pattern.compile(regex);
    } catch (PatternSyntaxException e) {
      p.add("not a regular expression: " + e.getDescription() + " near index " + e.getIndex());
      return null;
    }
  }
}
