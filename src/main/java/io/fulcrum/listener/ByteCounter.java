package io.fulcrum.listener;

import io.fulcrum.observe.LoadBalancerMeters;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;

/**
 * Counts the bytes a client connection reads and writes, as HTTP (after TLS, before the HTTP/1.x
 * codec or the HTTP/2 frame codec): its load balancer's {@code ProcessedBytes}, and over HTTP/1.x
 * the access log's {@code received_bytes} and {@code sent_bytes}, which are what a request's
 * exchange added (see {@link ClientConnection#received}). Three additions per buffer. Only the
 * connection's event loop runs it.
 */
final class ByteCounter extends ChannelDuplexHandler {

  static final String NAME = "fulcrumBytes";

  private final LoadBalancerMeters meters;
  long read;
  long written;

  ByteCounter(LoadBalancerMeters meters) {
    this.meters = meters;
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    int n = size(msg);
    read += n;
    meters.processed(n);
    ctx.fireChannelRead(msg);
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    int n = size(msg);
    written += n;
    meters.processed(n);
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
