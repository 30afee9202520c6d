package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandler;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * Keep-alive connections to HTTP/1.1 targets over Netty channels (see {@link KeepAlivePool}), on
 * one event loop, opened with the listener's connect timeout and closed after its idle timeout;
 * with a TLS context, over TLS (HTTPS target groups).
 */
final class ChannelPool extends KeepAlivePool<TargetConnection> {

  private final Bootstrap bootstrap;
  /** TLS toward the targets, or null. */
  private final SslContext tls;

  /**
   * @param loop         the event loop that owns the pool and every channel in it
   * @param channels     makes channels of the transport in use (epoll or NIO)
   * @param idleMillis   the target idle timeout
   * @param connectMillis the target connect timeout
   * @param tls          TLS toward the targets (HTTPS target groups), or null
   */
  ChannelPool(EventLoop loop, ChannelFactory<? extends Channel> channels, long idleMillis, int connectMillis,
      SslContext tls, int maxPerTarget, LongSupplier nanoTime) {
    super(maxPerTarget, nanoTime);
    this.tls = tls;
    this.bootstrap = bootstrap(loop, channels, connectMillis, ch -> {
      TargetConnection.install(ch, idleMillis);
      if (tls != null) {
        // No SNI: targets are reached by IP address. The handshake runs before the first request goes.
        ch.pipeline().addFirst("tls", tls.newHandler(ch.alloc()));
      }
    });
  }

  /**
   * How connections to targets are made on {@code loop}: the transport's channels, the connect
   * timeout, {@code TCP_NODELAY}, and {@code init} setting up each new channel's pipeline.
   */
  static Bootstrap bootstrap(EventLoop loop, ChannelFactory<? extends Channel> channels, int connectMillis,
      Consumer<Channel> init) {
    return new Bootstrap()
        .group(loop)
        .channelFactory(channels)
        .option(ChannelOption.ALLOCATOR, DirectForwarder.ALLOCATOR)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            init.accept(ch);
          }
        });
  }

  @Override
  protected Future<TargetConnection> dial(Upstream target, boolean tls) {
    if (tls != (this.tls != null)) {
      throw new IllegalArgumentException("this pool's connections are " + (tls ? "not " : "") + "TLS ones");
    }
    Promise<TargetConnection> opened = Promise.promise();
    bootstrap.connect(target.socketAddress()).addListener(f -> {
      Channel ch = ((io.netty.channel.ChannelFuture) f).channel();
      if (!f.isSuccess()) {
        opened.fail(f.cause());
        return;
      }
      SslHandler handshake = ch.pipeline().get(SslHandler.class);
      if (handshake == null) {
        opened.complete(ch.pipeline().get(TargetConnection.class));
        return;
      }
      // Open once the TLS session is: a request head written before would count as sent to a
      // target that never got it when the handshake fails (a target optimizer credit kept spent).
      handshake.handshakeFuture().addListener(h -> {
        if (h.isSuccess()) {
          opened.complete(ch.pipeline().get(TargetConnection.class));
        } else {
          ch.close();
          opened.fail(h.cause());
        }
      });
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
