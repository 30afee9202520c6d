package io.fulcrum.listener;

import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.model.IpAddresses;
import io.fulcrum.routing.RequestFacts;
import io.fulcrum.routing.Rewrites;
import io.fulcrum.routing.RulePath;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A request as rule conditions see it, computing each fact on first use. Lives for one request
 * on the owning event loop.
 */
final class NodeRequest implements RequestFacts {

  private final String method;
  private final String uri;
  private final MultiMap headers;
  /** HTTP/2: the request's :authority; null for HTTP/1.x. */
  private final HostAndPort authority;
  private final boolean http2;
  private final SocketAddress remote;
  private final boolean absoluteForm;
  private String hostHeader;
  private boolean hostRead;
  private String path;
  private String rulePath;
  /** The request target and Host value a rule's transforms gave, or null (see {@link #rewrite}). */
  private String rewrittenUri;
  private String rewrittenHost;
  private boolean queryRead;
  private String queryString;
  private List<String[]> query;
  private byte[] source;

  NodeRequest(HttpServerRequest request) {
    this(request.method().name(), request.uri(), request.headers(),
        request.version() == io.vertx.core.http.HttpVersion.HTTP_2, request.remoteAddress(),
        request.version() == io.vertx.core.http.HttpVersion.HTTP_2 ? request.authority() : null);
  }

  /** An HTTP/1.x request as the direct path reads it, before Vert.x has seen it. */
  NodeRequest(String method, String uri, MultiMap headers, SocketAddress remote) {
    this(method, uri, headers, false, remote, null);
  }

  /** An HTTP/2 request as the direct path reads it from its HEADERS frame, before Vert.x has seen it. */
  NodeRequest(String method, String uri, MultiMap headers, SocketAddress remote, HostAndPort authority) {
    this(method, uri, headers, true, remote, authority);
  }

  private NodeRequest(String method, String uri, MultiMap headers, boolean http2, SocketAddress remote,
      HostAndPort authority) {
    this.method = method;
    this.uri = uri;
    this.headers = headers;
    this.http2 = http2;
    this.remote = remote;
    this.authority = authority;
    this.absoluteForm = absoluteForm(uri);
  }

  /**
   * Whether {@code uri} is a request target a load balancer serves (RFC 9112 §3.2, RFC 9113
   * §8.3.1): origin form ({@code /path?query}), absolute form ({@code scheme://authority/path}, over
   * HTTP/1.x), or asterisk form ({@code *}) for OPTIONS only. Any other (a relative path such as
   * {@code admin/x} or {@code ../etc}, CONNECT's {@code host:port}) would be matched by the rules as
   * one path and read by a target as another, or is not a request for a target at all. The path
   * must also be clean ({@link #cleanPath}).
   */
  static boolean servedTarget(String method, String uri, boolean http2) {
    if (uri.isEmpty()) {
      return false;
    }
    if (uri.charAt(0) == '/') {
      return cleanPath(uri, 0);
    }
    if (uri.equals("*")) {
      return method.equals("OPTIONS");
    }
    if (http2 || !absoluteForm(uri)) {
      return false;
    }
    int end = authorityEnd(uri);
    return end == uri.length() || uri.charAt(end) == '?' ? uri.indexOf('#', end) < 0
        : uri.charAt(end) == '/' && cleanPath(uri, end);
  }

