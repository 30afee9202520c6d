package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2FrameWriter;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.vertx.core.MultiMap;

/**
 * The HEADERS frames that carry HTTP/1.1 targets' response heads to one HTTP/2 client connection on
 * the direct path.
 *
 * <p>Netty's encoder makes a header object per field, searches its dynamic table and Huffman-codes
 * each string, then writes the frame header and the block as two buffers through a promise
 * aggregator. Here the head's bytes become a block of literals ({@link HpackLiterals}, no dynamic
 * table) in one buffer with its frame header, and the stream is marked as Netty's encoder marks it.
 * Netty's encoder still writes a head when the stream is not one a response head may go on (as its
 * checks would find), a block would not fit one frame or the encoder's header list limit (on a
 * server connection its own: Netty does not take the client's advisory one), a
 * response is informational, headers were changed on the way (stickiness cookies), or that encoder
 * owes the client a dynamic table size update: on the connection's first response and after a
 * SETTINGS frame that set the table's size ({@link #settingsRead}), so the update goes first, in
 * Netty's block, as RFC 7541 §4.2 wants.
 *
 * <p>Touched only on the connection's event loop.
 */
public final class HeadersFrames {

  private static final byte END_HEADERS = 0x4;
  /** The scratch space kept between heads; a larger one is dropped after its head. */
  private static final int KEPT_SCRATCH = 4096;

  private final Http2ConnectionHandler h2;
  private final ChannelHandlerContext ctx;
  /** Whether Netty's encoder may hold a dynamic table size update the client has not been sent yet. */
  private boolean updateOwed = true;
  private byte[] scratch = new byte[512];

  /** The frames of the connection whose HTTP/2 handler is {@code h2}, written through its context {@code ctx}. */
  public HeadersFrames(Http2ConnectionHandler h2, ChannelHandlerContext ctx) {
    this.h2 = h2;
    this.ctx = ctx;
  }

  /** The client's SETTINGS frame, which Netty's encoder has applied. */
  public void settingsRead(Http2Settings settings) {
    if (settings.headerTableSize() != null) {
      updateOwed = true;
    }
  }

  /**
   * Writes a response head on {@code stream} (not flushed, the stream left open): {@code response}'s
   * own headers, or {@code headers} when they were changed on the way.
   *
   * @param bodyRoom bytes to keep free behind the HEADERS frame for the body's frames (0: none)
   * @return null when the head is written; else the HEADERS frame, not written yet, with
   *         {@code bodyRoom} bytes free behind it: the caller writes it
   */
  ByteBuf writeHead(Http2Stream stream, TargetResponse response, MultiMap headers, int bodyRoom) {
    if (headers == null && !updateOwed) {
      ByteBuf frame = literals(stream, response, bodyRoom);
      if (frame != null) {
        if (bodyRoom > 0) {
          return frame;
        }
        ctx.write(frame, ctx.voidPromise());
        return null;
      }
    }
    // Not headers.size(): Vert.x's map counts its names in a TreeSet.
    Http2Headers h = new DefaultHttp2Headers(false, 8);
    h.status(response.codeAsText());
    if (headers == null) {
      response.addTo(h);
    } else {
      H2Names.copy((HttpHeaders) headers, h); // TargetResponse makes Vert.x's header map, a Netty HttpHeaders
    }
    // Not the void promise: a head the encoder refuses (over its header list limit) fails
    // it, and a failed void promise is an exception on the pipeline, which closes the connection;
    // the encoder resets the stream itself.
    h2.encoder().writeHeaders(ctx, stream.id(), h, 0, false, ctx.newPromise());
    updateOwed = false;
    return null;
  }

  /** The HEADERS frame of literals for {@code response}, the stream marked; null when Netty's encoder must write it. */
  private ByteBuf literals(Http2Stream stream, TargetResponse response, int bodyRoom) {
    Http2Stream.State state = stream.state();
    if ((state != Http2Stream.State.OPEN && state != Http2Stream.State.HALF_CLOSED_REMOTE)
        || stream.isHeadersSent() || response.status() < 200) {
      return null;
    }
    Http2FrameWriter.Configuration limits = h2.encoder().configuration();
    int bound = response.blockSize();
    if (bound > limits.frameSizePolicy().maxFrameSize()
        || response.headerListOver(limits.headersConfiguration().maxHeaderListSize())) {
      return null; // Netty's encoder splits the block into CONTINUATION frames, or refuses it
    }
    int size = Http2CodecUtil.FRAME_HEADER_LENGTH + bound;
    byte[] out = size <= scratch.length ? scratch : new byte[size];
    int end = response.writeBlock(out, Http2CodecUtil.FRAME_HEADER_LENGTH);
    int length = end - Http2CodecUtil.FRAME_HEADER_LENGTH;
    int id = stream.id();
    out[0] = (byte) (length >>> 16);
    out[1] = (byte) (length >>> 8);
    out[2] = (byte) length;
    out[3] = Http2FrameTypes.HEADERS;
    out[4] = END_HEADERS;
    out[5] = (byte) (id >>> 24);
    out[6] = (byte) (id >>> 16);
    out[7] = (byte) (id >>> 8);
    out[8] = (byte) id;
    ByteBuf frame = ctx.alloc().buffer(end + bodyRoom);
    frame.writeBytes(out, 0, end);
    if (out.length <= KEPT_SCRATCH) {
      scratch = out;
    }
    stream.headersSent(false); // as Netty's encoder marks it: trailers may follow, another head may not
    return frame;
  }
}
