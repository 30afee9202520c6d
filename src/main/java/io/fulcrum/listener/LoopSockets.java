package io.fulcrum.listener;

import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelOption;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.internal.ContextInternal;
import java.net.InetSocketAddress;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Binds the sockets of network load balancers' listeners on one event loop, in plain Netty: a TCP
 * listener's server socket ({@link FlowListeners}), a UDP listener's datagram socket
 * ({@link DatagramListeners}). Every loop binds its own with {@code SO_REUSEPORT} and the kernel
 * spreads connections (or clients' datagrams) over them; on a transport without it only the first
 * loop binds. Stateless.
 */
final class LoopSockets {

  private static final Logger LOG = LoggerFactory.getLogger(LoopSockets.class);
  private static final int BIND_ATTEMPTS = 40;
  private static final long BIND_RETRY_MILLIS = 25;

  private LoopSockets() {
  }

  /**
   * Binds a socket that {@code make} makes (with its handlers) to {@code address} on the loop of
   * {@code context}. An address another process holds is tried again for a second (a listener that
   * moves between load balancers, or a socket a closing server still holds) while {@code wanted}
   * holds; then the future fails with {@code what} and the cause.
   *
   * @param index which of the process's listener verticles this loop is: without
   *              {@code SO_REUSEPORT} only the first binds
   * @return the bound socket, or null when this loop binds none (no {@code SO_REUSEPORT}, or no
   *         longer {@code wanted})
   */
  static Future<Channel> bind(ContextInternal context, int index, Supplier<? extends Channel> make,
      InetSocketAddress address, BooleanSupplier wanted, String what) {
    return bind(context, index, make, address, wanted, what, BIND_ATTEMPTS);
  }

  private static Future<Channel> bind(ContextInternal context, int index, Supplier<? extends Channel> make,
      InetSocketAddress address, BooleanSupplier wanted, String what, int attemptsLeft) {
    if (!wanted.getAsBoolean()) {
      return Future.succeededFuture();
    }
    Channel socket = make.get();
    if (!reusePort(socket) && index > 0) {
      // Only one socket can take the port: the first loop's takes everything.
      socket.unsafe().closeForcibly();
      LOG.debug("{}: no SO_REUSEPORT on this transport; loop 0 takes everything", address);
      return Future.succeededFuture();
    }
    socket.config().setOption(ChannelOption.SO_REUSEADDR, true);
    Promise<Void> bound = context.promise(); // its callbacks run in the context
    context.nettyEventLoop().register(socket).addListener(r -> {
      if (!r.isSuccess()) {
        bound.fail(r.cause());
        return;
      }
      socket.bind(address).addListener((ChannelFuture f) -> {
        if (f.isSuccess()) {
          bound.complete();
        } else {
          socket.close();
          bound.fail(f.cause());
        }
      });
    });
    return bound.future()
        .map(v -> {
          if (!wanted.getAsBoolean()) {
            socket.close(); // no longer wanted while it bound
            return (Channel) null;
          }
          return socket;
        })
        .recover(e -> {
          if (attemptsLeft > 1 && wanted.getAsBoolean() && SocketFailures.addressInUse(e)) {
            Promise<Channel> retry = context.promise();
            context.owner().setTimer(BIND_RETRY_MILLIS,
                t -> bind(context, index, make, address, wanted, what, attemptsLeft - 1).onComplete(retry));
            return retry.future();
          }
          return Future.failedFuture(new IllegalStateException(what + ": " + e.getMessage(), e));
        });
  }

  /**
   * Sets {@code SO_REUSEPORT} on a listening socket (a server's, or a datagram socket) of any
   * transport (each names it in its own options: epoll's and io_uring's constants, NIO's the
   * JDK's); false where it has none.
   */
  @SuppressWarnings("unchecked")
  static boolean reusePort(Channel channel) {
    ChannelConfig config = channel.config();
    for (ChannelOption<?> option : config.getOptions().keySet()) {
      if (option.name().endsWith("SO_REUSEPORT")) {
        return config.setOption((ChannelOption<Boolean>) option, true);
      }
    }
    return false;
  }
}
