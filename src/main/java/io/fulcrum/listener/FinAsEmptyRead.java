package io.fulcrum.listener;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;

/**
 * Lets a cleartext socket's peer shut its output (TCP half-close) without the connection closing,
 * and tells the socket's data handler so in order: as an empty read, after the bytes that came
 * before the FIN, through the same queue (TCP never delivers an empty read otherwise). Vert.x
 * would pass the event itself at once, ahead of data still queued while the reader is paused.
 */
final class FinAsEmptyRead extends ChannelInboundHandlerAdapter {

  static final String NAME = "fulcrum-fin";

  private FinAsEmptyRead() {
  }

  /**
   * Installs it on {@code socket}, before it reads anything; false when the socket cannot take it
   * (TLS, which ends with its own close, or not a Netty socket).
   */
  static boolean install(NetSocket socket) {
    if (socket.isSsl() || !(socket instanceof NetSocketInternal internal)) {
      return false;
    }
    ChannelHandlerContext vertx = internal.channelHandlerContext();
    ChannelPipeline pipeline = vertx.pipeline();
    if (pipeline.get(NAME) == null) {
      vertx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
      pipeline.addBefore(vertx.name(), NAME, new FinAsEmptyRead());
    }
    return true;
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof ChannelInputShutdownEvent) {
      ctx.fireChannelRead(Unpooled.EMPTY_BUFFER);
      return;
    }
    ctx.fireUserEventTriggered(event);
  }
}
