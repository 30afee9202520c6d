package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2ConnectionEncoder;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.vertx.core.MultiMap;
import java.util.Map;

/**
 * One HTTP/2 client stream on the direct path, forwarded to an HTTP/1.1 target: the request head
 * (made from the stream's HEADERS frame, headers rewritten by {@link ForwardHeaders}) and its DATA
 * frames go to a pooled {@link TargetConnection}; the target's response head, body and trailers
 * are written to the stream as they arrive ({@link HeadersFrames}, {@link DataFrames}), without
 * Vert.x's stream, request and response objects; a body of up to {@value DataFrames#COPY_LIMIT}
 * bytes goes in one buffer and one write with its head.
 *
 * <p>Flow control both ways: request bytes are returned to the client's window only once the
 * target connection took them (and while it is writable), so a slow target slows the client; the
 * target is not read while the stream's send window or the client socket is full. Endings as
 * {@link TargetExchange} has them; after the response head the stream is reset (INTERNAL_ERROR),
 * and a response that ends before the request body has all come is followed by RST_STREAM(NO_ERROR)
 * (RFC 9113 §8.1). Touched only on the event loop that owns both connections.
 */
public final class StreamExchange extends TargetExchange implements LaneExchange {

  private final LaneExchange.Client client;
  private final Http2Stream stream;
  private final HttpRequest head;
  /** The headers the load balancer sets, written after the request's own. */
  private final ForwardHeaders.Values forwarded;
  /** Whether the client sends a body (the HEADERS frame did not end the stream). */
  private final boolean hasBody;
  /** Whether the body goes to the target chunked (it has no Content-Length). */
  private final boolean chunked;
  /** Request bytes read but not yet given back to the client's flow-control window. */
  private int held;
  private boolean requestReceived;
  private boolean headWritten;
  private long bodyReceived;
  private long bodySent;
  /**
   * The HEADERS frame, with room for a small body's DATA frame behind it, until that body is in:
   * written with it, or at the end of the target's read when the body is not all there yet.
   */
  private ByteBuf heldHead;

  StreamExchange(LaneExchange.Client client, Http2Stream stream, HttpRequest head, ForwardHeaders.Values forwarded,
      boolean hasBody, Upstream target, boolean tls, ChannelPool pool, ExchangeListener listener,
      HttpForwarder.ResponseHook hook) {
    super(target, tls, pool, listener, hook);
    this.client = client;
    this.stream = stream;
    this.head = head;
    this.forwarded = forwarded;
    this.hasBody = hasBody;
    this.chunked = hasBody && !head.headers().contains(HttpHeaderNames.CONTENT_LENGTH);
    this.requestReceived = !hasBody;
  }

  @Override
  public Http2Stream stream() {
    return stream;
  }

  /** Takes an idle connection to the target, or opens one, and sends the request head. */
  void start() {
    boolean headRequest = head.method() == HttpMethod.HEAD;
    if (hasBody) {
      open(headRequest, head);
    } else {
      open(headRequest, head, LastHttpContent.EMPTY_LAST_CONTENT);
    }
    if (connection != null) {
      connection.channel.flush();
    }
  }

  @Override
  void send(Object part) {
    sendBytes(part, forwarded, chunked);
  }

  @Override
  void connected(TargetConnection c) {
    if (c.channel.isWritable()) {
      giveBack();
    }
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
    if (requestReceived) {
      return bytes; // the decoder lets nothing follow the end of the stream; this is a guard
    }
    requestReceived = endOfStream;
    if (over) {
      return bytes; // the exchange ended first: what is left of the body is dropped
    }
    Object part;
    if (endOfStream) {
      part = data.isReadable() ? new DefaultLastHttpContent(data.retain()) : LastHttpContent.EMPTY_LAST_CONTENT;
    } else if (data.isReadable()) {
      part = new DefaultHttpContent(data.retain());
    } else {
      return bytes;
    }
    if (waiting != null) {
      waiting.add(part);
      held += bytes;
      return 0;
    }
    send(part);
    connection.channel.flush();
    if (connection.channel.isWritable()) {
      return bytes;
    }
    held += bytes; // the target reads the body slower than the client sends it
    return 0;
  }

  @Override
  public void fromClientTrailers(Http2Headers trailers) {
    if (requestReceived) {
      return;
    }
    requestReceived = true;
    if (over) {
      return;
    }
    LastHttpContent last;
    if (chunked && !trailers.isEmpty()) {
      last = new DefaultLastHttpContent();
      HttpHeaders out = last.trailingHeaders();
      for (Map.Entry<CharSequence, CharSequence> t : trailers) {
        if (!Http2Headers.PseudoHeaderName.hasPseudoHeaderFormat(t.getKey())) {
          out.add(t.getKey(), t.getValue());
        }
      }
    } else {
      last = LastHttpContent.EMPTY_LAST_CONTENT;
    }
    if (waiting != null) {
      waiting.add(last);
    } else {
      send(last);
      connection.channel.flush();
    }
  }

