package io.fulcrum.forward;

import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2Connection;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2ConnectionHandlerBuilder;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import io.netty.util.AttributeKey;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 connection to a target of an HTTP2 or GRPC target group (prior knowledge in clear,
 * or ALPN h2 over TLS), carrying the direct path's {@link RelayExchange}s as streams: Netty's HTTP/2 codec, with a
 * frame listener that hands each stream's frames to its exchange. A stream beyond the target's
 * {@code SETTINGS_MAX_CONCURRENT_STREAMS} waits here for one to end; after a GOAWAY the connection
 * takes no new stream. Idle (no stream) for the idle timeout, it closes. Flushes are coalesced per
 * event-loop round. Touched only on its event loop.
 */
final class Http2TargetConnection extends Http2FrameAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(Http2TargetConnection.class);

  /** The connection of a channel, set when the channel is made. */
  static final AttributeKey<Http2TargetConnection> CONNECTION = AttributeKey.valueOf("fulcrum.http2Target");

  final Channel channel;
  private final Http2ConnectionHandler handler;
  private final ChannelHandlerContext ctx;
  private final Http2Connection.PropertyKey key;
  /** Exchanges waiting for the target to allow one more stream. */
  private final ArrayDeque<RelayExchange> waiting = new ArrayDeque<>();
  private final Runnable flushTask = this::flushNow;
  private boolean flushPending;
  /** The target said GOAWAY, or stream ids ran out: no new streams. */
  private boolean goingAway;
  /** The target's first SETTINGS came: its limit on concurrent streams is known. */
  private boolean ready;
  /** Told when the connection is ready, and when it takes no more streams. */
  private Owner owner;

  /** The pool's side of a connection. */
  interface Owner {
    /** The target's SETTINGS came: streams may go on {@code c}. */
    void ready(Http2TargetConnection c);

    /**
     * {@code c} takes no new stream any more (GOAWAY, or closed; {@code ready} says whether it ever
     * was); {@code unstarted} are the exchanges that waited on it for a stream, to be placed again.
     */
    void lost(Http2TargetConnection c, boolean wasReady, java.util.List<RelayExchange> unstarted);
  }

  private Http2TargetConnection(Channel channel, long idleMillis) {
    this.channel = channel;
    channel.attr(CONNECTION).set(this);
    Http2Connection connection = new DefaultHttp2Connection(false);
    this.handler = new Http2ConnectionHandlerBuilder()
        .connection(connection)
        .frameListener(this)
        .initialSettings(Http2Settings.defaultSettings().pushEnabled(false)
            .maxHeaderListSize(HttpForwarder.MAX_RESPONSE_HEADER_BYTES))
        .build();
    this.key = connection.newKey();
    channel.pipeline()
        // Reads only: an idle handler watching writes adds a promise and a listener to each frame written.
        // A connection with no stream reads nothing once its last response came.
        .addLast("idle", new IdleStateHandler(idleMillis, 0, 0, TimeUnit.MILLISECONDS))
        .addLast("h2", handler)
        .addLast("events", new ChannelInboundHandlerAdapter() {
          @Override
          public void exceptionCaught(ChannelHandlerContext c, Throwable cause) {
            LOG.debug("connection to a target: {}", cause.toString());
            c.close(); // a reset or a broken connection: its streams end as the target's failure
          }

          @Override
          public void userEventTriggered(ChannelHandlerContext c, Object evt) {
            if (evt instanceof IdleStateEvent && connection.numActiveStreams() == 0 && waiting.isEmpty()) {
              c.close(); // a pooled connection unused for the idle timeout
            }
          }
        });
    this.ctx = channel.pipeline().context(handler);
    connection.addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        RelayExchange ex = stream.removeProperty(key);
        if (ex != null) {
          ex.targetStreamClosed();
        }
        openWaiting();
      }

      @Override
      public void onGoAwayReceived(int lastStreamId, long errorCode, ByteBuf debugData) {
        // Streams above the last one the target processed were not processed (RFC 9113 §6.8): Netty closes
        // them next, and their exchanges go again on another connection.
        try {
          connection.forEachActiveStream(stream -> {
            if (stream.id() > lastStreamId) {
              RelayExchange ex = stream.getProperty(key);
              if (ex != null) {
                ex.targetRefused();
              }
            }
            return true;
          });
        } catch (Http2Exception e) {
          throw new IllegalStateException(e); // the visitor throws nothing
        }
        goAway();
      }
    });
    handler.encoder().flowController().listener(stream -> {
      RelayExchange ex = stream.getProperty(key);
      if (ex != null) {
        ex.targetWritabilityChanged();
      }
    });
    channel.closeFuture().addListener(f -> goAway());
  }

  /** From now on no new stream: the exchanges waiting for one go back to the pool. */
  private void goAway() {
    if (goingAway) {
      return;
    }
    goingAway = true;
    java.util.List<RelayExchange> unstarted = new java.util.ArrayList<>(waiting);
    waiting.clear();
    if (owner != null) {
      owner.lost(this, ready, unstarted);
    } else {
      unstarted.forEach(RelayExchange::targetConnectionLost);
    }
  }

  /** Sets who is told of the connection's readiness and loss (before the channel is active). */
  void owner(Owner o) {
    owner = o;
  }

  /** Sets up a new channel's pipeline (before it connects) and returns its connection. */
  static Http2TargetConnection install(Channel ch, long idleMillis) {
    return new Http2TargetConnection(ch, idleMillis);
  }

  /** Whether new streams may go on this connection. */
  boolean usable() {
    return ready && !goingAway && channel.isActive();
  }

  /** Whether the connection has room for one more stream now. */
  boolean hasRoom() {
    return waiting.isEmpty() && handler.connection().local().canOpenStream();
  }

  int activeStreams() {
    return handler.connection().numActiveStreams() + waiting.size();
  }

  /** The target's limit on concurrent streams (unlimited until its SETTINGS say otherwise). */
  int maxStreams() {
    return handler.connection().local().maxActiveStreams();
  }

  /** Opens a stream for {@code ex} now, or once the target allows one more. */
  void open(RelayExchange ex) {
    if (!waiting.isEmpty() || !handler.connection().local().canOpenStream()) {
      waiting.add(ex);
      return;
    }
    start(ex);
  }

  private void start(RelayExchange ex) {
    long limit = handler.encoder().configuration().headersConfiguration().maxHeaderListSize();
    if (headerListSize(ex.requestHeaders()) > limit) {
      // The encoder would refuse the HEADERS frame and reset a stream the target never heard of.
      ex.tooLargeForTarget(limit);
      return;
    }
    int id = handler.connection().local().incrementAndGetNextStreamId();
    if (id < 0) {
      waiting.addFirst(ex);
      goAway(); // stream ids are spent: the pool places the exchange on another connection
      return;
    }
    handler.encoder().writeHeaders(ctx, id, ex.requestHeaders(), 0, ex.requestEndsWithHead(), ctx.voidPromise());
    Http2Stream stream = handler.connection().stream(id);
    if (stream == null) {
      ex.targetConnectionLost(); // the encoder refused it (the connection is closing)
      return;
    }
    stream.setProperty(key, ex);
    ex.targetStreamOpened(this, stream);
    flush();
  }

  /** The size of a header list as SETTINGS_MAX_HEADER_LIST_SIZE counts it (RFC 9113 §6.5.2). */
  static long headerListSize(Http2Headers headers) {
    long size = 0;
    for (Map.Entry<CharSequence, CharSequence> h : headers) {
      size += h.getKey().length() + h.getValue().length() + 32;
    }
    return size;
  }

  private void openWaiting() {
    while (!waiting.isEmpty() && usable() && handler.connection().local().canOpenStream()) {
      RelayExchange ex = waiting.poll();
      if (!ex.finished()) {
        start(ex);
      }
    }
  }

  /** Forgets a waiting exchange (its client went away before it had a stream). */
  void forget(RelayExchange ex) {
    waiting.remove(ex);
  }

  Http2ConnectionEncoder encoder() {
    return handler.encoder();
  }

  ChannelHandlerContext ctx() {
    return ctx;
  }

  /** Writes {@code data} (released) as a DATA frame of {@code stream}, ending the stream when {@code endOfStream}. */
  void writeData(Http2Stream stream, ByteBuf data, boolean endOfStream) {
    DataFrames.write(handler, ctx, stream, data, endOfStream);
  }

  boolean writable(Http2Stream stream) {
    return handler.encoder().flowController().isWritable(stream);
  }

  /** Gives the target's window back {@code bytes} of {@code stream}'s response that the client has taken. */
  void consumed(Http2Stream stream, int bytes) {
    try {
      handler.decoder().flowController().consumeBytes(stream, bytes);
      flush();
    } catch (Http2Exception e) {
      handler.onError(ctx, true, e);
    }
  }

  /** Flushes once the event loop has handled the I/O of this round. */
  void flush() {
    if (!flushPending) {
      flushPending = true;
      channel.eventLoop().execute(flushTask);
    }
  }

  private void flushNow() {
    flushPending = false;
    handler.flush(ctx);
  }

  /** Closes the connection (the forwarder stops). */
  io.netty.channel.ChannelFuture close() {
    return channel.close();
  }

  // Http2FrameListener: the target's frames, to the stream's exchange

  private RelayExchange exchange(int streamId) {
    Http2Stream stream = handler.connection().stream(streamId);
    return stream == null ? null : stream.getProperty(key);
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext c, int streamId, Http2Headers headers, int padding,
      boolean endOfStream) {
    RelayExchange ex = exchange(streamId);
    if (ex != null) {
      ex.targetHeaders(headers, endOfStream);
    }
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext c, int streamId, Http2Headers headers, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endOfStream) {
    onHeadersRead(c, streamId, headers, padding, endOfStream);
  }

  @Override
  public int onDataRead(ChannelHandlerContext c, int streamId, ByteBuf data, int padding, boolean endOfStream) {
    RelayExchange ex = exchange(streamId);
    if (ex == null) {
      return data.readableBytes() + padding;
    }
    return ex.targetData(data, padding, endOfStream);
  }

  @Override
  public void onRstStreamRead(ChannelHandlerContext c, int streamId, long errorCode) {
    if (errorCode == Http2Error.REFUSED_STREAM.code()) {
      RelayExchange ex = exchange(streamId);
      if (ex != null) {
        ex.targetRefused(); // not processed: its close sends it again
      }
    }
  }

  @Override
  public void onSettingsRead(ChannelHandlerContext c, Http2Settings settings) {
    if (!ready) {
      ready = true;
      owner.ready(this);
    } else {
      openWaiting(); // the limit on concurrent streams may have risen
    }
  }
}
