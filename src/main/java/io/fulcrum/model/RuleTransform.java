package io.fulcrum.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's transform (ALB's {@code Transforms}): a regular expression and its replacement, applied
 * to the Host header ({@code host-header-rewrite}) or to the request URL, its path and query
 * ({@code url-rewrite}), of a request the rule forwards. Immutable.
 */
public record RuleTransform(Type type, String regex, String replace) {

  /** AWS's limit on a regular expression and on a replacement. */
  public static final int MAX_LENGTH = 1024;

  /** The kinds of transform, by their names in the API and the config file. */
  public enum Type implements WireEnum {
    HOST_HEADER_REWRITE("host-header-rewrite"),
    URL_REWRITE("url-rewrite");

    private final String wire;

    Type(String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }
  }

  /**
   * A {@code $n} or {@code ${n}} in a replacement: capture group {@code n} (all its digits:
   * {@code $10} is group 10, {@code ${1}0} group 1 and a 0). Every other character is itself.
   */
  public static final Pattern GROUP_REFERENCE = Pattern.compile("\\$(?:(\\d+)|\\{(\\d+)})");

  /** The compiled regular expression (valid once {@link #validate} found no problem). */
  public Pattern pattern() {
    return Pattern.compile(regex);
  }

  /**
   * Checks a rule's transforms (at {@code [i]}): one of each type at most, each regular expression
   * one that compiles, within AWS's dialect and length, and a replacement that names only groups
   * the expression has.
   */
  public static void validate(List<RuleTransform> transforms, Problems p) {
    Set<Type> seen = new HashSet<>();
    for (int i = 0; i < transforms.size(); i++) {
      RuleTransform t = transforms.get(i);
      Problems at = p.at(i);
      if (!seen.add(t.type())) {
        at.at("type").add("a rule can have only one " + t.type().wire() + " transform");
      }
      if (t.regex().isEmpty() || t.regex().length() > MAX_LENGTH) {
        at.at("regex").add("a regular expression of 1 to " + MAX_LENGTH + " characters is required");
        continue;
      }
      if (t.replace().length() > MAX_LENGTH) {
        at.at("replace").add("a replacement is at most " + MAX_LENGTH + " characters");
      }
      if (!t.replace().chars().allMatch(c -> c > ' ' && c < 0x7f)) {
        // What it gives goes into a request line or a Host header: percent-encode anything else.
        at.at("replace").add("a replacement holds visible ASCII characters only (percent-encode others)");
      }
      Pattern compiled = AwsRegex.check(t.regex(), at.at("regex"));
      if (compiled == null) {
        continue;
      }
      int groups = compiled.matcher("").groupCount();
      Matcher m = GROUP_REFERENCE.matcher(t.replace());
      while (m.find()) {
        int group = Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2));
        if (group > groups) {
          at.at("replace").add("$" + group + " names a capture group the regular expression does not have (it has "
              + groups + ")");
        }
      }
    }
  }
}
