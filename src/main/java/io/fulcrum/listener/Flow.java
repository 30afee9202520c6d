package io.fulcrum.listener;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.observe.LoadBalancerMeters;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;
import java.io.IOException;
import java.util.ArrayDeque;

/**
 * One connection through a network load balancer's listener: the client's socket and, once it is
 * open, the target's, with bytes relayed each way as they come (a side that cannot take more
 * pauses the other) and the end of one side carried to the other: a reset as a reset, a close as a
 * close. Over cleartext both ways, a side that only shuts its output (TCP half-close: a client
 * that sends its request and then {@code shutdown(SHUT_WR)}) has its FIN passed on once what it
 * sent is written, and the other direction stays open until it ends too. Touched only on its
 * event loop.
 */
final class Flow {

  /** How a flow ended, for the counters. */
  enum End {
    /** One side closed; the other is closed once what it was sent is written. */
    CLOSED,
    /** The client reset its connection; the target's is reset. */
    CLIENT_RESET,
    /** The target reset its connection (or refused it); the client's is reset. */
    TARGET_RESET,
    /** The load balancer ended the flow with resets both ways (unhealthy or deregistered target, no target reached). */
    ELB_RESET
  }

  private final FlowListeners owner;
  private final NetSocket client;
  private final String group;
  private final Upstream upstream;
  private final LoadBalancerMeters meters;
  /** Whether a FIN is passed on as a FIN (both sides cleartext) rather than ending the flow. */
  private final boolean halfClose;
  private NetSocket target;
  private boolean ended;
  /** Whether the client, and the target, shut their output (sent FIN) while the flow goes on. */
  private boolean clientShut;
  private boolean targetShut;
  /** What the client sent before the target's connection opened. */
  private final ArrayDeque<ByteBuf> held = new ArrayDeque<>(2);

  /**
   * @param halfClose whether both sides are cleartext TCP, so that one side's FIN can be passed on
   *                  while the other direction goes on (see {@link FinAsEmptyRead})
   */
  Flow(FlowListeners owner, NetSocket client, String group, Upstream upstream, LoadBalancerMeters meters,
      boolean halfClose) {
    this.owner = owner;
    this.client = client;
    this.group = group;
    this.upstream = upstream;
    this.meters = meters;
    this.halfClose = halfClose && FinAsEmptyRead.install(client);
    // Relayed as they are read (see read), so a side's end comes after its data.
    ((NetSocketInternal) client).messageHandler(message -> read(client, message));
    client.endHandler(v -> end(End.CLOSED));
    client.exceptionHandler(e -> end(reset(e) ? End.CLIENT_RESET : End.CLOSED));
    client.pause(); // until the target's connection is open
  }

  String group() {
    return group;
  }

  LoadBalancerMeters meters() {
    return meters;
  }

  /** The key of the target the flow goes to. */
  String targetKey() {
    return upstream.key();
  }

  /**
   * The target's connection is open: {@code first} (the PROXY protocol header, or null) goes
   * ahead of the client's bytes, which start flowing both ways.
   */
  void connected(NetSocket socket, Buffer first) {
    if (ended) {
      socket.close(); // the client left, or the flow was cut, while this connection opened
      return;
    }
    target = socket;
    upstream.dispatched();
    if (halfClose) {
      FinAsEmptyRead.install(target);
    }
    target.endHandler(v -> end(End.CLOSED));
    target.exceptionHandler(e -> end(reset(e) ? End.TARGET_RESET : End.CLOSED));
    ((NetSocketInternal) target).messageHandler(message -> read(target, message));
    if (first != null) {
      target.write(first);
    }
    for (ByteBuf data; (data = held.poll()) != null; ) {
      forward(client, data);
    }
    client.resume();
  }

  /**
   * One side sent FIN (only seen with {@link #halfClose}): once everything it sent is written to
   * the other, the other's output is shut the same way; when both have, the flow ends.
   */
  private void shut(NetSocket from) {
    if (from == client) {
      clientShut = true;
    } else {
      targetShut = true;
    }
    NetSocket to = from == client ? target : client;
    if (clientShut && targetShut) {
      end(End.CLOSED);
      return;
    }
    to.write(Buffer.buffer()).onComplete(ar -> {
      if (ended) {
        return;
      }
      if (ar.succeeded() && ((NetSocketInternal) to).channelHandlerContext().channel() instanceof DuplexChannel d) {
        d.shutdownOutput();
      } else {
        end(End.CLOSED);
      }
    });
  }

  /** The target's connection could not be made: the client's is reset, as the target's refusal would be. */
  void failed() {
    end(End.ELB_RESET);
  }

  /**
   * What a side read, as Netty's buffer: relayed to the other side without a copy (Vert.x's data
   * handler would copy each read onto the heap), or held while the target's connection opens.
   */
  private void read(NetSocket from, Object message) {
    if (!(message instanceof ByteBuf data) || ended) {
      ReferenceCountUtil.release(message);
      return;
    }
    if (target == null) {
      held.add(data); // the client's first bytes, read before it was paused
      return;
    }
    forward(from, data);
  }

  /**
   * Writes {@code data} to the other side (the buffer read is the buffer written); a side that
   * cannot take more stops this one reading (at most the rest of one read still comes). An empty
   * buffer is a FIN (see FinAsEmptyRead).
   */
  private void forward(NetSocket from, ByteBuf data) {
    NetSocketInternal to = (NetSocketInternal) (from == client ? target : client);
    int length = data.readableBytes();
    if (length == 0) {
      data.release();
      shut(from);
      return;
    }
    meters.processed(length);
    to.writeMessage(data);
    if (to.writeQueueFull()) {
      from.pause();
      to.drainHandler(v -> from.resume());
    }
  }

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
        client.end();
        if (target != null) {
          target.end();
        }
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

  /** Closes {@code socket} with a TCP reset (no linger) instead of a close. */
  static void reset(NetSocket socket) {
    if (socket == null) {
      return;
    }
    if (socket instanceof NetSocketInternal internal) {
      Channel channel = internal.channelHandlerContext().channel();
      if (channel.isOpen()) {
        channel.config().setOption(ChannelOption.SO_LINGER, 0);
        channel.close();
        return;
      }
    }
    socket.close();
  }

  /** Whether {@code e} is the peer's reset of the connection. */
  private static boolean reset(Throwable e) {
    return e instanceof IOException && String.valueOf(e.getMessage()).toLowerCase(java.util.Locale.ROOT).contains("reset");
  }
}
