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
 * flow control holds as before.
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
    Http2ConnectionEncoder encoder = h2.encoder();
    Http2RemoteFlowController flow = encoder.flowController();
    Http2Stream connection = h2.connection().connectionStream();
    Http2Stream.State state = stream.state();
    if ((state != Http2Stream.State.OPEN && state != Http2Stream.State.HALF_CLOSED_REMOTE)
        || size > encoder.configuration().frameSizePolicy().maxFrameSize()
        || flow.hasFlowControlled(stream)
        || flow.windowSize(stream) < size || flow.windowSize(connection) < size
        || !ctx.channel().isWritable()) {
      encoder.writeData(ctx, stream.id(), data, 0, endOfStream, ctx.voidPromise());
      return;
    }
    if (size > 0) {
      try {
        flow.incrementWindowSize(stream, -size);
        flow.incrementWindowSize(connection, -size);
      } catch (Http2Exception e) {
        throw new IllegalStateException(e); // only a window growing past 2^31-1 throws
      }
    }
    ByteBuf header = ctx.alloc().buffer(size <= COPY_LIMIT ? Http2CodecUtil.FRAME_HEADER_LENGTH + size
        : Http2CodecUtil.FRAME_HEADER_LENGTH);
    header.writeMedium(size);
    header.writeByte(Http2FrameTypes.DATA);
    header.writeByte(endOfStream ? END_STREAM : 0);
    header.writeInt(stream.id());
    // The stream closes once its last frame is written, as when the flow controller writes it.
    ChannelPromise written = endOfStream ? ctx.newPromise() : ctx.voidPromise();
    if (size <= COPY_LIMIT) {
      header.writeBytes(data);
      data.release();
      ctx.write(header, written);
    } else {
      ctx.write(header, ctx.voidPromise());
      ctx.write(data, written);
    }
    if (endOfStream) {
      h2.closeStreamLocal(stream, written);
    }
  }
}
