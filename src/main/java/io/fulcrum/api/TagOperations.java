package io.fulcrum.api;

import io.fulcrum.model.Resources;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * AddTags, RemoveTags and DescribeTags for target groups, load balancers, listeners and rules.
 * Tags live in {@link Resources#tags()} by ARN; every change goes through
 * {@link ApiContext#mutate}.
 */
final class TagOperations {

  /** Tags per resource (ELBv2 quota). */
  static final int MAX_TAGS = 50;
  /** ARNs per AddTags / RemoveTags / DescribeTags call. */
  static final int MAX_RESOURCE_ARNS = 20;
  static final int MAX_KEY_LENGTH = 128;
  static final int MAX_VALUE_LENGTH = 256;
  private static final Pattern TAG_TEXT = Pattern.compile("^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$");

  private TagOperations() {
  }

  static void register(ElbApi api) {
    api.register("AddTags", TagOperations::addTags)
        .register("RemoveTags", TagOperations::removeTags)
        .register("DescribeTags", TagOperations::describeTags);
  }

  /**
   * The {@code Tags.member.N.Key/Value} of a request, in order, with AWS's field constraints
   * recorded in {@code v}. A key given twice is {@code DuplicateTagKeys}; a key starting with
   * {@code aws:} is reserved.
   */
  static Map<String, String> readTags(QueryParams p, String member, Violations v) {
    Map<String, String> tags = new LinkedHashMap<>();
    for (QueryParams t : p.structs(member)) {
      String key = v.required(t, "Key");
      String value = t.string("Value") == null ? "" : t.string("Value");
      if (key == null) {
        continue;
      }
      key = v.pattern(t, "Key", v.length(t, "Key", key, 1, MAX_KEY_LENGTH), TAG_TEXT);
      value = v.pattern(t, "Value", v.length(t, "Value", value, 0, MAX_VALUE_LENGTH), TAG_TEXT);
      if (key == null || value == null) {
        continue;
      }
      if (key.regionMatches(true, 0, "aws:", 0, 4)) {
        throw ApiError.validation("Tag keys starting with 'aws:' are reserved for internal use (key '" + key + "')");
      }
      if (tags.put(key, value) != null) {
        throw ApiError.sender("DuplicateTagKeys", "Tag key was specified more than once: " + key);
      }
    }
    return tags;
  }

  /** {@code TooManyTags} when a resource would carry more than 50 tags. */
  static void checkCount(Map<String, String> tags, ResourceLookup.Kind kind) {
    if (tags.size() > MAX_TAGS) {
      throw ApiError.sender("TooManyTags", "The quota for the number of tags that can be assigned to a " + kind.noun
          + " has been reached (" + tags.size() + " tags; at most " + MAX_TAGS + ")");
    }
  }

  private static List<String> resourceArns(QueryParams p, Violations v) {
    List<String> arns = p.strings("ResourceArns");
    if (arns.isEmpty()) {
      v.add(p, "ResourceArns", null, "not be null");
    }
    v.maxItems(p, "ResourceArns", arns, MAX_RESOURCE_ARNS);
    return List.copyOf(new LinkedHashSet<>(arns));
  }

  static Future<List<Xml>> addTags(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    List<String> arns = resourceArns(p, v);
    if (p.structs("Tags").isEmpty()) {
      v.add(p, "Tags", null, "not be null");
    }
    Map<String, String> tags = readTags(p, "Tags", v);
    v.throwIfAny();
    arns.forEach(ResourceLookup::kind);
    return ctx.mutate(r -> {
      Map<String, Map<String, String>> all = new LinkedHashMap<>(r.tags());
      for (String arn : arns) {
        ResourceLookup.Kind kind = ResourceLookup.requireTaggable(r, arn);
        Map<String, String> merged = new LinkedHashMap<>(r.tagsOf(arn));
        merged.putAll(tags);
        checkCount(merged, kind);
        all.put(arn, merged);
      }
      return all.equals(r.tags()) ? r : new Resources(r.loadBalancers(), r.targetGroups(), all);
    }).map(r -> List.of());
  }

  static Future<List<Xml>> removeTags(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    List<String> arns = resourceArns(p, v);
    List<String> keys = p.strings("TagKeys");
    if (keys.isEmpty()) {
      v.add(p, "TagKeys", null, "not be null");
    }
    for (int i = 0; i < keys.size(); i++) {
      v.length(p, "TagKeys.member." + (i + 1), keys.get(i), 1, MAX_KEY_LENGTH);
    }
    v.throwIfAny();
    arns.forEach(ResourceLookup::kind);
    Set<String> remove = Set.copyOf(keys);
    return ctx.mutate(r -> {
      Map<String, Map<String, String>> all = new LinkedHashMap<>(r.tags());
      for (String arn : arns) {
        ResourceLookup.requireTaggable(r, arn);
        Map<String, String> left = new LinkedHashMap<>(r.tagsOf(arn));
        left.keySet().removeAll(remove);
        if (left.isEmpty()) {
          all.remove(arn);
        } else {
          all.put(arn, left);
        }
      }
      return all.equals(r.tags()) ? r : new Resources(r.loadBalancers(), r.targetGroups(), all);
    }).map(r -> List.of());
  }

  static Future<List<Xml>> describeTags(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    List<String> arns = resourceArns(p, v);
    v.throwIfAny();
    Resources r = ctx.resources();
    List<Xml> descriptions = new ArrayList<>();
    for (String arn : arns) {
      ResourceLookup.requireTaggable(r, arn);
      descriptions.add(Xml.el("member").add("ResourceArn", arn).add(tagList(r.tagsOf(arn))));
    }
    Xml out = Xml.el("TagDescriptions");
    descriptions.forEach(out::add);
    return Future.succeededFuture(List.of(out));
  }

  static Xml tagList(Map<String, String> tags) {
    return Xml.list("Tags", tags.entrySet(), e -> Xml.el("member").add("Key", e.getKey()).add("Value", e.getValue()));
  }
}
