package io.fulcrum.listener;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2Headers;
import io.vertx.core.http.impl.Http2ServerConnection;

/**
 * Keeps HTTP/2 requests that HTTP/1.1 cannot carry from Vert.x's server: a {@code :method} that is
 * no token (RFC 9110 §9.1), a {@code :path} with a space, tab or other control character, at which
 * a target's request-line parser would end the target or the line. Such a request is malformed for
 * a gateway to HTTP/1.1 (RFC 9113 §8.1.1): its stream is reset with {@code PROTOCOL_ERROR}, as
 * Netty's codec resets the malformed requests it finds itself, and the connection goes on. Vert.x
 * would fail on it instead, closing the whole connection (a method) or leaving the stream
 * unanswered (a space in the path), and the direct path's {@link StreamLane} would forward it. It
 * decorates the connection's frame listener once the lane, if any, is in place, so that it sees each
 * new stream first.
 *
 * <p>Touched only on the connection's event loop.
 */
final class CarriedStreams extends Http2FrameListenerDecorator {

  private final Http2ConnectionHandler h2;
  /** The highest client stream seen: a HEADERS frame for a lower one is not a new request. */
  private int lastStream;

  private CarriedStreams(Http2ConnectionHandler h2) {
    super(h2.decoder().frameListener());
    this.h2 = h2;
    this.lastStream = h2.connection().remote().lastStreamCreated();
  }

  /** Puts the check in front of the frame listener of Vert.x's HTTP/2 connection (Vert.x's own, or the lane). */
  static void install(Http2ServerConnection vertx) {
    Http2ConnectionHandler h2 = (Http2ConnectionHandler) vertx.channelHandlerContext().handler();
    h2.decoder().frameListener(new CarriedStreams(h2));
  }

  /** Whether HTTP/1.1 can carry the request of a new stream: its method a token, its path free of spaces and controls. */
  private static boolean carried(Http2Headers headers) {
    CharSequence method = headers.method();
    CharSequence path = headers.path();
    return (method == null || NodeRequest.methodToken(method)) && (path == null || NodeRequest.requestLinePath(path));
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int padding,
      boolean endOfStream) throws Http2Exception {
    if (!refused(ctx, streamId, headers)) {
      listener.onHeadersRead(ctx, streamId, headers, padding, endOfStream);
    }
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext ctx, int streamId, Http2Headers headers, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endOfStream) throws Http2Exception {
    if (!refused(ctx, streamId, headers)) {
      listener.onHeadersRead(ctx, streamId, headers, streamDependency, weight, exclusive, padding, endOfStream);
    }
  }

  /** Resets the stream when it is a new one that HTTP/1.1 cannot carry. */
  private boolean refused(ChannelHandlerContext ctx, int streamId, Http2Headers headers) {
    if (streamId <= lastStream) {
      return false; // trailers, or a second HEADERS frame of a stream Vert.x has
    }
    lastStream = streamId;
    if (carried(headers)) {
      return false;
    }
    h2.encoder().writeRstStream(ctx, streamId, Http2Error.PROTOCOL_ERROR.code(), ctx.voidPromise());
    ctx.flush();
    return true;
  }
}
