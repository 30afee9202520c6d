package io.fulcrum.bootstrap;

import io.netty.channel.Channel;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * On io_uring, a close asked for while the channel is reading is done once the read has unwound.
 * Netty 4.2.18's io_uring channel, with the one-shot polls Fulcrum runs it with
 * ({@link NetworkTransport}), kept the socket of a channel closed from inside the TLS handler's
 * decoding open. That is where a failed handshake is reported and where Vert.x (HTTPS listeners)
 * and Fulcrum (TLS listeners) close the connection, so a client that sent anything but TLS waited
 * for a close that never came, and the socket stayed open for good. Closed one task later, it
 * closes. The handler goes first in the pipeline, so that it sees a read before any other
 * handler; on epoll and NIO it is not installed.
 */
public final class CloseAfterRead extends ChannelDuplexHandler {

  public static final String NAME = "fulcrum-close-after-read";

  private boolean reading;

  /** Puts the handler first in {@code channel}'s pipeline when the channel is an io_uring one. */
  public static void installIfNeeded(Channel channel) {
    // By name: Netty's io_uring classes are a runtime dependency only.
    if (channel.getClass().getName().startsWith("io.netty.channel.uring.")) {
      channel.pipeline().addFirst(NAME, new CloseAfterRead());
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    reading = true;
    try {
      ctx.fireChannelRead(msg);
    } finally {
      reading = false;
    }
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    if (reading) {
      ctx.channel().eventLoop().execute(() -> ctx.close(promise));
    } else {
      ctx.close(promise);
    }
  }
}
