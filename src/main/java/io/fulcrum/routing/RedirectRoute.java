package io.fulcrum.routing;

import io.fulcrum.model.Action;
import java.util.ArrayList;
import java.util.List;

/**
 * A redirect whose URL components may reuse {@code #{protocol}}, {@code #{host}},
 * {@code #{port}}, {@code #{path}} and {@code #{query}} of the request. The templates are split
 * into parts once, so building a Location header is a few appends.
 */
public final class RedirectRoute implements RouteAction {

  private static final String[] TOKENS = {"#{protocol}", "#{host}", "#{port}", "#{path}", "#{query}"};

  private final int priority;
  private final int statusCode;
  private final Object[] protocol;
  private final Object[] host;
  private final Object[] port;
  private final Object[] path;
  private final Object[] query;

  RedirectRoute(int priority, Action.Redirect r) {
    this.priority = priority;
    this.statusCode = r.statusCode();
    this.protocol = parse(r.protocol());
    this.host = parse(r.host());
    this.port = parse(r.port());
    this.path = parse(r.path());
    this.query = parse(r.query());
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public String executed() {
    return "redirect";
  }

  public int statusCode() {
    return statusCode;
  }

  /**
   * The Location for a request.
   *
   * @param reqProtocol {@code HTTP} or {@code HTTPS}, the listener's protocol
   * @param reqHost     the host name without port
   * @param reqPort     the listener port
   * @param reqPath     the path, starting with {@code /}
   * @param reqQuery    the raw query without {@code ?}, or {@code null}
   */
  public String location(String reqProtocol, String reqHost, int reqPort, String reqPath, String reqQuery) {
    String[] values = {reqProtocol, reqHost, Integer.toString(reqPort),
        reqPath.startsWith("/") ? reqPath.substring(1) : reqPath, reqQuery == null ? "" : reqQuery};
    StringBuilder b = new StringBuilder(64);
    int schemeStart = b.length();
    append(b, protocol, values);
    for (int i = schemeStart; i < b.length(); i++) {
      b.setCharAt(i, Character.toLowerCase(b.charAt(i)));
    }
    b.append("://");
    append(b, host, values);
    b.append(':');
    append(b, port, values);
    append(b, path, values);
    int q = b.length();
    b.append('?');
    append(b, query, values);
    if (b.length() == q + 1) {
      b.setLength(q);
    }
    return b.toString();
  }

  private static void append(StringBuilder b, Object[] parts, String[] values) {
    for (Object p : parts) {
      if (p instanceof Integer token) {
        b.append(values[token]);
      } else {
        b.append((String) p);
      }
    }
  }

  /** Splits a template into literal strings and token indexes. */
  private static Object[] parse(String template) {
    List<Object> parts = new ArrayList<>();
    int i = 0;
    StringBuilder lit = new StringBuilder();
    outer:
    while (i < template.length()) {
      for (int t = 0; t < TOKENS.length; t++) {
        if (template.startsWith(TOKENS[t], i)) {
          if (lit.length() > 0) {
            parts.add(lit.toString());
            lit.setLength(0);
          }
          parts.add(t);
          i += TOKENS[t].length();
          continue outer;
        }
      }
      lit.append(template.charAt(i++));
    }
    if (lit.length() > 0) {
      parts.add(lit.toString());
    }
    return parts.toArray();
  }
}
