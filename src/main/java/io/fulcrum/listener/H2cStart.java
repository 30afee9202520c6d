package io.fulcrum.listener;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.http.impl.Http1xOrH2CHandler;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The start of a connection to an HTTP listener that takes h2c too, until Vert.x has made it an
 * HTTP/1.x or an HTTP/2 connection. Vert.x tells the two apart by the first bytes (the HTTP/2
 * preface or anything else) and makes an HTTP/1.x connection only once the first request's head is
 * all in: {@link ClientConnection}, which keeps the idle timeout, cannot start before. For that
 * stretch, this handler does what it would, and one thing Vert.x does not:
 * <ul>
 *   <li>A connection that sends nothing for the idle timeout is closed; one whose first request
 *   head has begun and not all come by then is answered 408 and closed, as on every listener
 *   (without it, Vert.x's guard against stalled requests closed them, silently, after the idle
 *   timeout plus the target connect timeout and a second).</li>
 *   <li>A first request offering {@code Upgrade: h2c} without what the upgrade needs (a
 *   {@code Connection} naming {@code Upgrade} and {@code HTTP2-Settings}, and an
 *   {@code HTTP2-Settings} that reads as settings) is served as the HTTP/1.1 request it also is,
 *   its {@code h2c} offer dropped: a server may ignore an upgrade (RFC 9110 §7.8). Vert.x answered
 *   it a 400 without a length and kept the connection open, so that the client waited for the end
 *   of a body that never came.</li>
 * </ul>
 * The network transport puts it in as it accepts a connection ({@link #watch}), just after Vert.x's
 * handler that tells the protocols apart, so that it sees the first bytes after that handler has set
 * up HTTP/1.x's decoder and before the decoder reads them; it leaves once the connection is made
 * ({@link #connected}). Only the connection's event loop runs it.
 */
public final class H2cStart extends ChannelInboundHandlerAdapter {

  static final String NAME = "fulcrumH2cStart";
  private static final String UPGRADE_GUARD = "fulcrumH2cUpgrade";
  private static final String H2C = "h2c";
  /** A setting's size in {@code HTTP2-Settings}: a 16-bit identifier and a 32-bit value (RFC 7540 §6.5.1). */
  private static final int SETTING_BYTES = 6;

  /** What a listener that takes h2c does at its connections' start. */
  interface Listener {

    /** The listener's idle timeout now. */
    long idleMillis();

    /** Answers a request head that has not all come within the idle timeout (408) and closes. */
    void headTimedOut(Channel channel);
  }

  private static final ByListeningAddress<Listener> LISTENERS = new ByListeningAddress<>();

  /** The connections {@code local} accepts on {@code loop} start with {@code listener}'s idle timeout. */
  static void register(EventExecutor loop, InetSocketAddress local, Listener listener) {
    LISTENERS.register(loop, local, listener);
  }

  static void unregister(EventExecutor loop, InetSocketAddress local) {
    LISTENERS.unregister(loop, local);
  }

  /**
   * For a connection that a cleartext HTTP server taking h2c has just accepted (its channel
   * registered on its event loop, Vert.x's handlers set up): watches its start when its listener
   * registered.
   */
  public static void watch(Channel ch) {
    ByListeningAddress.Key key = LISTENERS.keyOf(ch);
    Listener listener = key == null ? null : LISTENERS.get(key);
    ChannelHandlerContext decide = ch.pipeline().context(Http1xOrH2CHandler.class);
    if (listener != null && decide != null) {
      ch.pipeline().addAfter(decide.name(), NAME, new H2cStart(listener));
    }
  }

  /** Vert.x has made the connection: its start is over. */
  static void connected(ChannelPipeline pipeline) {
    if (pipeline.get(NAME) != null) {
      pipeline.remove(NAME);
    }
  }

  private final Listener listener;
  private final long acceptedNanos = System.nanoTime();
  private ScheduledFuture<?> timer;
  private boolean guarded;

  private H2cStart(Listener listener) {
    this.listener = listener;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    arm(ctx, listener.idleMillis());
  }

  @Override
  public void handlerRemoved(ChannelHandlerContext ctx) {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  @Override
  public void channelRead(ChannelHandlerContext ctx, Object msg) {
    if (!guarded && ctx.pipeline().get(RequestDecoder.NAME) != null) {
      // HTTP/1.x: its decoder is in now, and has not read a byte yet.
      guarded = true;
      ctx.pipeline().addAfter(RequestDecoder.NAME, UPGRADE_GUARD, new UpgradeGuard());
    }
    ctx.fireChannelRead(msg);
  }

  private void arm(ChannelHandlerContext ctx, long millis) {
    timer = ctx.executor().schedule(() -> expired(ctx), Math.max(1, millis), TimeUnit.MILLISECONDS);
  }

  private void expired(ChannelHandlerContext ctx) {
    timer = null;
    if (ctx.isRemoved()) {
      return;
    }
    long left = listener.idleMillis() - TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - acceptedNanos);
    if (left > 0) {
      arm(ctx, left); // the idle timeout grew since
    } else if (ctx.pipeline().get(RequestDecoder.NAME) != null) {
      listener.headTimedOut(ctx.channel()); // an HTTP/1.x head begun: its decoder is in
    } else {
      ctx.channel().close(); // nothing, or part of the HTTP/2 preface
    }
  }

  /** Between HTTP/1.x's decoder and Vert.x's h2c upgrade handler, for the first request. */
  private static final class UpgradeGuard extends ChannelInboundHandlerAdapter {

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      if (msg instanceof HttpRequest request) {
        ctx.pipeline().remove(this);
        HttpHeaders headers = request.headers();
        if (headers.contains(HttpHeaderNames.UPGRADE, H2C, true) && !upgradable(headers)) {
          dropH2cOffer(headers);
        }
      }
      ctx.fireChannelRead(msg);
    }
  }

  /**
   * Whether Vert.x's h2c handler takes the upgrade these headers offer: a first {@code Connection}
   * field whose tokens (read as that handler reads them) include {@code upgrade} and
   * {@code http2-settings}, and a first {@code HTTP2-Settings} field that is base64url of whole
   * settings with values HTTP/2 allows.
   */
  static boolean upgradable(HttpHeaders headers) {
    String connection = headers.get(HttpHeaderNames.CONNECTION);
    boolean upgrade = false;
    boolean settings = false;
    if (connection != null) {
      for (String token : connection.split(",", -1)) {
        String t = token.replace(" ", "").toLowerCase(java.util.Locale.ROOT);
        upgrade |= t.equals("upgrade");
        settings |= t.equals("http2-settings");
      }
    }
    return upgrade && settings && readableSettings(headers.get(Http2CodecUtil.HTTP_UPGRADE_SETTINGS_HEADER));
  }

  private static boolean readableSettings(String base64url) {
    if (base64url == null) {
      return false;
    }
    try {
      byte[] bytes = Base64.getUrlDecoder().decode(base64url);
      if (bytes.length % SETTING_BYTES != 0) {
        return false;
      }
      Http2Settings settings = new Http2Settings();
      for (int i = 0; i < bytes.length; i += SETTING_BYTES) {
        char id = (char) (((bytes[i] & 0xff) << 8) | (bytes[i + 1] & 0xff));
        long value = ((bytes[i + 2] & 0xffL) << 24) | ((bytes[i + 3] & 0xffL) << 16) | ((bytes[i + 4] & 0xffL) << 8)
            | (bytes[i + 5] & 0xffL);
        settings.put(id, Long.valueOf(value)); // refuses a value out of its setting's range
      }
      return true;
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  /** Takes {@code h2c} out of the {@code Upgrade} fields (each field that is just that, as Vert.x looks). */
  private static void dropH2cOffer(HttpHeaders headers) {
    List<String> kept = new ArrayList<>();
    for (String value : headers.getAll(HttpHeaderNames.UPGRADE)) {
      if (!value.equalsIgnoreCase(H2C)) {
        kept.add(value);
      }
    }
    headers.remove(HttpHeaderNames.UPGRADE);
    if (!kept.isEmpty()) {
      headers.add(HttpHeaderNames.UPGRADE, kept);
    }
  }
}
