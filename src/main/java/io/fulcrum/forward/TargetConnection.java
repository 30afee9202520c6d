package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import java.util.concurrent.TimeUnit;

/**
 * One keep-alive connection to an HTTP/1.1 target on the direct path: a plain Netty channel on the
 * event loop of the client connections it serves: requests go out as bytes written below Netty's
 * HTTP/1.1 encoder ({@link #wire}, the direct path) or through it (Netty's request objects: Vert.x's
 * path, HTTP/2 clients), responses are read by a {@link ResponseReader}; nothing of Vert.x's HTTP
 * client. It carries one {@link Exchange} at a time ({@link DirectExchange} for the
 * direct path, {@link BridgedExchange} for requests Vert.x's server parsed) and sits in a
 * {@link ChannelPool} between exchanges.
 *
 * <p>Its read timer is the target idle timeout: it is restarted when a request (or a part of its
 * body) goes out and by every read; when it runs out, an exchange waiting for its response head
 * ends in 504, one mid-response cuts its client, and an idle pooled connection closes.
 */
final class TargetConnection extends ChannelInboundHandlerAdapter {

  /** What a target connection tells the exchange it carries. Called on the connection's event loop. */
  interface Exchange {
    /** A part of the target's response (head, body, last), or a decoder failure. */
    void fromTarget(TargetConnection c, Object msg);

    /** The connection's reads of this round are over. */
    void readComplete();

    void targetWritabilityChanged(boolean writable);

    /** Nothing came from the target for the idle timeout. */
    void targetIdle(TargetConnection c);

    /** The connection failed ({@code cause}) or closed (null). */
    void targetFailed(TargetConnection c, Throwable cause);
  }

  final Channel channel;
  /** The HTTP encoder's context: what is written there goes to the target as it is (the direct path's bytes). */
  final ChannelHandlerContext wire;
  private final IdleStateHandler timer;
  private final ResponseReader reader;
  /** The exchange the connection carries, or null while it is idle. */
  private Exchange exchange;

  private TargetConnection(Channel channel, IdleStateHandler timer, ResponseReader reader, ChannelHandlerContext wire) {
    this.channel = channel;
    this.timer = timer;
    this.reader = reader;
    this.wire = wire;
  }

  /** Sets up a new channel's pipeline and returns its connection. */
  static TargetConnection install(Channel ch, long idleMillis) {
    IdleStateHandler timer = new IdleStateHandler(idleMillis, 0, 0, TimeUnit.MILLISECONDS);
    ResponseReader reader = new ResponseReader(HttpForwarder.MAX_RESPONSE_HEADER_BYTES);
    ch.pipeline().addLast("timer", timer)
        .addLast("decoder", reader)
        .addLast("encoder", new RequestEncoder());
    TargetConnection c = new TargetConnection(ch, timer, reader, ch.pipeline().context("encoder"));
    ch.pipeline().addLast("connection", c);
    return c;
  }

  /** Takes the connection for {@code ex}, whose request is a HEAD or not. */
  void attach(Exchange ex, boolean headRequest) {
    exchange = ex;
    reader.headRequest(headRequest);
  }

  /** Leaves the connection without an exchange (idle, or about to close). */
  void detach() {
    exchange = null;
    channel.config().setAutoRead(true);
  }

  /** Restarts the idle timer: something went out toward the target. */
  void touch() {
    timer.resetReadTimeout();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    Exchange ex = exchange;
    if (ex == null) {
      // Nothing was asked: a target that speaks out of turn cannot be trusted with the next request.
      ReferenceCountUtil.release(msg);
      ctx.close();
      return;
    }
    ex.fromTarget(this, msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    Exchange ex = exchange;
    if (ex != null) {
      ex.readComplete();
    }
  }

  @Override
  public void channelWritabilityChanged(ChannelHandlerContext ctx) {
    Exchange ex = exchange;
    if (ex != null) {
      ex.targetWritabilityChanged(ctx.channel().isWritable());
    }
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
    if (evt instanceof IdleStateEvent) {
      Exchange ex = exchange;
      if (ex != null) {
        ex.targetIdle(this);
      } else {
        ctx.close(); // idle in the pool for the whole idle timeout
      }
    } else {
      ctx.fireUserEventTriggered(evt);
    }
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    Exchange ex = exchange;
    if (ex != null) {
      ex.targetFailed(this, cause);
    }
    ctx.close();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    Exchange ex = exchange;
    if (ex != null) {
      ex.targetFailed(this, null);
    }
  }

  /** Writes Vert.x's header map in one pass, as Vert.x's own encoders do. */
  private static final class RequestEncoder extends HttpRequestEncoder {
    @Override
    protected void encodeHeaders(HttpHeaders headers, ByteBuf buf) {
      if (headers instanceof HeadersMultiMap h) {
        h.encode(buf, false);
      } else {
        super.encodeHeaders(headers, buf);
      }
    }
  }
}
