package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpRequestEncoder;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One keep-alive connection to an HTTP/1.1 target on the direct path: a plain Netty channel on the
 * event loop of the client connections it serves, with nothing of Vert.x's HTTP client. Requests
 * go out as bytes written below Netty's HTTP/1.1 encoder ({@link #wire}: the direct path) or
 * through it (Netty's request objects: Vert.x's path, HTTP/2 clients); responses are read from the
 * socket's bytes by a {@link ResponseReader}, here, and handed to the exchange as they are read.
 * The pipeline is the encoder and this handler (behind TLS for an HTTPS target group). It carries
 * one {@link Exchange} at a time ({@link DirectExchange} for the direct path,
 * {@link BridgedExchange} for requests Vert.x's server parsed, {@link StreamExchange} for HTTP/2
 * clients) and sits in a {@link ChannelPool} between exchanges.
 *
 * <p>Its timer is the target idle timeout: it is restarted when a request (or a part of its body)
 * goes out and by every read; when it runs out, an exchange waiting for its response head ends in
 * 504, one mid-response cuts its client, and an idle pooled connection closes.
 *
 * <p>A target answers only what it was asked: a connection on which bytes come that no request
 * asked for (after a whole response, in the same read or while idle in the pool) is closed, never
 * reused, so that they cannot be read as the next request's answer (as HAProxy and NGINX do).
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
  private final ResponseReader reader = new ResponseReader(HttpForwarder.MAX_RESPONSE_HEADER_BYTES);
  private final Consumer<Object> toExchange = this::deliver;
  private final long idleNanos;
  /** The exchange the connection carries, or null while it is idle. */
  private Exchange exchange;
  /** Bytes read that do not make a whole part of a response yet, or null. */
  private ByteBuf pending;
  /** What the reader is reading from, during {@link #channelRead}; null between reads. */
  private ByteBuf reading;
  /** When something last went out or came in ({@link System#nanoTime}). */
  private long lastActivity;
  private ScheduledFuture<?> idleCheck;

  private TargetConnection(Channel channel, ChannelHandlerContext wire, long idleMillis) {
    this.channel = channel;
    this.wire = wire;
    this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
  }

  /** Sets up a new channel's pipeline and returns its connection. */
  static TargetConnection install(Channel ch, long idleMillis) {
    ch.pipeline().addLast("encoder", new RequestEncoder());
    TargetConnection c = new TargetConnection(ch, ch.pipeline().context("encoder"), idleMillis);
    ch.pipeline().addLast("connection", c);
    return c;
  }

  /**
   * Takes the connection for {@code ex}, whose request is a HEAD or not, and asks to switch
   * protocols (a WebSocket upgrade) or not.
   */
  void attach(Exchange ex, boolean headRequest, boolean upgradeRequest) {
    exchange = ex;
    reader.headRequest(headRequest);
    reader.upgradeRequest(upgradeRequest);
  }

  /** Leaves the connection without an exchange (idle, or about to close). */
  void detach() {
    exchange = null;
    channel.config().setAutoRead(true);
  }

  /** Restarts the idle timer: something went out toward the target. */
  void touch() {
    lastActivity = System.nanoTime();
  }

  @Override
  public void channelActive(ChannelHandlerContext ctx) {
    lastActivity = System.nanoTime();
    idleCheck = ctx.executor().schedule(this::checkIdle, idleNanos, TimeUnit.NANOSECONDS);
    ctx.fireChannelActive();
  }

  /**
   * Whether nothing has been read beyond the part just handed to the exchange: at the end of a
   * response, whether the target sent only what it was asked for (bytes after a whole response
   * answer no request, and must not be taken for the next one's answer).
   */
  boolean nothingMoreRead() {
    return reading == null || !reading.isReadable();
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    ByteBuf in = (ByteBuf) msg;
    if (exchange == null) {
      // Nothing was asked: a target that speaks out of turn cannot be trusted with the next request.
      in.release();
      channel.close();
      return;
    }
    ByteBuf buf = pending == null ? in : append(ctx, pending, in);
    pending = null;
    reading = buf;
    try {
      reader.read(buf, toExchange);
    } finally {
      reading = null;
      if (buf.isReadable() && channel.isActive()) {
        pending = buf; // the start of a part still to come
      } else {
        buf.release();
      }
    }
  }

  /** The bytes kept from earlier reads, with {@code in} after them. */
  private static ByteBuf append(ChannelHandlerContext ctx, ByteBuf pending, ByteBuf in) {
    try {
      if (pending.refCnt() == 1 && !pending.isReadOnly()) {
        pending.discardSomeReadBytes();
        pending.writeBytes(in);
        return pending;
      }
      // Slices of it went to the exchange: the rest is copied, not written after them.
      ByteBuf merged = ctx.alloc().buffer(pending.readableBytes() + in.readableBytes());
      merged.writeBytes(pending).writeBytes(in);
      pending.release();
      return merged;
    } finally {
      in.release();
    }
  }

  /** Hands a part of the response to the exchange. */
  private void deliver(Object msg) {
    Exchange ex = exchange;
    if (ex == null) {
      // Bytes after the response that ended this read's exchange (which then closed the connection).
      ReferenceCountUtil.release(msg);
      channel.close();
      return;
    }
    ex.fromTarget(this, msg);
  }

  @Override
  public void channelReadComplete(ChannelHandlerContext ctx) {
    lastActivity = System.nanoTime();
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

  /** Runs when the idle timeout may have passed since the last activity. */
  private void checkIdle() {
    if (!channel.isActive()) {
      return;
    }
    long left = lastActivity + idleNanos - System.nanoTime();
    if (left > 0) {
      idleCheck = channel.eventLoop().schedule(this::checkIdle, left, TimeUnit.NANOSECONDS);
      return;
    }
    idleCheck = channel.eventLoop().schedule(this::checkIdle, idleNanos, TimeUnit.NANOSECONDS);
    Exchange ex = exchange;
    if (ex != null) {
      ex.targetIdle(this);
    } else {
      channel.close(); // idle in the pool for the whole idle timeout
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
    if (idleCheck != null) {
      idleCheck.cancel(false);
    }
    releasePending();
    reader.closed(toExchange); // the end of a body that ends with the connection
    Exchange ex = exchange;
    if (ex != null) {
      ex.targetFailed(this, null);
    }
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    releasePending();
  }

  private void releasePending() {
    if (pending != null) {
      pending.release();
      pending = null;
    }
  }

  /**
   * Writes the request line as {@link Http1Wire} does (the URI's bytes as they came), and Vert.x's
   * header map in one pass, as Vert.x's own encoders do. Requests to targets are HTTP/1.1 in origin
   * or asterisk form.
   */
  private static final class RequestEncoder extends HttpRequestEncoder {
    @Override
    protected void encodeInitialLine(ByteBuf buf, HttpRequest request) {
      Http1Wire.writeRequestLine(buf, request);
    }

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
