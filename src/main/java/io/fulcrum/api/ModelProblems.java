package io.fulcrum.api;

import io.fulcrum.model.Problem;
import io.fulcrum.model.Problems;
import java.util.Map;
import java.util.Set;

/**
 * Turns a problem found by a model validator into the error an API client sees: its code, and a
 * message that names the request parameter ({@code Actions.member.1.FixedResponseConfig.StatusCode})
 * rather than the model's config-style key ({@code status-code}).
 */
final class ModelProblems {

  /** Model keys whose request parameter is not just their PascalCase form. */
  private static final Map<String, String> MEMBERS = Map.of(
      "target-groups", "ForwardConfig.TargetGroups",
      "stickiness", "ForwardConfig.TargetGroupStickinessConfig",
      "http-header-name", "HttpHeaderConfig.HttpHeaderName");

  /** Model keys of maps: the segment after one is a key of the map, named as given. */
  private static final Set<String> MAPS = Set.of("authentication-request-extra-params");

  private ModelProblems() {
  }

  /** Throws the first problem recorded after {@code before} problems, if any. */
  static void throwFirst(Problems p, int before) {
    if (p.size() > before) {
      throw toApiError(p.list().get(before));
    }
  }

  static ApiError toApiError(Problem p) {
    String path = parameter(p.path());
    return ApiError.sender(p.code(), path.isEmpty() ? p.message() : path + ": " + p.message());
  }

  /** {@code Actions.member.1.target-groups[0].weight} as {@code Actions.member.1.ForwardConfig.TargetGroups.member.1.Weight}. */
  static String parameter(String path) {
    if (path.isEmpty()) {
      return path;
    }
    StringBuilder out = new StringBuilder();
    String[] segments = path.split("\\.");
    for (int s = 0; s < segments.length; s++) {
      String segment = segments[s];
      String name = segment;
      String index = null;
      int bracket = segment.indexOf('[');
      if (bracket >= 0 && segment.endsWith("]")) {
        name = segment.substring(0, bracket);
        index = segment.substring(bracket + 1, segment.length() - 1);
      }
      if (out.length() > 0 && !name.isEmpty()) {
        out.append('.');
      }
      out.append(member(name));
      if (MAPS.contains(name) && index == null && s + 1 < segments.length) {
        // A map's key may hold dots and dashes of its own: the rest of the path is that key.
        return out.append('.').append(path.substring(path.indexOf(name + ".") + name.length() + 1)).toString();
      }
      if (index != null) {
        try {
          out.append(".member.").append(Integer.parseInt(index) + 1);
        } catch (NumberFormatException e) {
          out.append('[').append(index).append(']');
        }
      }
    }
    return out.toString();
  }

  private static String member(String name) {
    String mapped = MEMBERS.get(name);
    if (mapped != null) {
      return mapped;
    }
    if (name.isEmpty() || name.equals("member") || !Character.isLowerCase(name.charAt(0))) {
      return name;
    }
    StringBuilder b = new StringBuilder();
    for (String part : name.split("-")) {
      if (!part.isEmpty()) {
        b.append(Character.toUpperCase(part.charAt(0))).append(part.substring(1));
      }
    }
    return b.toString();
  }
}
