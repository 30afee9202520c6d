package io.fulcrum.listener;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.observe.GroupMeters;
import io.fulcrum.observe.LoadBalancerMeters;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Locale;

/**
 * One connection through a network load balancer's listener: the client's channel (as the
 * listener accepted it, after its TLS handshake on a TLS listener) and the target's, both plain
 * Netty channels on the same event loop, with bytes relayed each way as they are read, the buffer
 * read being the buffer written, flushed once per read burst; a side that cannot take more stops
 * the other reading. The end of one side is carried to the other: a reset as a reset, a close as
 * a close; and over cleartext both ways the client's FIN as a FIN, with the target's answer still
 * coming back (TCP half-close: a client that sends its request and then {@code shutdown(SHUT_WR)}).
 * The target's FIN ends the flow once its bytes are written to the client, as a server's close
 * after its answer is meant (passing it on as a half-close would cost every such flow two more
 * system calls and three of Netty's exceptions). Touched only on its event loop.
 */
final class Flow extends ChannelInboundHandlerAdapter {

  /** How a flow ended, for the counters. */
  enum End {
    /** One side closed; the other is closed once what it was sent is written. */
    CLOSED,
    /** The client reset its connection; the target's is reset. */
    CLIENT_RESET,
    /** The target reset its connection; the client's is reset. */
    TARGET_RESET,
    /** The load balancer ended the flow with resets both ways (unhealthy or deregistered target, no target reached). */
    ELB_RESET
  }

  private final FlowListeners owner;
  private final Object listener;
  private final Channel client;
  private final String group;
  private final Upstream upstream;
  private final LoadBalancerMeters meters;
  /** Whether a FIN is passed on as a FIN (both sides cleartext) rather than ending the flow. */
  private final boolean halfClose;
  /** The target's channel, once its connection is open. */
  private Channel target;
  private boolean ended;
  /** Whether the client shut its output (sent FIN) while the flow goes on. */
  private boolean clientShut;
  /** How many idle sweeps in a row found the flow carrying nothing (see FlowListeners#sweep). */
  private int quiet;
  /** What the client sent before the target's connection opened. */
  private final ArrayDeque<ByteBuf> held = new ArrayDeque<>(2);
  private long heldBytes;
  /** Counts a failed TLS handshake with the target; null over cleartext and once the session is up. */
  private GroupMeters tlsMeters;
  /** A TLS listener's side of the flow, for the access log; null when it keeps none. */
  private final TlsFlow tls;
  /** Bytes relayed from the client to the target, and back. */
  private long received;
  private long sent;
  /** How much of the client's bytes is held while the target's connection opens before it is paused. */
  static final int HOLD_BYTES = 64 * 1024;

  /**
   * Takes over {@code client}, registered on this loop: the flow's handler goes last in its
   * pipeline.
   *
   * @param listener  the listener binding that accepted it
   * @param halfClose whether both sides are cleartext TCP, so that the client's FIN can be passed on
   *                  while the target's answer comes back ({@code ALLOW_HALF_CLOSURE} on)
   * @param tls       the TLS side of the flow when its listener keeps an access log, else null
   */
  Flow(FlowListeners owner, Object listener, Channel client, String group, Upstream upstream,
      LoadBalancerMeters meters, boolean halfClose, TlsFlow tls) {
    this.tls = tls;
    this.owner = owner;
    this.listener = listener;
    this.client = client;
    this.group = group;
    this.upstream = upstream;
    this.meters = meters;
    this.halfClose = halfClose;
    client.pipeline().addLast("flow", new ClientSide());
  }

  String group() {
    return group;
  }

  /** The listener binding that accepted the client. */
  Object listener() {
    return listener;
  }

  LoadBalancerMeters meters() {
    return meters;
  }

  /** The TLS side of the flow, for the access log; null when there is none to write. */
  TlsFlow tls() {
    return tls;
  }

  /** The client's channel. */
  Channel client() {
    return client;
  }

  /** Bytes relayed from the client to the target. */
  long received() {
    return received;
  }

  /** Bytes relayed from the target to the client. */
  long sent() {
    return sent;
  }

  /** The key of the target the flow goes to. */
  String targetKey() {
    return upstream.key();
  }

  /** Counts an idle sweep that found the flow carrying nothing since the last: how many in a row have. */
  int quietSweep() {
    return ++quiet;
  }

