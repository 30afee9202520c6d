package io.fulcrum.routing;

import io.fulcrum.model.RuleTransform;
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

  private final Pattern host;
  private final String hostReplacement;
  private final Pattern url;
  private final String urlReplacement;

  private Rewrites(Pattern host, String hostReplacement, Pattern url, String urlReplacement) {
    this.host = host;
    this.hostReplacement = hostReplacement;
    this.url = url;
    this.urlReplacement = urlReplacement;
  }

  /** The compiled transforms, or null when there are none. */
  static Rewrites of(List<RuleTransform> transforms) {
    if (transforms.isEmpty()) {
      return null;
    }
    Pattern host = null;
    String hostReplacement = null;
    Pattern url = null;
    String urlReplacement = null;
    for (RuleTransform t : transforms) {
      if (t.type() == RuleTransform.Type.HOST_HEADER_REWRITE) {
        host = t.pattern();
        hostReplacement = t.javaReplacement();
      } else {
        url = t.pattern();
        urlReplacement = t.javaReplacement();
      }
    }
    return new Rewrites(host, hostReplacement, url, urlReplacement);
  }

  /** {@code hostName} rewritten, or null when there is no host transform or it does not match. */
  public String host(String hostName) {
    return host == null || hostName == null ? null : replaceFirst(host, hostName, hostReplacement);
  }

  /** {@code originForm} ({@code /path?query}) rewritten, or null when there is no URL transform or it does not match. */
  public String url(String originForm) {
    return url == null ? null : replaceFirst(url, originForm, urlReplacement);
  }

  private static String replaceFirst(Pattern p, String input, String replacement) {
    Matcher m = p.matcher(input);
    if (!m.find()) {
      return null;
    }
    StringBuilder out = new StringBuilder(input.length() + replacement.length());
    m.appendReplacement(out, replacement);
    m.appendTail(out);
    return out.toString();
  }
}
