package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import io.vertx.core.http.impl.headers.Http2HeadersAdaptor;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 client stream on the direct path, relayed to a stream of an HTTP/2 target (HTTP2 and
 * GRPC target groups, in clear or over TLS) over an {@link Http2TargetConnection}: frames go across
 * as they come, the target's response headers and trailers as the very header objects Netty decoded,
 * DATA without a copy, each side's flow-control window given back only once the other side has
 * taken the bytes.
 *
 * <p>Endings as the Vert.x path has them (SPEC §11.3): before the response head, the client gets
 * an ELB status (502 refused or reset, 504 when nothing comes for the idle timeout), a gRPC call
 * as gRPC (HTTP 200, trailers-only, with grpc-status); after it, the client's stream is reset,
 * except that a gRPC call cut by its deadline or a deregistration still ends with a grpc-status in
 * the trailers, and so does one whose target resets or goes silent mid-response. The idle timeout
 * runs while nothing goes either way: request body going out restarts it as the response does. A
 * response that ends before the request has is followed by RST_STREAM(NO_ERROR).
 * Touched only on the event loop that owns both connections.
 */
public final class RelayExchange implements LaneExchange, HttpForwarder.Handle {

  private static final Logger LOG = LoggerFactory.getLogger(RelayExchange.class);
  private static final AsciiString HTTP = AsciiString.cached("http");
  private static final AsciiString GRPC_STATUS = AsciiString.cached("grpc-status");
  private static final AsciiString GRPC_MESSAGE = AsciiString.cached("grpc-message");
  private static final AsciiString APPLICATION_GRPC = AsciiString.cached("application/grpc");
  private static final AsciiString SERVER = AsciiString.cached(ElbResponses.SERVER);
  private static final AsciiString STATUS_200 = AsciiString.cached("200");

  /** A part of the request body (or its trailers) read before the target's stream was open. */
  private record Part(ByteBuf data, Http2Headers trailers, boolean end) {
  }

  private final LaneExchange.Client client;
  private final Http2Stream clientStream;
  private final Http2Headers request;
  private final boolean grpc;
  private final Upstream target;
  private final Http2TargetPool pool;
  private final ExchangeListener listener;
  private final HttpForwarder.ResponseHook hook;
  private final long idleNanos;
  private Http2TargetConnection connection;
  private Http2Stream targetStream;
  private ArrayDeque<Part> pending;
  /** Request bytes read but not yet given back to the client's window. */
  private int held;
  /** Response bytes read but not yet given back to the target's window. */
  private int targetHeld;
  private boolean clientEnded;
  private boolean headWritten;
  private boolean over;
  private boolean finished;
  private boolean clientGone;
  private long lastActivity;
  private long bodyReceived;
  private long bodySent;
  private ScheduledFuture<?> timer;
  private int placements;
  /**
   * What of the body went to the target, kept (retained) until its response head comes, so that a
   * stream the target did not process can go again; null while nothing was sent.
   */
  private ArrayDeque<Part> sent;
  private int sentBytes;
  /** The request may still be sent again: not too large, not replayed yet, no response head yet. */
  private boolean replayable = true;
  /** The target did not process the stream (refused, or above its GOAWAY's last stream id). */
  private boolean unprocessed;

  /** The most of a request kept for sending it again: requests with larger bodies are not replayed. */
  static final int REPLAY_LIMIT = 64 * 1024;

  RelayExchange(LaneExchange.Client client, Http2Stream clientStream, Http2Headers request, boolean endAtHead,
      boolean grpc, Upstream target, Http2TargetPool pool, long idleMillis, ExchangeListener listener,
      HttpForwarder.ResponseHook hook) {
    this.client = client;
    this.clientStream = clientStream;
    this.request = request;
    this.clientEnded = endAtHead;
    this.grpc = grpc;
    this.target = target;
    this.pool = pool;
    this.idleNanos = TimeUnit.MILLISECONDS.toNanos(idleMillis);
    this.listener = listener;
    this.hook = hook;
  }

