package io.fulcrum.listener;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Counts the bytes an HTTP/1.x client connection reads and writes, as HTTP (after TLS, before the
 * HTTP codec): the access log's {@code received_bytes} and {@code sent_bytes} are what a request's
 * exchange added (see {@link ClientConnection#received}). Sits in the connection's pipeline only
 * while its load balancer has an access log; two additions per buffer otherwise.
 */
final class ByteCounter extends ChannelDuplexHandler {

  static final String NAME = "fulcrumBytes";

  long read;
  long written;

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    read += size(msg);
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    written += size(msg);
    ctx.write(msg, promise);
  }

  private static int size(Object msg) {
    if (msg instanceof ByteBuf b) {
      return b.readableBytes();
    }
    return msg instanceof ByteBufHolder h ? h.content().readableBytes() : 0;
  }

  @Override
  public boolean isSharable() {
    return false;
  }
}
