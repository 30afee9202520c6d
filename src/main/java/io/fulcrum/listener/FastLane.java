package io.fulcrum.listener;

import io.fulcrum.forward.DirectExchange;
import io.fulcrum.listener.HttpListeners.Binding;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPromise;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.List;

/**
 * The direct path's place in an HTTP/1.x client connection: a handler between Netty's HTTP
 * decoder and Vert.x's connection. It offers each parsed request to
 * {@link DirectRequests#direct}, which forwards the common case (a plain forward to an HTTP/1.1
 * target group) itself; every other request, and everything while Vert.x has a request of the
 * connection in hand, passes on to Vert.x unchanged and takes the usual path.
 *
 * <p>One request is served at a time, in order: requests pipelined behind a direct exchange wait
 * (the socket is not read meanwhile), and requests behind one that Vert.x serves go to Vert.x,
 * which queues them itself. Vert.x's responses pass through here on their way out, which is how
 * their ends are counted. A close that Vert.x asks for while a direct exchange is answering (a
 * graceful shutdown sees the connection as idle) waits for that exchange to end.
 *
 * <p>A client may shut its sending side once its requests are out (a TCP half-close, as
 * {@code nc -N} and some HTTP/1.0 clients do): the requests read whole are answered, on either path,
 * and the connection closes after the last answer, as HAProxy and NGINX do. A half-close in the
 * middle of a request, or once the connection is no longer HTTP/1.x (a WebSocket tunnel, h2c),
 * closes it at once, as before.
 *
 * <p>Touched only on the connection's event loop.
 */
final class FastLane extends ChannelDuplexHandler implements DirectExchange.Client {

  /** The handler's name in the pipeline, just before Vert.x's own ({@code handler}). */
  static final String NAME = "fulcrum-direct";
  /** Vert.x's name for the HTTP/1.x response encoder in the pipeline. */
  private static final String HTTP_ENCODER = "httpEncoder";

  private final DirectRequests requests;
  private final Binding binding;
  private final ClientConnection client;
  private final SocketAddress remote;
  private ChannelHandlerContext ctx;
  /** Where direct responses are written: below Vert.x's idle handler when there is one (see handlerAdded). */
  private ChannelHandlerContext out;
  /** Vert.x's HTTP encoder's context: direct responses are written below it, as bytes. */
  private ChannelHandlerContext wire;
  /** Vert.x's idle timer of the connection, or null. */
  private IdleStateHandler idle;
  /** The direct exchange under way, or null. */
  private DirectExchange exchange;
  /** Requests handed to Vert.x whose responses have not ended. */
  private int withVertx;
  /** The request being read was handed to Vert.x, and so is the rest of its body. */
  private boolean bodyToVertx;
  /**
   * A direct exchange ended before its request body had all come (it failed, and the connection
   * is closing): the rest of that body is dropped, never taken for a request of Vert.x's.
   */
  private boolean dropBody;
  /** Messages read while a direct exchange answers (pipelined requests), in order. */
  private ArrayDeque<Object> queued;
  private ChannelPromise closeWhenDone;
  /**
   * The direct exchange under way answers a request whose client asked to close the connection
   * after it ({@code Connection: close}): its response says so, and the connection closes once it
   * has gone.
   */
  private boolean closeAfter;
  /** The connection closes after the last response: nothing read from now on is a request. */
  private boolean over;
  /** The client has shut its sending side: the connection closes once what it sent is answered. */
  private boolean inputShut;
  /** Requests read while an exchange answered are being taken now (see exchangeDone). */
  private boolean replaying;

