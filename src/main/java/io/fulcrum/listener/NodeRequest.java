package io.fulcrum.listener;

import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.model.IpAddresses;
import io.fulcrum.routing.RequestFacts;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A request as rule conditions see it, computing each fact on first use. Lives for one request
 * on the owning event loop.
 */
final class NodeRequest implements RequestFacts {

  private final HttpServerRequest request;
  private final boolean absoluteForm;
  private String hostHeader;
  private boolean hostRead;
  private String path;
  private List<String[]> query;
  private byte[] source;

  NodeRequest(HttpServerRequest request) {
    this.request = request;
    String uri = request.uri();
    this.absoluteForm = !uri.isEmpty() && uri.charAt(0) != '/' && uri.indexOf("://") > 0;
  }

  /** The Host value as the client gave it (from the absolute URI when it used one), or null. */
  String hostHeader() {
    if (!hostRead) {
      hostRead = true;
      if (absoluteForm) {
        // Not request.authority(): for HTTP/1.x Vert.x takes that from the Host header.
        hostHeader = uriAuthority(request.uri());
      } else if (request.version() == io.vertx.core.http.HttpVersion.HTTP_2) {
        // HTTP/2 carries the host in :authority (a Host header, if any, may only repeat it).
        io.vertx.core.net.HostAndPort a = request.authority();
        hostHeader = a == null ? request.headers().get(HttpHeaders.HOST) : a.port() < 0 ? a.host() : a.host() + ":" + a.port();
      } else {
        hostHeader = request.headers().get(HttpHeaders.HOST);
      }
    }
    return hostHeader;
  }

  /** The request target in origin form ({@code /path?query}), as sent to targets. */
  String originForm() {
    String uri = request.uri();
    if (!absoluteForm) {
      return uri;
    }
    String q = request.query();
    return q == null ? path() : path() + "?" + q;
  }

  @Override
  public String path() {
    if (path == null) {
      String p = request.path();
      path = p == null || p.isEmpty() ? "/" : p;
    }
    return path;
  }

  @Override
  public String host() {
    return ForwardHeaders.hostName(hostHeader());
  }

  @Override
  public String method() {
    return request.method().name();
  }

  @Override
  public MultiMap headers() {
    return request.headers();
  }

  @Override
  public List<String[]> queryParameters() {
    if (query == null) {
      String q = request.query();
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
      source = IpAddresses.parse(request.remoteAddress().hostAddress());
    }
    return source;
  }

  /** The authority of an absolute URI ({@code http://user@host:port/path}: {@code host:port}), or null. */
  static String uriAuthority(String uri) {
    int start = uri.indexOf("://") + 3;
    int end = start;
    while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
      end++;
    }
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