  /**
   * Opens the connection to the target, at {@code to}, on {@code bootstrap} (the client's event
   * loop); {@code first} (the PROXY protocol header, or null) goes ahead of the client's bytes.
   * {@code tls}: a TLS session to the target, whose certificate is not checked.
   */
  void open(Bootstrap bootstrap, InetSocketAddress to, SslContext tls, byte[] first, GroupMeters groupMeters) {
    // Registered on this loop (at once: it is the caller's), set up, then connected: no bootstrap copy per flow.
    ChannelFuture registered = bootstrap.register();
    Channel channel = registered.channel();
    if (!registered.isSuccess()) {
      channel.close();
      groupMeters.targetConnectionError();
      end(End.ELB_RESET);
      return;
    }
    if (tls != null) {
      channel.pipeline().addLast("tls", tls.newHandler(channel.alloc()));
    }
    channel.pipeline().addLast("flow", this);
    this.tlsMeters = tls == null ? null : groupMeters;
    if (upstream.isApplicationLoadBalancer() && !carryClient(channel, to)) {
      channel.close();
      groupMeters.targetConnectionError();
      end(End.ELB_RESET);
      return;
    }
    channel.connect(to).addListener((ChannelFutureListener) f -> {
      owner.connected(this, f.isSuccess());
      if (!f.isSuccess()) {
        groupMeters.targetConnectionError();
        end(End.ELB_RESET); // refused or timed out: the client's connection is reset, as the target's refusal would be
        return;
      }
      if (ended) {
        f.channel().close(); // the client left, or the flow was cut, while this connection opened
        return;
      }
      target = f.channel();
      upstream.dispatched();
      if (first != null) {
        target.write(Unpooled.wrappedBuffer(first));
      }
      for (ByteBuf data; (data = held.poll()) != null; ) {
        fromClient(data);
      }
      target.flush();
      if (heldBytes > HOLD_BYTES) {
        client.config().setAutoRead(true);
      }
      heldBytes = 0;
    });
  }

  /**
   * An application load balancer of this process is the target: the connection is bound to a port of
   * the ALB's node address (a local address: the ALB listens there) and the client noted under it,
   * before it connects, so that the ALB takes the client for this connection's ({@link CarriedClients}).
   * False when no port could be had.
   */
  private boolean carryClient(Channel channel, InetSocketAddress to) {
    ChannelFuture bound = channel.bind(new InetSocketAddress(to.getAddress(), 0));
    // On the channel's own loop the bind is done as it is asked for.
    if (!bound.isDone() || !bound.isSuccess() || !(channel.localAddress() instanceof InetSocketAddress via)
        || !(client.remoteAddress() instanceof InetSocketAddress from)) {
      return false;
    }
    CarriedClients.carry(via, from);
    channel.closeFuture().addListener(f -> CarriedClients.drop(via));
    return true;
  }

  // ---- client to target ----

  /** What the client read: written to the target (flushed at the end of the read burst), or held while its connection opens. */
  private void fromClient(ByteBuf data) {
    if (target == null) {
      // Held until the target's connection opens; past a bound the client waits. (Not paused up front:
      // most flows send a little at once, and pausing and resuming costs two epoll calls per flow.)
      held.add(data);
      heldBytes += data.readableBytes();
      if (heldBytes > HOLD_BYTES) {
        client.config().setAutoRead(false);
      }
      return;
    }
    int length = data.readableBytes();
    if (length == 0) {
      data.release();
      clientShut(); // a FIN, in order after the data before it
      return;
    }
    meters.processed(length);
    received += length;
    target.write(data, target.voidPromise());
    if (!target.isWritable()) {
      client.config().setAutoRead(false); // read again once the target drains (channelWritabilityChanged)
    }
  }