  /** Where the authority of an absolute-form {@code uri} ends: at the first {@code /}, {@code ?} or {@code #} after it, or the end. */
  private static int authorityEnd(String uri) {
    int end = uri.indexOf("://") + 3;
    while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
      end++;
    }
    return end;
  }

  /** RFC 9110's tchar: the characters of a token, such as a method. */
  private static final boolean[] TOKEN_CHARS = new boolean[128];

  static {
    for (char c = '!'; c <= '~'; c++) {
      TOKEN_CHARS[c] = "\"(),/:;<=>?@[\\]{}".indexOf(c) < 0;
    }
  }

  /** Whether {@code method} is a token (RFC 9110 §9.1), which a request line can carry. */
  static boolean methodToken(CharSequence method) {
    return method.length() > 0 && onlyOf(method, TOKEN_CHARS);
  }

  /** Whether every character of {@code s} is ASCII and one that {@code chars} marks. */
  private static boolean onlyOf(CharSequence s, boolean[] chars) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 128 || !chars[c]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether an HTTP/2 {@code :path} can go on in an HTTP/1.1 request line: no space, tab or other
   * control character, at which a target's parser would end the target or the line (the codec
   * refuses CR, LF and NUL itself).
   */
  static boolean requestLinePath(CharSequence path) {
    for (int i = 0; i < path.length(); i++) {
      char c = path.charAt(i);
      if (c <= ' ' || c == 0x7f) {
        return false;
      }
    }
    return true;
  }

  /**
   * Whether the request target {@code uri}, from the {@code /} at {@code start} that begins its
   * path, holds no fragment and no dot segments that climb above the root. A fragment ({@code #},
   * RFC 9112 §3.2, RFC 9113 §8.3.1) is kept by clients to themselves: a rule for {@code *.png} would
   * route {@code /private.html#.png} (HAProxy refuses it since 2.8.2, CVE-2023-45539). A path such
   * as {@code /../etc/passwd} or {@code /a/%2e%2e/../x} names nothing under the root: a target that
   * maps paths to files could read it as a file outside its tree (NGINX refuses it too). Dot
   * segments that stay under the root ({@code /a/../b}) are left as they are.
   */
  static boolean cleanPath(CharSequence uri, int start) {
    int n = uri.length();
    int depth = 0;
    int segment = start + 1;
    boolean query = false;
    for (int i = start + 1; i <= n; i++) {
      char c = i < n ? uri.charAt(i) : '/';
      if (c == '#') {
        return false;
      }
      if (query || (c != '/' && c != '?')) {
        continue;
      }
      int dots = dots(uri, segment, i);
      if (dots == 2 && --depth < 0) {
        return false;
      }
      if (dots < 0) {
        depth++;
      }
      segment = i + 1;
      query = c == '?';
    }
    return true;
  }

  /**
   * The dots of segment {@code uri[from, to)} when it is {@code .} or {@code ..} (either dot may be
   * written {@code %2e}), 0 when it is empty, -1 for any other segment.
   */
  private static int dots(CharSequence uri, int from, int to) {
    int dots = 0;
    int i = from;
    while (i < to) {
      if (uri.charAt(i) == '.') {
        i++;
      } else if (i + 2 < to && uri.charAt(i) == '%' && uri.charAt(i + 1) == '2'
          && (uri.charAt(i + 2) == 'e' || uri.charAt(i + 2) == 'E')) {
        i += 3;
      } else {
        return -1;
      }
      if (++dots > 2) {
        return -1;
      }
    }
    return dots;
  }

  /**
   * The characters a Host header's value may hold (RFC 9110 §7.2: {@code uri-host [":" port]}, the
   * host a reg-name, an IPv4 address or an IP literal, RFC 3986 §3.2.2): no space, slash, {@code @},
   * quote or anything else a target could read as more than a host.
   */
  private static final boolean[] HOST_CHARS = new boolean[128];

  static {
    for (char c = 'a'; c <= 'z'; c++) {
      HOST_CHARS[c] = true;
      HOST_CHARS[Character.toUpperCase(c)] = true;
    }
    for (char c = '0'; c <= '9'; c++) {
      HOST_CHARS[c] = true;
    }
    for (char c : "-._~%!$&'()*+,;=:[]".toCharArray()) {
      HOST_CHARS[c] = true;
    }
  }

  /**
   * Whether a request's Host header (null: none) is acceptable: RFC 9112 §3.2 has a server answer
   * 400 to an HTTP/1.1 request without one ({@code required}) and to one whose value is not a host,
   * as NGINX does. Forwarded, a value that is no host could be taken for one by a target (an
   * absolute URL built from it) that no host-header rule ever saw. An empty value is a host (a
   * target without authority); HTTP/1.0 and HTTP/2 (whose {@code :authority} carries the host) need
   * none.
   */
  static boolean validHost(String host, boolean required) {
    if (host == null) {
      return !required;
    }
    if (!onlyOf(host, HOST_CHARS)) {
      return false;
    }
    // Brackets enclose an IP literal, the whole host, before at most a port ([::1]:8080): a bracket
    // anywhere else ([::1, a]b, [::1]x) would leave each target to read the host its own way.
    int open = host.indexOf('[');
    int close = host.indexOf(']');
    if (open < 0 && close < 0) {
      return true;
    }
    return open == 0 && close > 1 && host.indexOf('[', 1) < 0 && host.indexOf(']', close + 1) < 0
        && (close == host.length() - 1 || host.charAt(close + 1) == ':');
  }

  /** Whether {@code uri} is in absolute form: a scheme (RFC 3986 §3.1) followed by {@code ://}. */
  static boolean absoluteForm(String uri) {
    // The first character first: an origin-form target (every request but a proxy's) is not scanned.
    if (uri.isEmpty() || !isAlpha(uri.charAt(0))) {
      return false;
    }
    int end = uri.indexOf("://");
    if (end < 0) {
      return false;
    }
    for (int i = 1; i < end; i++) {
      char c = uri.charAt(i);
      if (!isAlpha(c) && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.') {
        return false;
      }
    }
    return true;
  }

  private static boolean isAlpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }

  /** The Host value as the client gave it (from the absolute URI when it used one), or null. */
  String hostHeader() {
    if (!hostRead) {
      hostRead = true;
      if (absoluteForm) {
        // Not request.authority(): for HTTP/1.x Vert.x takes that from the Host header.
        hostHeader = uriAuthority(uri);
      } else if (http2) {
        // HTTP/2 carries the host in :authority (a Host header, if any, may only repeat it).
        HostAndPort a = authority;
        hostHeader = a == null ? headers.get(HttpHeaders.HOST) : a.port() < 0 ? a.host() : a.host() + ":" + a.port();
      } else {
        hostHeader = headers.get(HttpHeaders.HOST);
      }
    }
    return hostHeader;
  }

  /** The request target as the client sent it. */
  String uri() {
    return uri;
  }

  /** What a rule's transforms did to a request ({@link #rewrite}). */
  enum Rewritten { NOTHING, REWRITTEN, FAILED }

  /**
   * Applies a forwarding rule's transforms: the host name of the Host header (its port kept) and
   * the request target in origin form, each rewritten where its expression matches (the host name in
   * lower case, as it is forwarded). What goes to the
   * target must still be a request a target can take: a target in origin form (a {@code /path},
   * without a space, control character or fragment, and no dot segments that climb above the root)
   * and a host; a rewrite that gives anything else fails, and the request gets 500 as on AWS. The
   * facts rules looked at stay as the client sent them.
   */
  Rewritten rewrite(Rewrites rewrites) {
    String host = host();
    // The expression sees the host name as it is forwarded: in lower case (SPEC §11.1).
    String newHost = rewrites.host(host == null ? null : host.toLowerCase(java.util.Locale.ROOT));
    String newUri = rewrites.url(originForm());
    if (newHost == null && newUri == null) {
      return Rewritten.NOTHING;
    }
    if (newHost != null) {
      String header = hostHeader();
      String port = header.substring(host.length()); // ":8080" or ""
      if (newHost.isEmpty() || !validHost(newHost + port, true)) {
        return Rewritten.FAILED;
      }
      rewrittenHost = newHost + port;
    }
    if (newUri != null) {
      if (newUri.isEmpty() || newUri.charAt(0) != '/' || !requestLinePath(newUri) || !cleanPath(newUri, 0)) {
        return Rewritten.FAILED;
      }
      rewrittenUri = newUri;
    }
    return Rewritten.REWRITTEN;
  }

  /** The Host value a host transform gave, or null. */
  String rewrittenHost() {
    return rewrittenHost;
  }

  /** The request target a URL transform gave, or null. */
  String rewrittenUri() {
    return rewrittenUri;
  }

  /** The Host value for the target: as a transform rewrote it, else as the client gave it; may be null. */
  String targetHostHeader() {
    return rewrittenHost != null ? rewrittenHost : hostHeader();
  }

  /** The request target in origin form ({@code /path?query}), as sent to targets (after any URL transform). */
  String originForm() {
    if (rewrittenUri != null) {
      return rewrittenUri;
    }
    if (!absoluteForm) {
      return uri;
    }
    String q = query();
    return q == null ? path() : path() + "?" + q;
  }

  @Override
  public String path() {
    if (path == null) {
      String p = pathOf(uri);
      path = p.isEmpty() ? "/" : p;
    }
    return path;
  }

  @Override
  public String rulePath() {
    if (rulePath == null) {
      rulePath = RulePath.of(path());
    }
    return rulePath;
  }

  /** The query string (after the first {@code ?}), or null when there is none. */
  String query() {
    if (!queryRead) {
      queryRead = true;
      int q = uri.indexOf('?');
      queryString = q < 0 ? null : uri.substring(q + 1);
    }
    return queryString;
  }

  /**
   * The path of a request target: origin form up to the query; absolute form from the first
   * {@code /} after the authority ({@code /} when there is none). As Vert.x reads it.
   */
  static String pathOf(String uri) {
    if (uri.isEmpty()) {
      return "";
    }
    int start = 0;
    if (uri.charAt(0) != '/') {
      if (uri.contains("://")) {
        start = authorityEnd(uri);
        if (start == uri.length() || uri.charAt(start) != '/') {
          return "/"; // http://host or http://host?query: no path
        }
      }
    }
    int q = uri.indexOf('?', start);
    return start == 0 && q < 0 ? uri : uri.substring(start, q < 0 ? uri.length() : q);
  }

  @Override
  public String host() {
    return ForwardHeaders.hostName(hostHeader());
  }

  @Override
  public String method() {
    return method;
  }

  @Override
  public MultiMap headers() {
    return headers;
  }

  @Override
  public List<String[]> queryParameters() {
    if (query == null) {
      String q = query();
      if (q == null || q.isEmpty()) {
        query = List.of();
      } else {
        List<String[]> out = new ArrayList<>();
        for (String part : q.split("&")) {
          if (part.isEmpty()) {
            continue;
          }
          int eq = part.indexOf('=');
          String k = eq < 0 ? part : part.substring(0, eq);
          String v = eq < 0 ? "" : part.substring(eq + 1);
          out.add(new String[] {decode(k), decode(v)});
        }
        query = out;
      }
    }
    return query;
  }

  @Override
  public byte[] sourceAddress() {
    if (source == null) {
      source = IpAddresses.parse(remote.hostAddress());
    }
    return source;
  }

  /** The authority of an absolute URI ({@code http://user@host:port/path}: {@code host:port}), or null. */
  static String uriAuthority(String uri) {
    int start = uri.indexOf("://") + 3;
    int end = authorityEnd(uri);
    int at = uri.lastIndexOf('@', end - 1);
    if (at >= start) {
      start = at + 1;
    }
    return end > start ? uri.substring(start, end) : null;
  }

  private static String decode(String s) {
    try {
      return QueryStringDecoder.decodeComponent(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }
}
