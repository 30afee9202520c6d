package io.fulcrum.listener;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.observe.GroupMeters;
import io.fulcrum.observe.LoadBalancerMeters;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.util.ReferenceCountUtil;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One UDP flow of a network load balancer (SPEC §2.4): the datagrams of one client address and
 * port to one listener address, relayed to the one target its first datagram chose, over a socket
 * of its own connected to that target, and the target's datagrams relayed back to the client from
 * the listener's address. Lives on one event loop, the one whose listening socket took its first
 * datagram; nothing in it is shared.
 */
final class DatagramFlow extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(DatagramFlow.class);
  /**
   * How many datagrams a flow holds while its target socket opens; more are dropped, as a full
   * socket buffer would drop them.
   */
  static final int MAX_HELD = 64;

  private final DatagramListeners owner;
  private final DatagramListeners.Binding listener;
  private final InetSocketAddress client;
  private final String group;
  private final Upstream upstream;
  private final LoadBalancerMeters meters;
  private final GroupMeters groupMeters;
  private final ArrayDeque<ByteBuf> held = new ArrayDeque<>();
  /** The socket connected to the target, once it is; null before. */
  private DatagramChannel target;
  /** Idle sweeps in a row that saw no datagram either way. */
  private int quiet;
  /** Whether datagrams wait in the target socket for the listener's flush. */
  private boolean unflushed;
  private boolean ended;

  DatagramFlow(DatagramListeners owner, DatagramListeners.Binding listener, InetSocketAddress client, String group,
      Upstream upstream, LoadBalancerMeters meters, GroupMeters groupMeters) {
    this.owner = owner;
    this.listener = listener;
    this.client = client;
    this.group = group;
    this.upstream = upstream;
    this.meters = meters;
    this.groupMeters = groupMeters;
  }

  /**
   * Opens the flow's socket to its target on {@code loop}: registered, then connected (which binds
   * it to a free port), so that only the target's datagrams reach it.
   */
  void open(DatagramChannel channel, EventLoop loop) {
    channel.pipeline().addLast("flow", this);
    loop.register(channel).addListener(registered -> {
      if (!registered.isSuccess()) {
        channel.unsafe().closeForcibly();
        failed(registered.cause());
        return;
      }
      channel.connect(upstream.socketAddress()).addListener((ChannelFuture f) -> {
        if (!f.isSuccess()) {
          channel.close();
          failed(f.cause());
          return;
        }
        if (ended) {
          channel.close(); // cut or gone idle while it opened
          return;
        }
        target = channel;
        upstream.dispatched();
        for (ByteBuf data; (data = held.poll()) != null; ) {
          meters.udpRelayed(data.readableBytes());
          target.write(data, target.voidPromise());
        }
        target.flush();
      });
    });
  }

  private void failed(Throwable cause) {
    LOG.debug("UDP flow {} -> {}: the target's socket did not open: {}", client, upstream.endpoint(),
        cause == null ? "?" : cause.toString());
    groupMeters.targetConnectionError();
    end();
  }

  /**
   * A datagram from the client: to the target (held while its socket opens; counted as relayed
   * once written). Takes {@code data}. It is written, not flushed: the listener flushes every flow
   * it wrote to once its socket has read what it could ({@link DatagramListeners}), and the
   * datagrams of one read go out in one system call where the transport can ({@code sendmmsg} on
   * epoll).
   *
   * @return whether the flow has just begun to wait for a flush (the listener then remembers it)
   */
  boolean fromClient(ByteBuf data) {
    if (ended) {
      data.release();
      return false;
    }
    quiet = 0;
    if (target == null) {
      if (held.size() < MAX_HELD) {
        held.add(data);
      } else {
        data.release();
      }
      return false;
    }
    if (!target.isWritable()) {
      data.release(); // the socket's buffer is full: dropped, as the network would
      return false;
    }
    meters.udpRelayed(data.readableBytes());
    target.write(data, target.voidPromise());
    if (unflushed) {
      return false;
    }
    unflushed = true;
    return true;
  }

  /** Sends what {@link #fromClient} wrote. */
  void flush() {
    unflushed = false;
    if (target != null) {
      target.flush();
    }
  }

  /** A datagram from the target: back to the client, from the listener's address. */
  @Override
  public void channelRead(ChannelHandlerContext ctx, Object message) {
    ByteBuf data = message instanceof DatagramPacket p ? p.content() : message instanceof ByteBuf b ? b : null;
    if (data == null || ended) {
      ReferenceCountUtil.release(message);
      return;
    }
    quiet = 0;
    int bytes = data.readableBytes();
    if (listener.send(DatagramListeners.exact(data), client)) {
      meters.udpRelayed(bytes);
    } else {
      LOG.trace("UDP flow {}: its listener's socket is closed or full; the target's datagram is dropped", client);
    }
  }

  /**
   * The socket to the target closed by itself (an error the transport does not survive): the flow
   * ends, and the client's next datagram starts a new one rather than going nowhere.
   */
  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    if (target != null) {
      end();
    }
  }

  /** The target socket read what it could: what went to the client goes out, together. */
  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    listener.flush();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // An ICMP port unreachable from the target (java.net.PortUnreachableException) or another error
    // of one datagram: the datagram is lost, as it would be on the network; the flow goes on.
    LOG.debug("UDP flow {} -> {}: {}", client, upstream.endpoint(), cause.toString());
  }

  /** Counts an idle sweep; the count of sweeps in a row without a datagram either way. */
  int quietSweep() {
    return ++quiet;
  }

  /** Ends the flow: its socket to the target closes, and the client's next datagram opens a new flow. */
  void end() {
    if (ended) {
      return;
    }
    ended = true;
    for (ByteBuf data; (data = held.poll()) != null; ) {
      data.release();
    }
    if (target != null) {
      upstream.completed();
      target.close();
    }
    owner.ended(this);
  }

  DatagramListeners.Binding listener() {
    return listener;
  }

  InetSocketAddress client() {
    return client;
  }

  String group() {
    return group;
  }

  /** The target's key in its group's plan. */
  String targetKey() {
    return upstream.key();
  }

  LoadBalancerMeters meters() {
    return meters;
  }
}
