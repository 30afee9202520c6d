package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * An HTTP/2 client stream that the direct path serves, as its connection's lane sees it: the
 * stream's later frames and events go to it. {@link StreamExchange} forwards to HTTP/1.1
 * targets, {@link RelayExchange} to HTTP/2 ones (HTTP2 and GRPC target groups). Called on the
 * client connection's event loop.
 */
public interface LaneExchange {

  /** The HTTP/2 connection's side: where the stream's frames are written, and who is told of its end. */
  interface Client {
    /** The context of the connection's HTTP/2 handler, which the encoder writes through. */
    ChannelHandlerContext ctx();

    Http2ConnectionEncoder encoder();

    /** Where the connection's response heads from HTTP/1.1 targets are written. */
    HeadersFrames headersFrames();

    /** Writes out what the encoder holds (frames waiting for flow control included). */
    void flush();

    /** Writes {@code data} (released) as a DATA frame of {@code stream}, ending the stream when {@code endOfStream}. */
    void writeData(Http2Stream stream, ByteBuf data, boolean endOfStream);

    /**
     * Appends {@code data} as a DATA frame of {@code stream} to {@code frames}, unwritten frames of
     * the stream, when it may go at once and fits ({@link DataFrames#append}); false: nothing done.
     */
    boolean appendData(ByteBuf frames, Http2Stream stream, ByteBuf data, boolean endOfStream);

    /** Writes {@code frames} of {@code stream} (not flushed), ending the stream when {@code endOfStream}. */
    void writeFrames(ByteBuf frames, Http2Stream stream, boolean endOfStream);

    /** Consumes {@code bytes} of {@code stream}'s received data: they may be sent again (WINDOW_UPDATE). */
    void consumed(Http2Stream stream, int bytes) throws Http2Exception;

    /** {@code ex}'s stream cannot take more now: {@link LaneExchange#clientWritable} once it can. */
    void blocked(LaneExchange ex);

    /** The exchange is over. */
    void exchangeDone(LaneExchange ex);

    /**
     * Answers {@code stream} with the load balancer's page for {@code error}, shaped by the
     * listener's header modification, ending it (not flushed).
     */
    default void writePage(Http2Stream stream, ElbError error, ListenerHeaders listener) {
      FullHttpResponse page = ElbResponses.full(error, false, listener);
      Http2Headers h = new DefaultHttp2Headers(false, 4);
      h.status(page.status().codeAsText());
      H2Names.copy(page.headers(), h);
      ChannelHandlerContext ctx = ctx();
      encoder().writeHeaders(ctx, stream.id(), h, 0, false, ctx.voidPromise());
      writeData(stream, page.content(), true);
    }

    /** Resets stream {@code id} with {@code code} (not flushed). */
    default void reset(int id, Http2Error code) {
      ChannelHandlerContext ctx = ctx();
      encoder().writeRstStream(ctx, id, code.code(), ctx.voidPromise());
    }
  }

  /** The client's stream. */
  Http2Stream stream();

  /**
   * A DATA frame of the stream. Returns how many of its bytes (padding included) can go back to the
   * client's window now; the rest goes back once the target has taken them.
   */
  int fromClient(ByteBuf data, int padding, boolean endOfStream);

  /** The stream's trailing HEADERS frame (it ends the request). */
  void fromClientTrailers(Http2Headers trailers);

  /** The stream can take more of the response. */
  void clientWritable();

  /** The client's stream closed (reset by the client, or its connection went). */
  void clientStreamClosed();

  /** Whether the exchange is over. */
  boolean finished();

  /** The request body's bytes the client sent so far (the access log's {@code received_bytes}). */
  long bodyReceived();

  /** The response body's bytes written to the client so far ({@code sent_bytes}). */
  long bodySent();
}
