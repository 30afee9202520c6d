package io.fulcrum.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The {@code Tags} parameter of the Create operations ({@code Tags.member.N.Key}/{@code Value}),
 * with AWS's rules: keys of 1-128 and values of 0-256 letters, digits, spaces and {@code _.:/=+-@},
 * no {@code aws:} prefix, no key twice ({@code DuplicateTagKeys}), at most 50 ({@code TooManyTags}).
 */
final class ResourceTagList {

  static final int MAX_TAGS = 50;
  private static final Pattern ALLOWED = Pattern.compile("[\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*");

  private ResourceTagList() {
  }

  /** The tags given, in order; empty when none. */
  static Map<String, String> parse(QueryParams params, String member) {
    List<QueryParams> tags = params.structs(member);
    Map<String, String> out = new LinkedHashMap<>();
    for (int i = 0; i < tags.size(); i++) {
      QueryParams t = tags.get(i);
      String where = "tags." + (i + 1) + ".member.";
      String key = t.string("Key");
      if (key == null) {
        throw ApiError.constraint(null, where + "key", "not be null");
      }
      if (key.isEmpty() || key.length() > 128) {
        throw ApiError.constraint(key, where + "key", "have length between 1 and 128");
      }
      if (!ALLOWED.matcher(key).matches()) {
        throw ApiError.constraint(key, where + "key", "satisfy regular expression pattern: " + ALLOWED.pattern());
      }
      if (key.startsWith("aws:")) {
        throw ApiError.validation("Tag key '" + key + "' uses the reserved prefix 'aws:'");
      }
      String value = t.string("Value") == null ? "" : t.string("Value");
      if (value.length() > 256) {
        throw ApiError.constraint(value, where + "value", "have length less than or equal to 256");
      }
      if (!ALLOWED.matcher(value).matches()) {
        throw ApiError.constraint(value, where + "value", "satisfy regular expression pattern: " + ALLOWED.pattern());
      }
      if (out.put(key, value) != null) {
        throw ApiError.sender("DuplicateTagKeys", "Tag key '" + key + "' is duplicated");
      }
    }
    if (out.size() > MAX_TAGS) {
      throw ApiError.sender("TooManyTags", out.size() + " tags is above the maximum " + MAX_TAGS + " per resource");
    }
    return out;
  }
}
