package io.fulcrum.sticky;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.List;

/**
 * A request's {@code Cookie} header, parsed once by a hand-written scanner (no regex, no map): the
 * spans of every cookie, and the values of Fulcrum's own stickiness cookies. Built only for
 * requests to sticky target groups. Not thread-safe; lives for one request on one event loop.
 */
public final class RequestCookies {

  /** The app-cookie shards {@code AWSALBAPP-0} .. {@code AWSALBAPP-3}. */
  public static final int APP_SHARDS = 4;

  private final String text;
  /** Per cookie: name start, name end, value start, value end. */
  private int[] spans = new int[16];
  private int count;
  private boolean fulcrumCookies;
  private String lb;
  private String lbCors;
  private String tg;
  private String tgCors;
  private final String[] app = new String[APP_SHARDS];

  private RequestCookies(String text) {
    this.text = text;
    parse();
  }

  /** The cookies of a request (no {@code Cookie} header: none). */
  public static RequestCookies of(MultiMap headers) {
    List<String> all = headers.getAll(HttpHeaders.COOKIE);
    if (all.isEmpty()) {
      return new RequestCookies("");
    }
    // HTTP/1.1 clients send one Cookie header; several are read as one list.
    return new RequestCookies(all.size() == 1 ? all.get(0) : String.join("; ", all));
  }

  /** Parses a header value (tests). */
  public static RequestCookies parse(String header) {
    return new RequestCookies(header);
  }

  private void parse() {
    String s = text;
    int len = s.length();
    int i = 0;
    while (i < len) {
      char c = s.charAt(i);
      if (c == ' ' || c == '\t' || c == ';') {
        i++;
        continue;
      }
      int ns = i;
      while (i < len && (c = s.charAt(i)) != '=' && c != ';') {
        i++;
      }
      int ne = i;
      while (ne > ns && isSpace(s.charAt(ne - 1))) {
        ne--;
      }
      int vs = i;
      int ve = i;
      if (i < len && s.charAt(i) == '=') {
        i++;
        while (i < len && isSpace(s.charAt(i))) {
          i++;
        }
        vs = i;
        while (i < len && s.charAt(i) != ';') {
          i++;
        }
        ve = i;
        while (ve > vs && isSpace(s.charAt(ve - 1))) {
          ve--;
        }
      }
      add(ns, ne, vs, ve);
    }
  }

  private void add(int ns, int ne, int vs, int ve) {
    if (count * 4 == spans.length) {
      spans = java.util.Arrays.copyOf(spans, spans.length * 2);
    }
    int at = count * 4;
    spans[at] = ns;
    spans[at + 1] = ne;
    spans[at + 2] = vs;
    spans[at + 3] = ve;
    count++;
    switch (kind(ns, ne)) {
      case LB -> lb = lb == null ? text.substring(vs, ve) : lb;
      case LB_CORS -> lbCors = lbCors == null ? text.substring(vs, ve) : lbCors;
      case TG -> tg = tg == null ? text.substring(vs, ve) : tg;
      case TG_CORS -> tgCors = tgCors == null ? text.substring(vs, ve) : tgCors;
      case APP -> {
        int shard = text.charAt(ne - 1) - '0';
        app[shard] = app[shard] == null ? text.substring(vs, ve) : app[shard];
      }
      default -> {
        return;
      }
    }
    // The first of a name wins (a browser sends the cookie of the most specific path first).
    fulcrumCookies = true;
  }

  private static final int OTHER = 0;
  private static final int LB = 1;
  private static final int LB_CORS = 2;
  private static final int TG = 3;
  private static final int TG_CORS = 4;
  private static final int APP = 5;

  /** Which of Fulcrum's cookies the name {@code text[ns, ne)} is, or {@link #OTHER}. */
  private int kind(int ns, int ne) {
    int n = ne - ns;
    if (n < 6 || !text.startsWith("AWSALB", ns)) {
      return OTHER;
    }
    if (n == 6) {
      return LB;
    }
    if (n == 10 && text.startsWith("CORS", ns + 6)) {
      return LB_CORS;
    }
    if (n == 8 && text.startsWith("TG", ns + 6)) {
      return TG;
    }
    if (n == 12 && text.startsWith("TGCORS", ns + 6)) {
      return TG_CORS;
    }
    if (n == 11 && text.startsWith("APP-", ns + 6) && text.charAt(ns + 10) >= '0'
        && text.charAt(ns + 10) < '0' + APP_SHARDS) {
      return APP;
    }
    return OTHER;
  }

  private static boolean isSpace(char c) {
    return c == ' ' || c == '\t';
  }

  /** How many cookies the header holds. */
  public int size() {
    return count;
  }

  /** Whether a cookie of this exact name was sent. */
  public boolean has(String name) {
    return index(name) >= 0;
  }

  /** The value of the first cookie of this name, or null. */
  public String value(String name) {
    int i = index(name);
    return i < 0 ? null : text.substring(spans[i * 4 + 2], spans[i * 4 + 3]);
  }

  private int index(String name) {
    int n = name.length();
    for (int i = 0; i < count; i++) {
      int ns = spans[i * 4];
      if (spans[i * 4 + 1] - ns == n && text.startsWith(name, ns)) {
        return i;
      }
    }
    return -1;
  }

  /** {@code AWSALB}, or null. */
  public String lb() {
    return lb;
  }

  /** {@code AWSALBCORS}, or null. */
  public String lbCors() {
    return lbCors;
  }

  /** {@code AWSALBTG}, or null. */
  public String tg() {
    return tg;
  }

  /** {@code AWSALBTGCORS}, or null. */
  public String tgCors() {
    return tgCors;
  }

  /** {@code AWSALBAPP-<shard>}, or null. */
  public String app(int shard) {
    return app[shard];
  }

  /** Whether any of Fulcrum's stickiness cookies was sent. */
  public boolean hasStickinessCookies() {
    return fulcrumCookies;
  }

  /**
   * The header without Fulcrum's stickiness cookies (they are not passed to targets), the others
   * in their order; null when none is left.
   */
  public String withoutStickinessCookies() {
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < count; i++) {
      int ns = spans[i * 4];
      int ne = spans[i * 4 + 1];
      if (kind(ns, ne) != OTHER) {
        continue;
      }
      if (out.length() > 0) {
        out.append("; ");
      }
      out.append(text, ns, Math.max(ne, spans[i * 4 + 3]));
    }
    return out.length() == 0 ? null : out.toString();
  }

  /** Removes Fulcrum's stickiness cookies from the request's {@code Cookie} header, if it has any. */
  public void strip(MultiMap headers) {
    if (!fulcrumCookies) {
      return;
    }
    String rest = withoutStickinessCookies();
    if (rest == null) {
      headers.remove(HttpHeaders.COOKIE);
    } else {
      headers.set(HttpHeaders.COOKIE, rest);
    }
  }
}