  FastLane(DirectRequests requests, Binding binding, ClientConnection client, SocketAddress remote) {
    this.requests = requests;
    this.binding = binding;
    this.client = client;
    this.remote = remote;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.out = ctx;
    // A client's half-close reaches userEventTriggered instead of closing the connection.
    ctx.channel().config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
    this.wire = ctx.pipeline().context(HTTP_ENCODER);
    // Vert.x's idle handler turns every write into one with a promise and a listener, to see writes. When it
    // sits between the HTTP encoder and here (cleartext; over TLS it comes first in the pipeline), direct
    // responses are written past it, and restart its write time themselves.
    ChannelHandlerContext idleCtx = ctx.pipeline().context(IdleStateHandler.class);
    if (idleCtx != null) {
      List<String> names = ctx.pipeline().names();
      int encoder = names.indexOf(HTTP_ENCODER);
      if (encoder >= 0 && names.indexOf(idleCtx.name()) > encoder) {
        this.out = idleCtx;
        this.idle = (IdleStateHandler) idleCtx.handler();
      }
    }
  }

  @Override
  public ChannelHandlerContext out() {
    return out;
  }

  @Override
  public ChannelHandlerContext wire() {
    return wire;
  }

  @Override
  public void wrote() {
    if (idle != null) {
      idle.resetWriteTimeout();
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (queued != null) {
      queued.add(msg);
    } else {
      read(msg);
    }
  }

  private void read(Object msg) {
    if (over || client != null && client.closing()) {
      // A response before this said Connection: close (the direct path's to a client that asked for it, or
      // Vert.x's to an unsupported Transfer-Encoding, a head too large); the close waits for that answer's
      // write, which io_uring completes later. What was read after that request is never taken for a request.
      ReferenceCountUtil.release(msg);
      return;
    }
    if (dropBody && msg instanceof HttpContent part && !(msg instanceof HttpRequest)) {
      dropBody = !(part instanceof LastHttpContent);
      part.release();
      return;
    }
    DirectExchange ex = exchange;
    if (ex != null) {
      if (!ex.requestReceived() && msg instanceof HttpContent part && !(msg instanceof HttpRequest)) {
        ex.fromClient(part);
      } else {
        // A pipelined request: it waits until this response has ended.
        queued = new ArrayDeque<>(4);
        queued.add(msg);
        ctx.channel().config().setAutoRead(false);
      }
      return;
    }
    if (withVertx == 0 && !bodyToVertx && wire != null && msg instanceof HttpRequest request) {
      // Read before the request's hop-by-hop headers go; asked for by lastResponse() as the response starts.
      closeAfter = !HttpUtil.isKeepAlive(request);
      DirectExchange started = requests.direct(binding, this, request, client, remote);
      if (started == null) {
        closeAfter = false;
      } else {
        if (!started.finished()) {
          exchange = started;
        }
        return;
      }
    }
    toVertx(msg);
  }

  private void toVertx(Object msg) {
    if (msg instanceof HttpRequest) {
      withVertx++;
      bodyToVertx = !(msg instanceof LastHttpContent);
    } else if (msg instanceof LastHttpContent) {
      bodyToVertx = false;
    }
    ctx.fireChannelRead(msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    DirectExchange ex = exchange;
    if (ex != null) {
      ex.flushTarget();
    }
    ctx.fireChannelReadComplete();
  }

  @Override
  public void exchangeDone(DirectExchange ex) {
    if (exchange != null && exchange != ex) {
      return;
    }
    exchange = null;
    dropBody = !ex.requestReceived();
    if (client != null) {
      client.requestEnded();
    }
    if (closeWhenDone != null || closeAfter) {
      ChannelPromise close = closeWhenDone != null ? closeWhenDone : ctx.newPromise();
      closeWhenDone = null;
      closeAfter = false;
      dropQueued(); // requests behind the last one are not served (RFC 9112 §9.6)
      closeOnceWritten(close);
      return;
    }
    if (!ctx.channel().isActive()) {
      return;
    }
    // Reading stopped for a pipelined request or a target slower than the client's body: both are over.
    boolean paused = queued != null || !ctx.channel().config().isAutoRead();
    if (queued != null) {
      ArrayDeque<Object> next = queued;
      queued = null;
      // Requests read meanwhile are taken in order; one may start the next exchange, behind which the rest wait again.
      replaying = true;
      while (!next.isEmpty()) {
        if (queued != null) {
          queued.addAll(next);
          break;
        }
        read(next.poll());
      }
      replaying = false;
      // No read of the client follows to flush what the replay sent, to a target or through Vert.x.
      if (exchange != null) {
        exchange.flushTarget();
      }
      ctx.fireChannelReadComplete();
    }
    if (paused && queued == null) {
      ctx.channel().config().setAutoRead(true);
    }
    closeIfAnswered();
  }

  @Override
  public boolean lastResponse() {
    return closeAfter || client != null && client.expired();
  }

  @Override
  public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
    // Only Vert.x's writes come through here (the direct path writes from this handler onward).
    boolean responseEnds = withVertx > 0 && msg instanceof LastHttpContent
        && !(msg instanceof HttpResponse r && r.status().codeClass() == HttpStatusClass.INFORMATIONAL);
    ctx.write(msg, promise);
    if (responseEnds) {
      withVertx--;
      closeIfAnswered();
    }
  }

  @Override
  public void read(ChannelHandlerContext ctx) {
    // Once the client has shut its side there is nothing to read, and Netty's epoll channel no longer
    // watches the socket: a read asked for then (Vert.x resuming a request, say) would fail and close it.
    if (!inputShut) {
      ctx.read();
    }
  }

  /**
   * The client's socket failed (a reset, with half-closes allowed, reads as the input's end next):
   * unlike a half-close, nothing can be sent back any more, so the client left before its answer
   * (ALB's 460): the exchange under way is dropped, its target connection closed, and a close held
   * back for it goes through.
   */
  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      DirectExchange ex = exchange;
      if (ex != null) {
        exchange = null;
        ex.clientClosed();
      }
      ChannelPromise held = closeWhenDone;
      if (held != null) {
        closeWhenDone = null;
        ctx.close(held);
      }
    }
    ctx.fireExceptionCaught(cause);
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof ChannelInputShutdownEvent) {
      inputShut = true;
      DirectExchange ex = exchange;
      boolean partRead = bodyToVertx || ex != null && !ex.requestReceived()
          || queued != null && !(queued.peekLast() instanceof LastHttpContent);
      if (partRead || ctx.pipeline().context(HTTP_ENCODER) == null) {
        // A request cut short, or no longer HTTP/1.x (a tunnel, h2c): the connection closes now, as it
        // did before half-closes were let through.
        ctx.close();
      } else {
        closeIfAnswered();
      }
    }
    ctx.fireUserEventTriggered(evt);
  }

  /**
   * After the client's half-close: closes the connection once every request it sent is answered
   * (what the last response wrote goes out first).
   */
  private void closeIfAnswered() {
    if (inputShut && !replaying && exchange == null && queued == null && withVertx == 0 && !over
        && ctx.channel().isActive()) {
      closeOnceWritten(ctx.newPromise());
    }
  }

  /** The last response has been written: it goes out, then the connection closes; nothing read after is served. */
  private void closeOnceWritten(ChannelPromise close) {
    over = true;
    ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(f -> ctx.close(close));
  }

  @Override
  public void close(ChannelHandlerContext ctx, ChannelPromise promise) {
    DirectExchange ex = exchange;
    if (ex != null && ex.requestReceived() && !ex.finished()) {
      closeWhenDone = promise; // the response is on its way: it ends first (bounded by the target idle timeout)
      return;
    }
    ctx.close(promise);
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    DirectExchange ex = exchange;
    if (ex != null) {
      ex.clientWritabilityChanged(ctx.channel().isWritable());
    }
    ctx.fireChannelWritabilityChanged();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    DirectExchange ex = exchange;
    if (ex != null) {
      exchange = null;
      ex.clientClosed();
    }
    dropQueued();
    ctx.fireChannelInactive();
  }

  private void dropQueued() {
    if (queued != null) {
      queued.forEach(ReferenceCountUtil::release);
      queued = null;
    }
  }
}
