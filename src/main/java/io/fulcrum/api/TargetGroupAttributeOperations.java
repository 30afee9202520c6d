package io.fulcrum.api;

import io.fulcrum.model.Problems;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.vertx.core.Future;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * DescribeTargetGroupAttributes and ModifyTargetGroupAttributes. Both answer with every attribute
 * of the group, defaults included, AWS's keys in AWS's order and Fulcrum's own {@code fulcrum.}
 * keys after them (SPEC §3).
 */
final class TargetGroupAttributeOperations {

  static final int MAX_KEY_LENGTH = 256;
  static final int MAX_VALUE_LENGTH = 1024;
  static final String FULCRUM_PREFIX = "fulcrum.";
  private static final Pattern KEY = Pattern.compile("^[a-zA-Z0-9._]+$");

  private TargetGroupAttributeOperations() {
  }

  static void register(ElbApi api) {
    api.register("DescribeTargetGroupAttributes", TargetGroupAttributeOperations::describe)
        .register("ModifyTargetGroupAttributes", TargetGroupAttributeOperations::modify);
  }

  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String arn = v.required(p, "TargetGroupArn");
    v.throwIfAny();
    return Future.succeededFuture(List.of(attributes(ResourceLookup.targetGroup(ctx.resources(), arn))));
  }

  static Future<List<Xml>> modify(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String arn = v.required(p, "TargetGroupArn");
    List<QueryParams> list = p.structs("Attributes");
    if (list.isEmpty()) {
      v.add(p, "Attributes", null, "not be null");
    }
    Map<String, String> given = new LinkedHashMap<>();
    for (QueryParams a : list) {
      String key = v.required(a, "Key");
      if (key == null) {
        continue;
      }
      key = v.pattern(a, "Key", v.length(a, "Key", key, 1, MAX_KEY_LENGTH), KEY);
      String value = a.string("Value") == null ? "" : a.string("Value");
      value = v.length(a, "Value", value, 0, MAX_VALUE_LENGTH);
      if (key != null && value != null) {
        given.put(key, value);
      }
    }
    v.throwIfAny();
    String delay = given.get(TargetGroupAttributes.DEREGISTRATION_DELAY);
    if (delay != null && !isIntBetween(delay, 0, 3600)) {
      throw ApiError.validation("'" + TargetGroupAttributes.DEREGISTRATION_DELAY + "' value '" + delay
          + "' must be between '0-3600' inclusive");
    }
    return ctx.mutate(r -> {
      TargetGroup g = ResourceLookup.targetGroup(r, arn);
      Problems problems = new Problems();
      TargetGroupAttributes next = TargetGroupAttributes.resolve(g.targetType(), g.protocol(), g.attributes(), given,
          problems);
      if (next == null) {
        // The model records each problem at its key: name the key unless the message does.
        throw TargetGroupShapes.fromModel(problems.list(), given.keySet().stream()
            .collect(Collectors.toMap(Function.identity(), Function.identity())));
      }
      return next.equals(g.attributes()) ? r : TargetGroupShapes.replace(r, g.withAttributes(next));
    }).map(r -> List.of(attributes(ResourceLookup.targetGroup(r, arn))));
  }

  private static boolean isIntBetween(String s, int min, int max) {
    try {
      int n = Integer.parseInt(s);
      return n >= min && n <= max;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** {@code <Attributes>} with every attribute of the group, in order. */
  static Xml attributes(TargetGroup g) {
    List<Map.Entry<String, String>> entries = g.attributes().asMap().entrySet().stream()
        .sorted(Comparator.comparing(e -> e.getKey().startsWith(FULCRUM_PREFIX)))
        .toList();
    return Xml.list("Attributes", entries, e -> Xml.el("member").add("Key", e.getKey()).add("Value", e.getValue()));
  }
}
