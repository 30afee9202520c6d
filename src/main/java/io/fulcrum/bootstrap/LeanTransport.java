package io.fulcrum.bootstrap;

import io.fulcrum.listener.ByteCounter;
import io.fulcrum.listener.H2cStart;
import io.fulcrum.listener.TlsHandshakes;
import io.netty.bootstrap.Bootstrap;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.IoHandlerFactory;
import io.netty.channel.ServerChannel;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.ClientOptionsBase;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.spi.transport.Transport;
import java.util.Map;
import java.util.concurrent.ThreadFactory;

/**
 * A native transport of Vert.x's with two things changed that cost every new connection:
 * <ul>
 *   <li><b>No acceptor thread.</b> Vert.x accepts every server's connections on a thread of its own
 *   and hands each to an event loop from there (a task queued on the loop and a wake-up: two
 *   threads and two context switches per connection). Here a server's listening socket is
 *   registered on the event loop that opens it ({@link AcceptingLoops}): a listener with one
 *   instance accepts and serves each connection on one thread, as HAProxy with one thread does; with
 *   several instances, the first one's loop accepts and hands the others theirs.</li>
 *   <li><b>No socket option restated.</b> Vert.x sets, on every accepted and every connected socket,
 *   options to the values a new socket already has ({@code TCP_CORK} and {@code SO_KEEPALIVE} off,
 *   {@code TCP_NODELAY} on, which Netty sets as it makes the channel, and on client sockets
 *   {@code SO_REUSEADDR} off and {@code TCP_USER_TIMEOUT} 0): one system call each. They are
 *   dropped when their value is the default; an option set to anything else is still set.
 *   {@code TCP_QUICKACK} off is kept: it is not a default, it puts the socket in delayed-ACK mode,
 *   so the ACK of a request rides on its response.</li>
 * </ul>
 * On io_uring, every accepted channel also gets {@link CloseAfterRead} first in its pipeline (a
 * close asked for while it reads is done after the read, which Netty's io_uring channel needs). A
 * TLS server's accepted channels are shown to {@link TlsHandshakes}, which watches the handshakes
 * of listeners that keep a connection log. A cleartext HTTP server's that takes h2c too count their
 * bytes from the first ({@link ByteCounter#installEarly}: Vert.x makes such a connection only after
 * its first request's head), and have their start watched until then ({@link H2cStart}: the idle
 * timeout, and an {@code Upgrade: h2c} that cannot be taken).
 * Everything else is the wrapped transport's.
 */
final class LeanTransport implements Transport {

  private final Transport delegate;
  /** Whether the transport is io_uring (see {@link CloseAfterRead}). */
  private final boolean ioUring;
  private volatile EventLoopGroup ioLoops;

  LeanTransport(Transport delegate, boolean ioUring) {
    this.delegate = delegate;
    this.ioUring = ioUring;
  }

  /** A Vert.x transport whose implementation is {@code transport}'s, made lean. */
  static io.vertx.core.transport.Transport of(io.vertx.core.transport.Transport transport) {
    LeanTransport lean = new LeanTransport(transport.implementation(), "io_uring".equals(transport.name()));
    return new io.vertx.core.transport.Transport() {
      @Override
      public String name() {
        return transport.name();
      }

      @Override
      public boolean available() {
        return transport.available();
      }

      @Override
      public Throwable unavailabilityCause() {
        return transport.unavailabilityCause();
      }

      @Override
      public Transport implementation() {
        return lean;
      }
    };
  }

  @Override
  public EventLoopGroup eventLoopGroup(int type, int nThreads, ThreadFactory threadFactory, int ioRatio) {
    if (type == ACCEPTOR_EVENT_LOOP_GROUP && ioLoops != null) {
      return new AcceptingLoops(ioLoops);
    }
    EventLoopGroup group = delegate.eventLoopGroup(type, nThreads, threadFactory, ioRatio);
    if (type == IO_EVENT_LOOP_GROUP) {
      ioLoops = group;
    }
    return group;
  }

