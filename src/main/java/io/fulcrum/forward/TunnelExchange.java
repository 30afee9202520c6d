package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.fulcrum.forward.HttpForwarder.ResponseHook;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetSocket;
import java.io.IOException;
import java.util.ArrayDeque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A WebSocket upgrade ({@link Upgrades}) forwarded to an HTTP/1.1 target, as ALB forwards one.
 * The request goes out with its {@code Upgrade} header and {@code Connection: Upgrade} besides the
 * load balancer's headers. A target that answers anything but {@code 101} is answered like any
 * other request, and the client's connection stays HTTP. A {@code 101} that switches to
 * {@code websocket} is passed on, and from then on the client's connection and the target's carry
 * each other's bytes, with back-pressure both ways, until either closes; the other is closed once
 * what was on its way to it is written. A {@code 101} to anything else is a malformed response
 * (502).
 *
 * <p>The listener's idle timeout governs the tunnel (the target connection's timer): nothing
 * either way for that long closes both connections. The request stays in flight until the tunnel
 * closes: it counts toward the target's outstanding requests (which least outstanding requests
 * reads), a deregistered target's tunnels are cut when its delay is over, and its outcome (status
 * 101) is told when it closes. Touched only on the owning event loop.
 */
final class TunnelExchange extends BridgedExchange {

  private static final Logger LOG = LoggerFactory.getLogger(TunnelExchange.class);

  /** Told when the client's connection becomes a tunnel, and when it closes. */
  private final HttpForwarder.TunnelListener lifecycle;
  /** The target answered 101: the client's connection is a tunnel, or becoming one. */
  private boolean switched;
  /** The client's connection as a socket, once Vert.x has handed it over; null before. */
  private NetSocket socket;
  /** What the target sent before the socket was there, in order (its last part when it closed); null when nothing. */
  private ArrayDeque<HttpContent> early;

  /**
   * @param head         the request head for the target (origin-form URI, headers prepared, the
   *                     upgrade headers among them)
   * @param tunnel told when the client's connection becomes a tunnel, and when it closes
   */
  TunnelExchange(HttpServerRequest request, HttpRequest head, Upstream target, boolean tls, ChannelPool pool,
      ExchangeListener listener, ResponseHook hook, HttpForwarder.TunnelListener tunnel) {
    super(request, head, false, target, tls, pool, listener, hook);
    this.lifecycle = tunnel;
  }

  @Override
  boolean upgradeRequest() {
    return true;
  }

  @Override
  void writeHead(TargetResponse r, MultiMap headers) {
    if (r.status() != 101) {
      super.writeHead(r, headers); // the target declined the upgrade: an answer like any other
      return;
    }
    String protocol = r.upgrade();
    if (!Upgrades.isWebSocket(protocol)) {
      fail(ElbError.TARGET_MALFORMED, new IOException("101 Switching Protocols to '" + protocol + "', not websocket"));
      return;
    }
    switched = true;
    MultiMap out = response.headers();
    out.addAll(headers);
    out.set(Upgrades.UPGRADE, protocol);
    out.set(Upgrades.CONNECTION, Upgrades.UPGRADE);
    // Vert.x writes the 101 with these headers and hands the connection over as a socket.
    request.toNetSocket().onComplete(ar -> {
      if (ar.failed()) {
        LOG.debug("{}: the client connection did not become a tunnel: {}", describe(), ar.cause().toString());
        dropEarly();
        request.connection().close();
        responseFailed();
        return;
      }
      tunnel(ar.result());
    });
  }

  /** The client's connection is a socket now: bytes flow both ways. */
  private void tunnel(NetSocket s) {
    socket = s;
    lifecycle.opened();
    s.exceptionHandler(e -> LOG.debug("{}: client side of the tunnel: {}", describe(), e.toString()));
    s.closeHandler(v -> clientSideClosed());
    if (finished()) {
      dropEarly();
      s.close(); // cut while the socket was on its way
      return;
    }
    s.handler(buf -> {
      TargetConnection c = connection;
      if (c == null) {
        return; // the target side is gone; the client side closes
      }
      c.wire.writeAndFlush(((BufferInternal) buf).getByteBuf(), c.wire.voidPromise());
      c.touch();
      if (!c.channel.isWritable()) {
        s.pause(); // the target reads slower than the client sends
      }
    });
    ArrayDeque<HttpContent> parts = early;
    early = null;
    if (parts != null) {
      for (HttpContent part : parts) {
        if (part instanceof LastHttpContent last) {
          closeClient(last);
        } else {
          toClient(null, part);
        }
      }
    }
    if (!((NetSocketInternal) s).channelHandlerContext().channel().isActive()) {
      clientSideClosed(); // closed before its close handler was there
    }
  }

  @Override
  void writeBody(TargetConnection c, HttpContent part) {
    if (!switched) {
      super.writeBody(c, part);
    } else if (socket == null) {
      hold(part);
    } else {
      toClient(c, part);
    }
  }

  @Override
  void writeLast(LastHttpContent last) {
    if (!switched) {
      super.writeLast(last);
    } else if (socket == null) {
      hold(last);
    } else {
      closeClient(last);
    }
  }

  private void hold(HttpContent part) {
    if (early == null) {
      early = new ArrayDeque<>(4);
    }
    early.add(part);
  }

  /** Writes the target's bytes to the client; stops reading the target while the client is behind. */
  private void toClient(TargetConnection c, HttpContent part) {
    try {
      if (part.content().isReadable()) {
        socket.write(Buffer.buffer(ByteBufUtil.getBytes(part.content())));
      }
    } finally {
      part.release();
    }
    if (c != null && socket.writeQueueFull()) {
      c.channel.config().setAutoRead(false);
      socket.drainHandler(v -> {
        if (connection == c) {
          c.channel.config().setAutoRead(true);
        }
      });
    }
  }

  /** The target closed its side: what it sent last goes to the client, whose connection then closes. */
  private void closeClient(LastHttpContent last) {
    toClient(null, last);
    socket.close();
    finish(true);
  }

  /** The client's side closed: what it sent goes to the target, whose connection then closes. */
  private void clientSideClosed() {
    lifecycle.closed();
    if (finished()) {
      return;
    }
    clientGone = true;
    over = true;
    TargetConnection c = connection;
    if (c != null) {
      connection = null;
      c.detach();
      c.wire.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
    }
    finish(true);
  }

  @Override
  void cutClient() {
    if (!switched) {
      super.cutClient();
    } else if (socket != null) {
      socket.close();
    }
    // else: the socket closes as it comes (tunnel)
  }

  private void dropEarly() {
    if (early != null) {
      early.forEach(HttpContent::release);
      early = null;
    }
  }

  @Override
  public void targetWritabilityChanged(boolean writable) {
    if (!switched) {
      super.targetWritabilityChanged(writable);
    } else if (writable && socket != null && !over) {
      socket.resume();
    }
  }

  @Override
  String describe() {
    return "WebSocket " + super.describe();
  }
}