  /** Gives the client's window back the bytes the target connection has taken. */
  private void giveBack() {
    if (held > 0) {
      int bytes = held;
      held = 0;
      try {
        client.consumed(stream, bytes);
        client.flush();
      } catch (Http2Exception e) {
        responseFailed();
      }
    }
  }

  @Override
  public void targetWritabilityChanged(boolean writable) {
    if (writable && !over) {
      giveBack();
    }
  }

  /** The stream can take more of the response: the target is read again. */
  @Override
  public void clientWritable() {
    if (connection != null && !over) {
      connection.channel.config().setAutoRead(true);
    }
  }

  @Override
  public void clientStreamClosed() {
    if (!over) {
      clientClosed();
    }
  }

  @Override
  boolean headWritten() {
    return headWritten;
  }

  @Override
  boolean takesRawHead() {
    return true;
  }

  @Override
  void writeHead(TargetResponse response, MultiMap headers) {
    headWritten = true;
    int body = response.smallBody(DataFrames.COPY_LIMIT);
    int bodyRoom = body > 0 ? Http2CodecUtil.FRAME_HEADER_LENGTH + body : 0;
    heldHead = client.headersFrames().writeHead(stream, response, headers, bodyRoom);
    if (!stream.isHeadersSent()) {
      // Netty's encoder refused the head (over its header list limit) and reset the
      // stream: nothing more may be written on it.
      responseFailed();
    }
  }

  /** Writes the held HEADERS frame and the DATA behind it (not flushed). */
  private void writeHeld() {
    ByteBuf frames = heldHead;
    if (frames != null) {
      heldHead = null;
      client.writeFrames(frames, stream, false);
    }
  }

  @Override
  void writeBody(TargetConnection c, HttpContent part) {
    bodySent += part.content().readableBytes();
    if (heldHead == null || !client.appendData(heldHead, stream, part.content(), false)) {
      writeHeld();
      client.writeData(stream, part.content(), false);
    }
    if (!client.encoder().flowController().isWritable(stream)) {
      c.channel.config().setAutoRead(false); // the client reads slower than the target sends
      client.blocked(this);
    }
  }

  @Override
  void writeLast(LastHttpContent last) {
    bodySent += last.content().readableBytes();
    Http2ConnectionEncoder encoder = client.encoder();
    ChannelHandlerContext ctx = client.ctx();
    HttpHeaders trailers = last.trailingHeaders();
    if (trailers.isEmpty() && heldHead != null && client.appendData(heldHead, stream, last.content(), true)) {
      ByteBuf whole = heldHead;
      heldHead = null;
      client.writeFrames(whole, stream, true);
    } else if (trailers.isEmpty()) {
      writeHeld();
      client.writeData(stream, last.content(), true);
    } else {
      writeHeld();
      if (last.content().isReadable()) {
        client.writeData(stream, last.content(), false);
      } else {
        last.release();
      }
      Http2Headers h = new DefaultHttp2Headers(false, trailers.size());
      H2Names.copy(trailers, h);
      encoder.writeHeaders(ctx, stream.id(), Http1Wire.trailing(h), 0, true, ctx.newPromise()); // not void: see HeadersFrames
    }
    finish(true);
    endStream();
  }

  @Override
  void answer(ElbError error) {
    client.writePage(stream, error, listenerHeaders());
    headWritten = true;
    endStream();
  }

  /**
   * The response is written to its end (the exchange is {@code over}, so the stream's closing, which
   * the flush may bring, is no news to it): a client still sending a body is told to stop.
   */
  private void endStream() {
    if (!requestReceived) {
      client.reset(stream.id(), Http2Error.NO_ERROR);
    }
    client.flush();
  }

  @Override
  void cutClient() {
    writeHeld(); // the head goes as before, then the reset
    client.reset(stream.id(), Http2Error.INTERNAL_ERROR);
    client.flush();
  }

  @Override
  String describe() {
    return head.method() + " " + head.uri();
  }

  @Override
  public void readComplete() {
    writeHeld();
    client.flush();
  }

  @Override
  void done() {
    if (heldHead != null) { // the client's stream went away
      heldHead.release();
      heldHead = null;
    }
    client.exchangeDone(this);
  }
}
