package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.function.LongSupplier;

/**
 * Keep-alive connections to HTTP/1.1 targets on the direct path (see {@link KeepAlivePool}):
 * plain Netty channels on one event loop, opened with the listener's connect timeout and closed
 * after its idle timeout.
 */
final class ChannelPool extends KeepAlivePool<TargetConnection> {

  private final Bootstrap bootstrap;

  /**
   * @param loop         the event loop that owns the pool and every channel in it
   * @param channels     makes channels of the transport in use (epoll or NIO)
   * @param idleMillis   the target idle timeout
   * @param connectMillis the target connect timeout
   */
  ChannelPool(EventLoop loop, ChannelFactory<? extends Channel> channels, long idleMillis, int connectMillis,
      int maxPerTarget, LongSupplier nanoTime) {
    super(maxPerTarget, nanoTime);
    this.bootstrap = new Bootstrap()
        .group(loop)
        .channelFactory(channels)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            TargetConnection.install(ch, idleMillis);
          }
        });
  }

  @Override
  protected Future<TargetConnection> dial(Upstream target, boolean tls) {
    if (tls) {
      throw new IllegalArgumentException("the direct path does not speak TLS to targets");
    }
    Promise<TargetConnection> opened = Promise.promise();
    bootstrap.connect(target.socketAddress()).addListener(f -> {
      Channel ch = ((io.netty.channel.ChannelFuture) f).channel();
      if (f.isSuccess()) {
        opened.complete(ch.pipeline().get(TargetConnection.class));
      } else {
        opened.fail(f.cause());
      }
    });
    return opened.future();
  }

  @Override
  protected void whenClosed(TargetConnection c, Runnable action) {
    c.channel.closeFuture().addListener(f -> action.run());
  }

  @Override
  protected Future<Void> close(TargetConnection c) {
    Promise<Void> closed = Promise.promise();
    c.channel.close().addListener(f -> closed.complete());
    return closed.future();
  }
}