  private void clientShut() {
    if (clientShut) {
      return;
    }
    clientShut = true;
    if (halfClose && target instanceof DuplexChannel duplex) {
      target.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> {
        if (!ended) {
          duplex.shutdownOutput();
        }
      });
    } else {
      end(End.CLOSED);
    }
  }

  /**
   * What either side read, to be relayed (the flow is not idle), or null: not bytes, or the flow
   * has ended (then it is released).
   */
  private ByteBuf relayed(Object message) {
    if (message instanceof ByteBuf data && !ended) {
      quiet = 0;
      return data;
    }
    ReferenceCountUtil.release(message);
    return null;
  }

  /** The client's side: this handler sits last in the client channel's pipeline. */
  private final class ClientSide extends ChannelInboundHandlerAdapter {

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      ByteBuf data = relayed(message);
      if (data != null) {
        fromClient(data);
      }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      if (target != null && !ended) {
        target.flush();
      }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof ChannelInputShutdownEvent && !ended) {
        // The client's FIN, after every byte before it: passed on in order, through the held bytes if need be.
        fromClient(Unpooled.EMPTY_BUFFER);
        if (target != null) {
          target.flush();
        }
        return;
      }
      ctx.fireUserEventTriggered(event);
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
      if (ctx.channel().isWritable() && target != null && !ended) {
        target.config().setAutoRead(true);
      }
      ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
      end(End.CLOSED);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      end(isReset(cause) ? End.CLIENT_RESET : End.CLOSED);
    }
  }

  // ---- target to client: this handler sits last in the target channel's pipeline ----

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) {
    ByteBuf data = relayed(message);
    if (data == null) {
      return;
    }
    meters.processed(data.readableBytes());
    sent += data.readableBytes();
    client.write(data, client.voidPromise());
    if (!client.isWritable()) {
      target.config().setAutoRead(false); // read again once the client drains (ClientSide)
    }
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    if (!ended) {
      client.flush();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    if (ctx.channel().isWritable() && !ended) {
      client.config().setAutoRead(true);
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
    if (event instanceof SslHandshakeCompletionEvent done) {
      if (done.isSuccess()) {
        tlsMeters = null; // the session is up: what follows is not a handshake's failure
      } else {
        tlsFailed();
      }
    }
    ctx.fireUserEventTriggered(event);
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (tlsMeters != null) {
      tlsFailed(); // closed before the TLS session was up
      return;
    }
    end(End.CLOSED);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (tlsMeters != null && SocketFailures.tlsFailure(cause)) {
      tlsFailed(); // a target that does not speak TLS, or not TLS the group can use
      return;
    }
    end(isReset(cause) ? End.TARGET_RESET : End.CLOSED);
  }

  /** The TLS session with the target could not be made: counted once, and the client's connection is reset. */
  private void tlsFailed() {
    if (tlsMeters != null && !ended) {
      tlsMeters.targetTlsError();
    }
    end(End.ELB_RESET);
  }

  // ---- the end ----

  /** Ends the flow as {@code how} says; the first end counts, later ones (the other side's close) do nothing. */
  void end(End how) {
    if (ended) {
      return;
    }
    ended = true;
    owner.ended(this);
    for (ByteBuf data; (data = held.poll()) != null; ) {
      data.release();
    }
    if (target != null) {
      upstream.completed();
    }
    switch (how) {
      case CLOSED -> {
        // Each side still open is closed once what it was sent is written (a second close costs Netty an exception).
        closeAfterWrites(client);
        closeAfterWrites(target);
      }
      case CLIENT_RESET -> {
        meters.clientReset();
        reset(target);
      }
      case TARGET_RESET -> {
        meters.targetReset();
        reset(client);
      }
      case ELB_RESET -> {
        meters.elbReset();
        reset(client);
        reset(target);
      }
      default -> throw new IllegalStateException(how.name());
    }
  }

  /** Closes {@code channel}, if still open, once what it was sent is written. */
  private static void closeAfterWrites(Channel channel) {
    if (channel != null && channel.isActive()) {
      channel.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
  }

  /**
   * Closes {@code channel} with a TCP reset (no linger) instead of a close, by the transport
   * itself, past the pipeline: a TLS connection's handler would otherwise send its close_notify
   * first, which a client reads as an orderly end.
   */
  static void reset(Channel channel) {
    if (channel != null && channel.isOpen()) {
      channel.config().setOption(ChannelOption.SO_LINGER, 0);
      channel.unsafe().close(channel.voidPromise());
    }
  }

  /** Whether {@code e} is the peer's reset of the connection. */
  private static boolean isReset(Throwable e) {
    return e instanceof IOException && String.valueOf(e.getMessage()).toLowerCase(Locale.ROOT).contains("reset");
  }
}
