package io.fulcrum.listener;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;

/**
 * The idle timer Vert.x gives a client connection, with the same timeouts and events, without its
 * cost per write. Netty's {@link IdleStateHandler} notes the time of each write when the write
 * completes, which turns every write (each HTTP/2 frame) into one with a promise and a listener;
 * this one notes the time when something written is flushed. A connection whose peer stops
 * reading still goes idle: flow control and the socket's writability stop the writes that would
 * keep it busy.
 */
final class FlushIdleHandler extends IdleStateHandler {

  /** Something was written since the last flush. */
  private boolean wrote;

  private FlushIdleHandler(IdleStateHandler like) {
    super(like.getReaderIdleTimeInMillis(), like.getWriterIdleTimeInMillis(), like.getAllIdleTimeInMillis(),
        TimeUnit.MILLISECONDS);
  }

  /** Puts one in place of the pipeline's idle handler, if it has one. */
  static void replace(ChannelPipeline pipeline) {
    ChannelHandlerContext idle = pipeline.context(IdleStateHandler.class);
    if (idle != null && !(idle.handler() instanceof FlushIdleHandler)) {
      pipeline.replace(idle.name(), idle.name(), new FlushIdleHandler((IdleStateHandler) idle.handler()));
    }
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    wrote = true;
    ctx.write(msg, promise);
  }

  @Override
  public void flush(ChannelHandlerContext ctx) {
    if (wrote) {
      wrote = false;
      resetWriteTimeout();
    }
    ctx.flush();
  }
}