  @Override
  public void configure(NetServerOptions options, boolean domainSocket, ServerBootstrap bootstrap) {
    delegate.configure(options, domainSocket, bootstrap);
    if (!domainSocket) {
      bootstrap.config().childOptions().forEach((option, value) -> {
        if (isDefault(option, value)) {
          bootstrap.childOption(option, null);
        }
      });
    }
    ChannelHandler vertx = bootstrap.config().childHandler();
    boolean tls = options.isSsl();
    boolean h2c = !tls && options instanceof HttpServerOptions http && http.isHttp2ClearTextEnabled();
    if ((ioUring || tls || h2c) && vertx != null) {
      bootstrap.childHandler(new ChannelInitializer<>() {
        @Override
        protected void initChannel(Channel ch) {
          ch.pipeline().addLast(vertx); // Vert.x's handlers, set up now (the channel is registered)
          if (ioUring) {
            CloseAfterRead.installIfNeeded(ch);
          }
          if (tls) {
            TlsHandshakes.watch(ch);
          }
          if (h2c) {
            ByteCounter.installEarly(ch.pipeline());
            H2cStart.watch(ch);
          }
        }
      });
    }
  }

  @Override
  public void configure(ClientOptionsBase options, int connectTimeout, boolean domainSocket, Bootstrap bootstrap) {
    delegate.configure(options, connectTimeout, domainSocket, bootstrap);
    if (!domainSocket) {
      bootstrap.config().options().forEach((option, value) -> {
        if (isDefault(option, value)) {
          bootstrap.option(option, null);
        }
      });
    }
  }

  /**
   * Whether a new socket already has {@code option} set to {@code value}. Netty's own options are
   * named {@code TCP_NODELAY}, its transports' {@code io.netty.channel.epoll.EpollChannelOption#TCP_CORK}
   * and the like: the part after {@code #} is the socket option.
   */
  static boolean isDefault(ChannelOption<?> option, Object value) {
    String name = option.name();
    Object unchanged = DEFAULTS.get(name.substring(name.indexOf('#') + 1));
    return unchanged != null && unchanged.equals(value);
  }

  /**
   * A new TCP socket's options, as far as Vert.x sets them: {@code TCP_NODELAY} is on because Netty
   * turns it on as it makes every socket channel (epoll, io_uring and NIO alike, on Linux).
   */
  private static final Map<String, Object> DEFAULTS = Map.of(
      "TCP_CORK", false,
      "SO_KEEPALIVE", false,
      "SO_REUSEADDR", false,
      "TCP_USER_TIMEOUT", 0,
      "TCP_NODELAY", true);

  @Override
  public boolean supportsDomainSockets() {
    return delegate.supportsDomainSockets();
  }

  @Override
  public boolean supportFileRegion() {
    return delegate.supportFileRegion();
  }

  @Override
  public boolean isAvailable() {
    return delegate.isAvailable();
  }

  @Override
  public Throwable unavailabilityCause() {
    return delegate.unavailabilityCause();
  }

  @Override
  public java.net.SocketAddress convert(io.vertx.core.net.SocketAddress address) {
    return delegate.convert(address);
  }

  @Override
  public io.vertx.core.net.SocketAddress convert(java.net.SocketAddress address) {
    return delegate.convert(address);
  }

  @Override
  public IoHandlerFactory ioHandlerFactory() {
    return delegate.ioHandlerFactory();
  }

  @Override
  public DatagramChannel datagramChannel() {
    return delegate.datagramChannel();
  }

  @Override
  public DatagramChannel datagramChannel(InternetProtocolFamily family) {
    return delegate.datagramChannel(family);
  }

  @Override
  public ChannelFactory<? extends io.netty.channel.Channel> channelFactory(boolean domainSocket) {
    return delegate.channelFactory(domainSocket);
  }

  @Override
  public ChannelFactory<? extends ServerChannel> serverChannelFactory(boolean domainSocket) {
    return delegate.serverChannelFactory(domainSocket);
  }

  @Override
  public void configure(DatagramChannel channel, DatagramSocketOptions options) {
    delegate.configure(channel, options);
  }
}