  /**
   * The request head for an HTTP/2 target: the pseudo-headers, then {@code headers} (prepared by
   * {@link ForwardHeaders}) with Host as :authority and every name in lower case; gRPC keeps
   * {@code te: trailers}, the one TE value HTTP/2 allows.
   */
  public static Http2Headers requestHeaders(CharSequence method, String path, HttpHeaders headers, boolean grpc) {
    // Not headers.size(): Vert.x's map counts its names in a TreeSet.
    Http2Headers out = new DefaultHttp2Headers(false, 16);
    out.method(method).scheme(HTTP).path(path);
    Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> h = it.next();
      if (AsciiString.contentEqualsIgnoreCase(h.getKey(), HttpHeaderNames.HOST)) {
        out.authority(h.getValue());
      } else {
        out.add(H2Names.lowerCase(h.getKey()), h.getValue());
      }
    }
    if (grpc) {
      out.set(HttpHeaderNames.TE, HttpHeaderValues.TRAILERS);
    }
    return out;
  }

  void start() {
    lastActivity = System.nanoTime();
    timer = client.ctx().executor().schedule(this::idleCheck, idleNanos, TimeUnit.NANOSECONDS);
    pool.stream(target, this);
  }

  // The target's side

  Http2Headers requestHeaders() {
    return request;
  }

  /** Whether the request is over with its head (the HEADERS frame ended the client's stream, and nothing waits). */
  boolean requestEndsWithHead() {
    return clientEnded && pending == null;
  }

  /** Counts one more connection lost before this exchange had a stream on it. */
  int placedAgain() {
    return ++placements;
  }

  void onConnection(Http2TargetConnection c) {
    connection = c;
  }

  void targetStreamOpened(Http2TargetConnection c, Http2Stream stream) {
    connection = c;
    targetStream = stream;
    if (pending != null) {
      ChannelHandlerContext ctx = c.ctx();
      for (Part p; (p = pending.poll()) != null; ) {
        keep(p);
        if (p.trailers() != null) {
          c.encoder().writeHeaders(ctx, stream.id(), p.trailers(), 0, true, ctx.voidPromise());
        } else {
          c.writeData(stream, p.data(), p.end());
        }
      }
      pending = null;
    }
    c.flush();
    if (c.writable(stream)) {
      giveBackClient();
    }
  }

  void targetHeaders(Http2Headers headers, boolean end) {
    lastActivity = System.nanoTime();
    if (over) {
      return;
    }
    ChannelHandlerContext ctx = client.ctx();
    if (headWritten) {
      client.encoder().writeHeaders(ctx, clientStream.id(), Http1Wire.trailing(headers), 0, true, ctx.voidPromise());
      complete();
      return;
    }
    CharSequence status = headers.status();
    if (status != null && status.length() == 3 && status.charAt(0) == '1') {
      return; // 100 Continue, 103 Early Hints: the final head follows
    }
    headWritten = true;
    forgetSent(); // the target has processed it: never sent again
    listener.responseHead(status == null ? 0 : AsciiString.of(status).parseInt());
    if (hook != null && hook.changesHead()) {
      hook.beforeHead(new Http2HeadersAdaptor(headers));
    }
    client.encoder().writeHeaders(ctx, clientStream.id(), headers, 0, end, ctx.voidPromise());
    if (end) {
      complete();
    } else {
      client.flush();
    }
  }

  int targetData(ByteBuf data, int padding, boolean end) {
    int bytes = data.readableBytes() + padding;
    lastActivity = System.nanoTime();
    if (over || !headWritten) {
      return bytes;
    }
    bodySent += data.readableBytes();
    client.writeData(clientStream, data.retain(), end);
    if (end) {
      complete();
      return bytes;
    }
    client.flush();
    if (client.encoder().flowController().isWritable(clientStream)) {
      return bytes;
    }
    targetHeld += bytes; // the client reads slower than the target sends
    client.blocked(this);
    return 0;
  }

  void targetWritabilityChanged() {
    if (!over && held > 0 && connection.writable(targetStream)) {
      giveBackClient();
    }
  }

  /** The target's stream closed; if the response had not ended, the target reset it or its connection went. */
  void targetStreamClosed() {
    if (over) {
      return;
    }
    targetStream = null;
    if (unprocessed && !headWritten && replayable) {
      replay();
      return;
    }
    if (headWritten) {
      failedMidResponse(ElbError.TARGET_RESET, "the target reset the stream or closed the connection");
    } else {
      fail(ElbError.TARGET_RESET, new IOException("the target reset the stream or closed the connection"));
    }
  }

  /**
   * Sends the request again, on a stream of a connection the pool chooses (the one that refused it
   * takes no new streams), once: what was sent goes first, then what the client sends meanwhile.
   */
  private void replay() {
    ArrayDeque<Part> again = sent;
    sent = null;
    replayable = false; // once
    unprocessed = false;
    connection = null;
    if (again != null) {
      if (pending != null) {
        again.addAll(pending);
      }
      pending = again;
    }
    LOG.debug("{} {}: the target did not process the stream; sent again", request.method(), request.path());
    pool.stream(target, this);
  }

  /**
   * The request's header list is larger than the target's SETTINGS_MAX_HEADER_LIST_SIZE: it is not
   * sent, and the client gets 400 (a gRPC call RESOURCE_EXHAUSTED, as that target would answer it).
   */
  void tooLargeForTarget(long limit) {
    fail(ElbError.HEADER_TOO_LARGE, new IOException("the request's header list is over the " + limit
        + " bytes the target accepts"));
  }

  /** The connection this exchange waited on went away before it had a stream. */
  void targetConnectionLost() {
    fail(ElbError.TARGET_RESET, new IOException("the connection to the target closed"));
  }

  void connectFailed(Throwable cause) {
    fail(HttpForwarder.classify(cause, true), cause);
  }

  // The client's side

  @Override
  public Http2Stream stream() {
    return clientStream;
  }

  @Override
  public long bodyReceived() {
    return bodyReceived;
  }

  @Override
  public long bodySent() {
    return bodySent;
  }

  @Override
  public int fromClient(ByteBuf data, int padding, boolean endOfStream) {
    int bytes = data.readableBytes() + padding;
    bodyReceived += data.readableBytes();
    lastActivity = System.nanoTime(); // the exchange is idle only while nothing goes either way
    if (clientEnded) {
      return bytes;
    }
    clientEnded = endOfStream;
    if (over || !endOfStream && !data.isReadable()) {
      return bytes;
    }
    if (targetStream == null) {
      if (pending == null) {
        pending = new ArrayDeque<>(4);
      }
      pending.add(new Part(data.retain(), null, endOfStream));
      held += bytes;
      return 0;
    }
    keep(new Part(data, null, endOfStream));
    connection.writeData(targetStream, data.retain(), endOfStream);
    connection.flush();
    if (connection.writable(targetStream)) {
      return bytes;
    }
    held += bytes; // the target reads the body slower than the client sends it
    return 0;
  }

  @Override
  public void fromClientTrailers(Http2Headers given) {
    lastActivity = System.nanoTime();
    if (clientEnded) {
      return;
    }
    Http2Headers trailers = Http1Wire.trailing(given);
    clientEnded = true;
    if (over) {
      return;
    }
    if (targetStream == null) {
      if (pending == null) {
        pending = new ArrayDeque<>(1);
      }
      pending.add(new Part(null, trailers, true));
      return;
    }
    keep(new Part(null, trailers, true));
    ChannelHandlerContext ctx = connection.ctx();
    connection.encoder().writeHeaders(ctx, targetStream.id(), trailers, 0, true, ctx.voidPromise());
    connection.flush();
  }

  /** Keeps a copy of what goes to the target while the stream may still be sent again. */
  private void keep(Part p) {
    if (!replayable) {
      return;
    }
    int bytes = p.data() == null ? 0 : p.data().readableBytes();
    if (sentBytes + bytes > REPLAY_LIMIT) {
      forgetSent();
      return;
    }
    sentBytes += bytes;
    if (sent == null) {
      sent = new ArrayDeque<>(2);
    }
    sent.add(new Part(p.data() == null ? null : p.data().retainedDuplicate(), p.trailers(), p.end()));
  }

  /** The request will not be sent again: what was kept of it goes. */
  private void forgetSent() {
    replayable = false;
    if (sent != null) {
      sent.forEach(p -> ReferenceCountUtil.release(p.data()));
      sent = null;
    }
  }

  /**
   * The target will not process this exchange's stream: RST_STREAM with REFUSED_STREAM, or a
   * GOAWAY whose last stream id is below it (RFC 9113 §8.7). Its close then sends it again.
   */
  void targetRefused() {
    unprocessed = true;
  }

  @Override
  public void clientWritable() {
    if (!over && targetHeld > 0 && targetStream != null) {
      int bytes = targetHeld;
      targetHeld = 0;
      connection.consumed(targetStream, bytes);
    }
  }

  @Override
  public void clientStreamClosed() {
    clientGone = true;
    if (!over) {
      over = true;
      dropTarget();
    }
    finish(false);
  }

  @Override
  public boolean finished() {
    return finished;
  }

  /** Gives the client's window back the request bytes the target has taken. */
  private void giveBackClient() {
    if (held > 0) {
      int bytes = held;
      held = 0;
      try {
        client.consumed(clientStream, bytes);
        client.flush();
      } catch (Http2Exception e) {
        responseFailed();
      }
    }
  }

  // Endings

  /** The target's response ended: so does the exchange. */
  private void complete() {
    over = true;
    cancelTimer();
    if (!clientEnded) {
      // The client is still sending: it may stop (RFC 9113 §8.1), and the target's stream is let go.
      client.reset(clientStream.id(), Http2Error.NO_ERROR);
      dropTarget();
    }
    finish(true);
    client.flush();
  }

  /** The target failed before the response head: the client gets the ELB status. */
  private void fail(ElbError error, Throwable cause) {
    if (over) {
      return;
    }
    over = true;
    cancelTimer();
    if (LOG.isDebugEnabled()) {
      LOG.debug("{} {} -> {}: {}", request.method(), request.path(), error.status(), cause.toString());
    }
    dropTarget();
    if (!clientGone) {
      answer(error);
    }
    listener.failed(error);
    finish(false);
  }

  /**
   * The target failed after the response head went out: too late for a status, so the client's
   * stream is reset; but a gRPC call still ends with one, in its trailers (UNAVAILABLE when the
   * target reset or left, DEADLINE_EXCEEDED when it went silent for the idle timeout), as one cut by
   * its deadline does: a reset would reach the client as INTERNAL, which it must not retry.
   */
  private void failedMidResponse(ElbError error, String why) {
    if (grpc) {
      fail(error, new IOException(why));
    } else {
      responseFailed();
    }
  }

  /** Too late for a status: the client's stream is reset. */
  private void responseFailed() {
    if (!over) {
      resetBoth(null);
    }
  }

  /** Lets the target go and resets the client's stream; {@code error}, if any, is what the listener is told. */
  private void resetBoth(ElbError error) {
    over = true;
    cancelTimer();
    dropTarget();
    if (!clientGone) {
      resetClient(Http2Error.INTERNAL_ERROR);
    }
    if (error != null) {
      listener.failed(error);
    }
    finish(false);
  }

  @Override
  public void cut(ElbError error) {
    if (finished) {
      return;
    }
    if (!headWritten || grpc) {
      // A gRPC call whose head went out still ends with a status, in its trailers.
      fail(error, new IllegalStateException(error.reason()));
      return;
    }
    resetBoth(error);
  }

  /** Answers the client with {@code error}: an ELB page, or for gRPC a grpc-status. */
  private void answer(ElbError error) {
    ChannelHandlerContext ctx = client.ctx();
    int id = clientStream.id();
    if (grpc) {
      Http2Headers h = new DefaultHttp2Headers(false, 5);
      if (!headWritten) {
        h.status(STATUS_200).add(HttpHeaderNames.CONTENT_TYPE, APPLICATION_GRPC);
      }
      h.add(GRPC_STATUS, Integer.toString(error.grpcStatus())).add(GRPC_MESSAGE, ElbResponses.grpcMessage(error));
      if (!headWritten) {
        h.add(HttpHeaderNames.SERVER, SERVER);
      }
      client.encoder().writeHeaders(ctx, id, h, 0, true, ctx.voidPromise());
    } else if (headWritten) {
      resetClient(Http2Error.INTERNAL_ERROR);
      return;
    } else {
      client.writePage(clientStream, error, ListenerHeaders.of(hook));
    }
    headWritten = true;
    if (!clientEnded) {
      client.reset(id, Http2Error.NO_ERROR);
    }
    client.flush();
  }

  private void resetClient(Http2Error code) {
    client.reset(clientStream.id(), code);
    client.flush();
  }

  /** Lets the target's side go: its stream is reset, or the exchange leaves the queue it waits in. */
  private void dropTarget() {
    forgetSent();
    if (pending != null) {
      pending.forEach(p -> ReferenceCountUtil.release(p.data()));
      pending = null;
    }
    Http2Stream s = targetStream;
    targetStream = null;
    if (s != null) {
      if (s.state() != Http2Stream.State.CLOSED) {
        ChannelHandlerContext ctx = connection.ctx();
        connection.encoder().writeRstStream(ctx, s.id(), Http2Error.CANCEL.code(), ctx.voidPromise());
        connection.flush();
      }
    } else if (connection != null) {
      connection.forget(this);
    } else {
      pool.forget(target, this);
    }
  }

  private void idleCheck() {
    timer = null;
    if (over) {
      return;
    }
    long idle = System.nanoTime() - lastActivity;
    if (idle < idleNanos) {
      timer = client.ctx().executor().schedule(this::idleCheck, idleNanos - idle, TimeUnit.NANOSECONDS);
    } else if (headWritten) {
      failedMidResponse(ElbError.TARGET_TIMEOUT, "the target sent nothing for the idle timeout, mid-response");
    } else {
      fail(ElbError.TARGET_TIMEOUT, new IOException("no response within the idle timeout"));
    }
  }

  private void cancelTimer() {
    if (timer != null) {
      timer.cancel(false);
      timer = null;
    }
  }

  private void finish(boolean complete) {
    if (!finished) {
      finished = true;
      cancelTimer();
      listener.finished(complete);
      client.exchangeDone(this);
    }
  }
}
