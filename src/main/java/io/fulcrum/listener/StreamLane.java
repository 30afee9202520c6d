package io.fulcrum.listener;

import io.fulcrum.forward.DataFrames;
import io.fulcrum.forward.HeadersFrames;
import io.fulcrum.forward.LaneExchange;
import io.fulcrum.forward.StreamExchange;
import io.fulcrum.listener.HttpListeners.Binding;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.Http2Connection;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2Stream;
import io.vertx.core.http.impl.FulcrumStreams;
import io.vertx.core.http.impl.Http2ServerConnection;
import io.vertx.core.net.SocketAddress;
import java.util.ArrayDeque;

/**
 * The direct path's place in an HTTP/2 client connection: a decorator of the frame listener that
 * Vert.x's HTTP/2 connection gave Netty's decoder. Each new stream's HEADERS frame is offered to
 * {@link DirectRequests#directStream}, which forwards the common case itself: a forward to an
 * HTTP/1.1 target group as a {@link StreamExchange}, to an HTTP2 or GRPC target group as
 * a {@link io.fulcrum.forward.RelayExchange}; the stream's later frames then go to that exchange.
 * Every other stream, and every frame that is not about a stream of the lane's, goes on to Vert.x
 * unchanged. Netty's codec keeps doing for every stream what it did: flow control, HPACK, the limit
 * on concurrent streams, the RST_STREAM flood guard, GOAWAY and graceful shutdown (which waits for
 * the lane's streams as for Vert.x's).
 *
 * <p>Touched only on the connection's event loop.
 */
final class StreamLane extends Http2FrameListenerDecorator implements LaneExchange.Client {

  /** The name of the lane's handler, after Vert.x's HTTP/2 handler in the pipeline (it sees writability). */
  static final String NAME = "fulcrum-h2-direct";

  private final DirectRequests requests;
  private final Binding binding;
  private final ClientConnection client;
  private final SocketAddress remote;
  private final Http2ConnectionHandler h2;
  private final ChannelHandlerContext ctx;
  private final Http2Connection.PropertyKey key;
  private final HeadersFrames headersFrames;
  /** Vert.x's connection, and the stand-in its bookkeeping sees for the lane's streams ({@link FulcrumStreams}). */
  private final Http2ServerConnection vertx;
  private final Object standIn;
  /** The highest client stream seen: a HEADERS frame for a lower one is not a new request. */
  private int lastStream;
  /** Exchanges whose stream could not take more of the response. */
  private final ArrayDeque<LaneExchange> blocked = new ArrayDeque<>();
  private final Runnable flushTask = this::flushNow;
  private boolean flushPending;

  private StreamLane(DirectRequests requests, Binding binding, ClientConnection client, SocketAddress remote,
      Http2ServerConnection vertx) {
    super(((Http2ConnectionHandler) vertx.channelHandlerContext().handler()).decoder().frameListener());
    ChannelHandlerContext ctx = vertx.channelHandlerContext();
    this.vertx = vertx;
    this.standIn = FulcrumStreams.standIn(vertx);
    this.requests = requests;
    this.binding = binding;
    this.client = client;
    this.remote = remote;
    this.ctx = ctx;
    this.h2 = (Http2ConnectionHandler) ctx.handler();
    this.key = h2.connection().newKey();
    this.headersFrames = new HeadersFrames(h2, ctx);
    this.lastStream = h2.connection().remote().lastStreamCreated();
  }

  /**
   * Puts a lane in front of the frame listener of Vert.x's HTTP/2 connection {@code vertx} (called
   * once its SETTINGS are read, when Vert.x has set its listener).
   */
  static void install(DirectRequests requests, Binding binding, ClientConnection client, SocketAddress remote,
      Http2ServerConnection vertx) {
    StreamLane lane = new StreamLane(requests, binding, client, remote, vertx);
    ChannelHandlerContext ctx = lane.ctx;
    FlushIdleHandler.replace(ctx.pipeline()); // every frame the connection writes passes it
    lane.h2.decoder().frameListener(lane);
    lane.h2.connection().addListener(new Http2ConnectionAdapter() {
      @Override
      public void onStreamClosed(Http2Stream stream) {
        LaneExchange ex = stream.removeProperty(lane.key);
        if (ex != null) {
          ex.clientStreamClosed();
        }
      }
    });
    ctx.pipeline().addAfter(ctx.name(), NAME, new ChannelInboundHandlerAdapter() {
      @Override
      public void channelWritabilityChanged(ChannelHandlerContext c) {
        lane.unblock();
        c.fireChannelWritabilityChanged();
      }
    });
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext c, int streamId, Http2Headers headers, int padding,
      boolean endOfStream) throws Http2Exception {
    if (!headers(streamId, headers, endOfStream)) {
      listener.onHeadersRead(c, streamId, headers, padding, endOfStream);
    }
  }

