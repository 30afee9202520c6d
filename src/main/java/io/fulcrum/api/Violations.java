package io.fulcrum.api;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * Collects the field constraint failures of one request (ranges, lengths, enums, patterns) and
 * reports them all at once in AWS's wording: {@code 2 validation errors detected: Value '301' at
 * 'healthCheckIntervalSeconds' failed to satisfy constraint: Member must have value less than or
 * equal to 300; Value ...}. Members are named as AWS names them: {@code Targets.member.1.Port} is
 * {@code targets.1.member.port}. Used on one thread, for one request.
 */
final class Violations {

  private final List<String> messages = new ArrayList<>();

  /** AWS's name of a parameter in messages: lower camel case, {@code member.N} written {@code N.member}. */
  static String awsName(String parameter) {
    String[] parts = parameter.split("\\.");
    List<String> out = new ArrayList<>();
    for (int i = 0; i < parts.length; i++) {
      if (parts[i].equals("member") && i + 1 < parts.length && parts[i + 1].chars().allMatch(Character::isDigit)) {
        out.add(parts[i + 1]);
        out.add("member");
        i++;
      } else {
        out.add(QueryParams.lowerFirst(parts[i]));
      }
    }
    return String.join(".", out);
  }

  /** Records a failed constraint; {@code constraint} follows "Member must ". */
  void add(QueryParams p, String member, Object value, String constraint) {
    messages.add("Value " + (value == null ? "null" : "'" + value + "'") + " at '" + awsName(p.name(member))
        + "' failed to satisfy constraint: Member must " + constraint);
  }

  /** A required member; records "must not be null" when it is absent. */
  String required(QueryParams p, String member) {
    String v = p.string(member);
    if (v == null) {
      add(p, member, null, "not be null");
    }
    return v;
  }

  /** An integer in {@code min..max}, or null when absent or out of range (recorded). */
  Integer range(QueryParams p, String member, int min, int max) {
    Integer v = p.integer(member);
    if (v == null) {
      return null;
    }
    if (v < min) {
      add(p, member, v, "have value greater than or equal to " + min);
      return null;
    }
    if (v > max) {
      add(p, member, v, "have value less than or equal to " + max);
      return null;
    }
    return v;
  }

  /** A string of {@code min..max} characters, or null when absent or out of range (recorded). */
  String length(QueryParams p, String member, int min, int max) {
    String v = p.string(member);
    return v == null ? null : length(p, member, v, min, max);
  }

  String length(QueryParams p, String member, String v, int min, int max) {
    if (v.length() < min) {
      add(p, member, v, "have length greater than or equal to " + min);
      return null;
    }
    if (v.length() > max) {
      add(p, member, v, "have length less than or equal to " + max);
      return null;
    }
    return v;
  }

  /** One of an enum's values, exactly as AWS spells them, or null when absent or not one (recorded). */
  String oneOf(QueryParams p, String member, List<String> values) {
    String v = p.string(member);
    if (v != null && !values.contains(v)) {
      add(p, member, v, "satisfy enum value set: [" + String.join(", ", values) + "]");
      return null;
    }
    return v;
  }

  /** A string matching {@code pattern}, or null when absent or not matching (recorded). */
  String pattern(QueryParams p, String member, String v, Pattern pattern) {
    if (v != null && !pattern.matcher(v).matches()) {
      add(p, member, v, "satisfy regular expression pattern: " + pattern.pattern());
      return null;
    }
    return v;
  }

  /** A list with at most {@code max} members; records the failure and returns false when longer. */
  boolean maxItems(QueryParams p, String member, List<?> items, int max) {
    if (items.size() > max) {
      messages.add("Value '" + items + "' at '" + awsName(p.name(member))
          + "' failed to satisfy constraint: Member must have length less than or equal to " + max);
      return false;
    }
    return true;
  }

  /** Throws every failure recorded so far as one {@code ValidationError}; does nothing when there is none. */
  void throwIfAny() {
    if (messages.isEmpty()) {
      return;
    }
    int n = messages.size();
    throw ApiError.validation(n + " validation error" + (n == 1 ? "" : "s") + " detected: " + String.join("; ", messages));
  }
}
