package io.fulcrum.listener;

import io.fulcrum.forward.ElbError;
import io.fulcrum.routing.RequestFacts;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.SocketAddress;
import java.nio.charset.StandardCharsets;

/**
 * A request described rather than received, read by rule conditions exactly as the listeners read
 * a real HTTP/1.1 request (Host, absolute-form URIs, the query string's decoding, the source
 * address): for explaining which rule a request would match.
 */
public final class RequestFactsOf {

  /** The limits the listeners decode requests with. */
  private static final HttpServerOptions LISTENER_LIMITS = new HttpServerOptions()
      .setMaxInitialLineLength(HttpListeners.MAX_REQUEST_LINE).setMaxHeaderSize(HttpListeners.MAX_HEADERS);

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

  /**
   * What an HTTP/1.x listener answers itself, before any rule is evaluated, to a request with this
   * method and target, or null when its rules route it. The request line is read by the listener's
   * own decoder ({@link RequestDecoder}, with the listener's limits) from the bytes a client would
   * send, so that it is refused exactly as a client's: a method that is empty or no token (400), a
   * target in none of the forms served (400), a space that splits the line into other words (most
   * often 505, the last word being no version); then TRACE, which the listener never serves (405).
   * The caller keeps CR and LF out of both: they would end the line, and what follows would be read
   * as another.
   */
  public static ElbError refusal(String method, String uri) {
    EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(LISTENER_LIMITS));
    try {
      channel.writeInbound(Unpooled.copiedBuffer(method + " " + uri + " HTTP/1.1\r\n\r\n", StandardCharsets.UTF_8));
      HttpRequest head = channel.readInbound();
      if (head == null) {
        return ElbError.BAD_REQUEST; // nothing but spaces: never the case, the line ends with its version
      }
      if (head.decoderResult().isFailure()) {
        return RequestHandler.decodeFailure(head.decoderResult().cause());
      }
      return head.method().equals(HttpMethod.TRACE) ? ElbError.METHOD_NOT_ALLOWED : null;
    } finally {
      channel.finishAndReleaseAll();
    }
  }
}
