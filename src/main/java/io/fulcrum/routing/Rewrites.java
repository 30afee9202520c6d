package io.fulcrum.routing;

import io.fulcrum.model.RuleTransform;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's transforms, compiled: each rewrites the first match of its regular expression in the
 * Host header's host name ({@code host-header-rewrite}) or in the request URL, path and query in
 * origin form ({@code url-rewrite}); a value without a match is left as it is. Immutable, shared
 * by every event loop ({@link Pattern} is thread-safe; each use takes its own {@link Matcher}).
 */
public final class Rewrites {

  private final Rewrite host;
  private final Rewrite url;

  private Rewrites(Rewrite host, Rewrite url) {
    this.host = host;
    this.url = url;
  }

  /** The compiled transforms, or null when there are none. */
  static Rewrites of(List<RuleTransform> transforms) {
    if (transforms.isEmpty()) {
      return null;
    }
    Rewrite host = null;
    Rewrite url = null;
    for (RuleTransform t : transforms) {
      if (t.type() == RuleTransform.Type.HOST_HEADER_REWRITE) {
        host = new Rewrite(t);
      } else {
        url = new Rewrite(t);
      }
    }
    return new Rewrites(host, url);
  }

  /** {@code hostName} rewritten, or null when there is no host transform or it does not match. */
  public String host(String hostName) {
    return host == null || hostName == null ? null : host.apply(hostName);
  }

  /** {@code originForm} ({@code /path?query}) rewritten, or null when there is no URL transform or it does not match. */
  public String url(String originForm) {
    return url == null ? null : url.apply(originForm);
  }

  /**
   * One expression and its replacement, read once into literal text and group numbers
   * ({@link RuleTransform#GROUP_REFERENCE}): {@code literals[0] group[0] literals[1] ...}.
   */
  static final class Rewrite {
    private final Pattern pattern;
    private final String[] literals;
    private final int[] groups;

    Rewrite(RuleTransform t) {
      this.pattern = t.pattern();
      List<String> text = new ArrayList<>();
      List<Integer> refs = new ArrayList<>();
      Matcher m = RuleTransform.GROUP_REFERENCE.matcher(t.replace());
      int at = 0;
      while (m.find()) {
        text.add(t.replace().substring(at, m.start()));
        refs.add(Integer.parseInt(m.group(1) != null ? m.group(1) : m.group(2)));
        at = m.end();
      }
      text.add(t.replace().substring(at));
      this.literals = text.toArray(String[]::new);
      this.groups = refs.stream().mapToInt(Integer::intValue).toArray();
    }

    /** {@code input} with the first match replaced, or null when there is none. */
    String apply(String input) {
      Matcher m = pattern.matcher(input);
      if (!m.find()) {
        return null;
      }
      StringBuilder out = new StringBuilder(input.length() + 16).append(input, 0, m.start());
      for (int i = 0; i < groups.length; i++) {
        out.append(literals[i]);
        String group = m.group(groups[i]);
        if (group != null) {
          out.append(group);
        }
      }
      return out.append(literals[groups.length]).append(input, m.end(), input.length()).toString();
    }
  }
}
