package io.fulcrum.listener;

import io.fulcrum.routing.RequestFacts;
import io.vertx.core.MultiMap;
import io.vertx.core.net.SocketAddress;

/**
 * A request described rather than received, read by rule conditions exactly as the listeners read
 * a real HTTP/1.1 request (Host, absolute-form URIs, the query string's decoding, the source
 * address): for explaining which rule a request would match.
 */
public final class RequestFactsOf {

  private RequestFactsOf() {
  }

  /**
   * @param uri     the request target as sent ({@code /path?query}, or absolute-form)
   * @param headers the request's headers, Host among them
   * @param remote  the client's address
   */
  public static RequestFacts http1(String method, String uri, MultiMap headers, SocketAddress remote) {
    return new NodeRequest(method, uri, headers, remote);
  }

  /**
   * Whether {@code uri} is in absolute form ({@code http://host/path}), which an HTTP/1.x listener
   * routes by the URI's host and path, whatever the Host header says.
   */
  public static boolean absoluteForm(String uri) {
    return NodeRequest.absoluteForm(uri);
  }
}