  @Override
  public void onHeadersRead(ChannelHandlerContext c, int streamId, Http2Headers headers, int streamDependency,
      short weight, boolean exclusive, int padding, boolean endOfStream) throws Http2Exception {
    if (!headers(streamId, headers, endOfStream)) {
      listener.onHeadersRead(c, streamId, headers, streamDependency, weight, exclusive, padding, endOfStream);
    }
  }

  /** Whether the lane took the HEADERS frame: a new stream it forwards, or the trailers of one of its own. */
  private boolean headers(int streamId, Http2Headers headers, boolean endOfStream) {
    Http2Stream stream = h2.connection().stream(streamId);
    if (stream == null) {
      return false;
    }
    LaneExchange own = stream.getProperty(key);
    if (own != null) {
      own.fromClientTrailers(headers);
      return true;
    }
    if (streamId <= lastStream) {
      return false; // a stream Vert.x has (trailers, or a second HEADERS frame)
    }
    lastStream = streamId;
    LaneExchange ex = requests.directStream(binding, this, stream, headers, endOfStream, client, remote);
    if (ex == null) {
      return false;
    }
    if (stream.state() != Http2Stream.State.CLOSED) {
      stream.setProperty(key, ex);
      FulcrumStreams.claim(vertx, standIn, stream);
    }
    return true;
  }

  @Override
  public int onDataRead(ChannelHandlerContext c, int streamId, ByteBuf data, int padding, boolean endOfStream)
      throws Http2Exception {
    Http2Stream stream = h2.connection().stream(streamId);
    LaneExchange ex = stream == null ? null : stream.getProperty(key);
    if (ex == null) {
      return listener.onDataRead(c, streamId, data, padding, endOfStream);
    }
    return ex.fromClient(data, padding, endOfStream);
  }

  @Override
  public void onWindowUpdateRead(ChannelHandlerContext c, int streamId, int windowSizeIncrement)
      throws Http2Exception {
    listener.onWindowUpdateRead(c, streamId, windowSizeIncrement);
    unblock();
  }

  @Override
  public void onSettingsRead(ChannelHandlerContext c, Http2Settings settings) throws Http2Exception {
    listener.onSettingsRead(c, settings);
    headersFrames.settingsRead(settings);
    unblock(); // the initial window may have grown
  }

  /** Lets blocked exchanges whose stream can take more read their target again. */
  private void unblock() {
    for (int n = blocked.size(); n > 0; n--) {
      LaneExchange ex = blocked.poll();
      if (ex.finished()) {
        continue;
      }
      if (h2.encoder().flowController().isWritable(ex.stream())) {
        ex.clientWritable();
      } else {
        blocked.add(ex);
      }
    }
  }

  // LaneExchange.Client

  @Override
  public ChannelHandlerContext ctx() {
    return ctx;
  }

  @Override
  public Http2ConnectionEncoder encoder() {
    return h2.encoder();
  }

  @Override
  public HeadersFrames headersFrames() {
    return headersFrames;
  }

  /**
   * Flushes once the event loop has handled the I/O of this round: the responses that several
   * target connections brought in the same round leave in one write.
   */
  @Override
  public void flush() {
    if (!flushPending) {
      flushPending = true;
      ctx.executor().execute(flushTask);
    }
  }

  private void flushNow() {
    flushPending = false;
    h2.flush(ctx);
  }

  @Override
  public void writeData(Http2Stream stream, ByteBuf data, boolean endOfStream) {
    DataFrames.write(h2, ctx, stream, data, endOfStream);
  }

  @Override
  public boolean appendData(ByteBuf frames, Http2Stream stream, ByteBuf data, boolean endOfStream) {
    return DataFrames.append(h2, ctx, frames, stream, data, endOfStream);
  }

  @Override
  public void writeFrames(ByteBuf frames, Http2Stream stream, boolean endOfStream) {
    DataFrames.writeFrames(h2, ctx, stream, frames, endOfStream);
  }

  @Override
  public void consumed(Http2Stream stream, int bytes) throws Http2Exception {
    h2.decoder().flowController().consumeBytes(stream, bytes);
  }

  @Override
  public void blocked(LaneExchange ex) {
    blocked.add(ex);
  }

  @Override
  public void exchangeDone(LaneExchange ex) {
    // The stream keeps its exchange until it closes: DATA frames still coming are consumed and dropped there.
    if (client != null) {
      client.requestEnded();
    }
  }
}
