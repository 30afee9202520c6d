package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameTypes;
import io.netty.handler.codec.http2.Http2RemoteFlowController;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * DATA frames written on the direct path's HTTP/2 connections (toward clients and toward targets).
 *
 * <p>Netty's encoder hands every DATA frame to its remote flow controller, which queues it and
 * writes it at the next flush through its byte distributor, with a buffer queue, a promise and a
 * listener per frame, and the frame header and payload as two writes. When the stream has nothing
 * queued and both its window and the connection's can take the whole frame, that queue decides
 * nothing: the frame is written at once here, the two windows are charged as the flow controller
 * would have charged them, and a payload up to {@value #COPY_LIMIT} bytes leaves in one buffer with
 * its header. Anything else (a window too small, frames already waiting for this stream, a socket
 * that takes no more for now) goes to the encoder, so the stream's frames keep their order and
 * flow control holds as before. Under the same conditions a frame can also be {@link #append}ed
 * to frames of its stream not written yet (a small body behind its HEADERS frame).
 */
public final class DataFrames {

  /** Payloads up to this size are copied behind their frame header: one buffer and one write instead of two. */
  static final int COPY_LIMIT = 1024;

  private static final byte END_STREAM = 0x1;

  private DataFrames() {
  }

  /**
   * Writes {@code data} (released here) as one DATA frame of {@code stream} through {@code ctx},
   * the context of {@code h2}; ends the stream's sending side when {@code endOfStream}. Not flushed.
   */
  public static void write(Http2ConnectionHandler h2, ChannelHandlerContext ctx, Http2Stream stream, ByteBuf data,
      boolean endOfStream) {
    int size = data.readableBytes();
    if (size == 0 && !endOfStream) {
      data.release(); // nothing to send: Netty's encoder writes no frame for it either
      return;
    }
    if (!mayGoNow(h2, ctx, stream, size)) {
      h2.encoder().writeData(ctx, stream.id(), data, 0, endOfStream, ctx.voidPromise());
      return;
    }
    charge(h2, stream, size);
    ByteBuf header = ctx.alloc().buffer(size <= COPY_LIMIT ? Http2CodecUtil.FRAME_HEADER_LENGTH + size
        : Http2CodecUtil.FRAME_HEADER_LENGTH);
    writeHeader(header, stream, size, endOfStream);
    if (size <= COPY_LIMIT) {
      header.writeBytes(data);
      data.release();
      writeFrames(h2, ctx, stream, header, endOfStream);
    } else {
      ctx.write(header, ctx.voidPromise());
      writeFrames(h2, ctx, stream, data, endOfStream);
    }
  }

  /**
   * Appends {@code data} as one DATA frame of {@code stream} to {@code frames}, frames of that
   * stream not written yet, when it may go at once (as {@link #write} decides) and fits in what
   * {@code frames} has room for; {@code data} is released then. Returns false, having done
   * nothing, otherwise.
   */
  public static boolean append(Http2ConnectionHandler h2, ChannelHandlerContext ctx, ByteBuf frames,
      Http2Stream stream, ByteBuf data, boolean endOfStream) {
    int size = data.readableBytes();
    if (size == 0 && !endOfStream) {
      data.release();
      return true;
    }
    if (Http2CodecUtil.FRAME_HEADER_LENGTH + size > frames.writableBytes() || !mayGoNow(h2, ctx, stream, size)) {
      return false;
    }
    charge(h2, stream, size);
    writeHeader(frames, stream, size, endOfStream);
    frames.writeBytes(data);
    data.release();
    return true;
  }

  /**
   * Writes {@code frames} of {@code stream} (not flushed); when they end the stream, its sending
   * side closes once they are written, as when Netty's flow controller writes a stream's last frame.
   */
  public static void writeFrames(Http2ConnectionHandler h2, ChannelHandlerContext ctx, Http2Stream stream,
      ByteBuf frames, boolean endOfStream) {
    ChannelPromise written = endOfStream ? ctx.newPromise() : ctx.voidPromise();
    ctx.write(frames, written);
    if (endOfStream) {
      h2.closeStreamLocal(stream, written);
    }
  }

  /** Whether a DATA frame of {@code size} bytes may skip the flow controller's queue (see above). */
  private static boolean mayGoNow(Http2ConnectionHandler h2, ChannelHandlerContext ctx, Http2Stream stream,
      int size) {
    Http2ConnectionEncoder encoder = h2.encoder();
    Http2RemoteFlowController flow = encoder.flowController();
    Http2Stream.State state = stream.state();
    return (state == Http2Stream.State.OPEN || state == Http2Stream.State.HALF_CLOSED_REMOTE)
        && size <= encoder.configuration().frameSizePolicy().maxFrameSize()
        && !flow.hasFlowControlled(stream)
        && flow.windowSize(stream) >= size && flow.windowSize(h2.connection().connectionStream()) >= size
        && ctx.channel().isWritable();
  }

  /** Charges the stream's and the connection's windows with a frame's payload, as the flow controller would. */
  private static void charge(Http2ConnectionHandler h2, Http2Stream stream, int size) {
    if (size > 0) {
      Http2RemoteFlowController flow = h2.encoder().flowController();
      try {
        flow.incrementWindowSize(stream, -size);
        flow.incrementWindowSize(h2.connection().connectionStream(), -size);
      } catch (Http2Exception e) {
        throw new IllegalStateException(e); // only a window growing past 2^31-1 throws
      }
    }
  }

  private static void writeHeader(ByteBuf out, Http2Stream stream, int size, boolean endOfStream) {
    out.writeMedium(size);
    out.writeByte(Http2FrameTypes.DATA);
    out.writeByte(endOfStream ? END_STREAM : 0);
    out.writeInt(stream.id());
  }
}
