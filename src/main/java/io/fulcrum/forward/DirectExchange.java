package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.MultiMap;

/**
 * One request on the direct path, written as bytes both ways ({@link Http1Wire}): the client's
 * parsed HTTP/1.1 request (Netty objects, headers already rewritten by {@link ForwardHeaders}) to a
 * pooled {@link TargetConnection}, and the target's response back to the client's channel as it
 * arrives: the head from the target's own bytes less the hop-by-hop headers
 * ({@link TargetResponse#writeTo}; through a header map when stickiness adds cookies), the body
 * without a copy, in the chunked coding when the target's response has no Content-Length; a body
 * of up to {@value #BODY_BEHIND_HEAD} bytes is copied behind its head, and both leave in one write. Both
 * are written below the connections' HTTP encoders. Endings as {@link TargetExchange} has them; an
 * ELB status closes the client connection when the request body had not all come. Touched only on
 * the event loop that owns both channels.
 */
public final class DirectExchange extends TargetExchange {

  /** How much of a request body is held while its target connection opens. */
  private static final int MAX_WAITING_BYTES = 64 * 1024;
  /** A response body up to this size (by its Content-Length) is copied behind its head: one write for both. */
  static final int BODY_BEHIND_HEAD = 1024;

  /** The client connection's side of an exchange. */
  public interface Client {
    /**
     * The context the exchange writes ELB responses through (toward the HTTP encoder), flushes
     * and closes with.
     */
    ChannelHandlerContext out();

    /**
     * The context below the HTTP encoder: what the exchange writes there (the target's response,
     * framed already) goes to the client as it is.
     */
    ChannelHandlerContext wire();

    /** Something was written to the client (its idle timer restarts). */
    void wrote();

    /** The exchange is over: the connection can take its next request. */
    void exchangeDone(DirectExchange exchange);

    /**
     * Whether the connection closes after this response ({@code client_keep_alive.seconds} is
     * over): its head then says {@code Connection: close}.
     */
    default boolean lastResponse() {
      return false;
    }
  }

  private final ChannelHandlerContext client;
  /** Where the response goes as bytes: below the client connection's HTTP encoder. */
  private final ChannelHandlerContext wire;
  private final Client owner;
  private final HttpRequest request;
  /** Body bytes in {@link #waiting}; past {@link #MAX_WAITING_BYTES} the client is not read. */
  private int waitingBytes;
  private boolean requestReceived;
  private boolean headWritten;
  /** The response goes to the client in the chunked coding (the target's had no Content-Length). */
  private boolean chunked;
  /**
   * The response head, with room for a small body behind it, until that body is in: written with
   * the body's end, or at the end of the target's read when the body is not all there yet.
   */
  private ByteBuf held;
  /** The request's body goes to the target in the chunked coding. */
  private final boolean chunkedRequest;
  /** The headers the load balancer sets, written after the request's own. */
  private final ForwardHeaders.Values forwarded;

  DirectExchange(HttpRequest request, ForwardHeaders.Values forwarded, boolean chunkedRequest, Upstream target,
      boolean tls, ChannelPool pool, ExchangeListener listener, HttpForwarder.ResponseHook hook, Client owner) {
    super(target, tls, pool, listener, hook);
    this.forwarded = forwarded;
    this.chunkedRequest = chunkedRequest;
    this.client = owner.out();
    this.wire = owner.wire();
    this.owner = owner;
    this.request = request;
  }

  /** Takes an idle connection to the target, or opens one, and sends the request head. */
  void start() {
    open(false, request);
  }

  @Override
  void connected(TargetConnection c) {
    if (!requestReceived && c.channel.isWritable()) {
      client.channel().config().setAutoRead(true); // if a long wait stopped it
    }
  }

  @Override
  void send(Object part) {
    sendBytes(part, forwarded, chunkedRequest);
    if (!requestSent && !connection.channel.isWritable()) {
      // The target reads the body slower than the client sends it: stop reading the client.
      client.channel().config().setAutoRead(false);
    }
  }

  /** A part of the request body from the client. */
  public void fromClient(HttpContent part) {
    if (part.decoderResult().isFailure()) {
      // The body broke off malformed (a chunk size that is not one, a chunk that does not end where it
      // says): its end must not go to the target, which would take what came for the whole request.
      // The target connection is dropped; the client gets 400 and its connection closes (the request
      // was not read to its end), or, after the response head, is cut.
      part.release();
      cut(ElbError.BAD_REQUEST);
      return;
    }
    if (part instanceof LastHttpContent) {
      requestReceived = true;
    }
    if (over) {
      ReferenceCountUtil.release(part);
    } else if (waiting != null) {
      waiting.add(part);
      waitingBytes += part.content().readableBytes();
      if (waitingBytes > MAX_WAITING_BYTES) {
        client.channel().config().setAutoRead(false); // until the connection is there to take it
      }
    } else {
      send(part);
    }
  }

  /** Whether the whole request has come from the client. */
  public boolean requestReceived() {
    return requestReceived;
  }

  /** The client's reads of this round are over: what they gave goes out to the target. */
  public void flushTarget() {
    if (connection != null && !over) {
      connection.channel.flush();
    }
  }

  @Override
  public void readComplete() {
    writeHeld();
    client.flush();
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
    chunked = !response.bodyless()
        && (headers == null ? response.contentLength() < 0 : !headers.contains(HttpHeaderNames.CONTENT_LENGTH));
    int room = chunked ? 0 : response.smallBody(BODY_BEHIND_HEAD); // the body copied behind the head
    boolean close = owner.lastResponse();
    ByteBuf head;
    if (headers == null) {
      head = wire.alloc().buffer(response.size() + room + (close ? TargetResponse.CONNECTION_CLOSE_LINE.length : 0));
      response.writeTo(head, chunked, close);
    } else {
      if (chunked) {
        headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
      }
      if (close) {
        headers.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
      }
      head = wire.alloc().buffer(response.size() + 512 + room);
      response.writeStatusLine(head);
      Http1Wire.writeFields(head, (HttpHeaders) headers);
      head.writeShort(Http1Wire.CRLF);
    }
    headWritten = true;
    if (room > 0) {
      held = head;
    } else {
      wire.write(head, wire.voidPromise());
    }
    owner.wrote();
  }


  @Override
  void writeBody(TargetConnection c, HttpContent part) {
    if (held != null && part.content().readableBytes() <= held.writableBytes()) {
      held.writeBytes(part.content());
      part.release();
      return;
    }
    writeHeld();
    Http1Wire.writeBody(wire, part.content(), chunked);
    owner.wrote();
    if (!client.channel().isWritable()) {
      c.channel.config().setAutoRead(false); // the client reads slower than the target sends
    }
  }

  @Override
  void writeLast(LastHttpContent last) {
    if (held != null && last.content().readableBytes() <= held.writableBytes()) {
      held.writeBytes(last.content());
      last.release();
      ByteBuf whole = held;
      held = null;
      wire.writeAndFlush(whole, wire.voidPromise());
    } else {
      writeHeld();
      Http1Wire.writeEnd(wire, last, chunked, true);
    }
    owner.wrote();
    finish(true);
  }

  /** Writes the held head and what of the body is behind it (not flushed). */
  private void writeHeld() {
    ByteBuf h = held;
    if (h != null) {
      held = null;
      wire.write(h, wire.voidPromise());
    }
  }

  @Override
  void answer(ElbError error) {
    // A body still on its way would have to be read and thrown away: close instead.
    boolean close = !requestReceived;
    var sent = client.writeAndFlush(ElbResponses.full(error, close || owner.lastResponse(), listenerHeaders()));
    if (close) {
      sent.addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  void cutClient() {
    writeHeld(); // what had come goes out before the close (unflushed, it would be dropped with the connection)
    client.flush();
    client.close();
  }

  @Override
  String describe() {
    return request.method() + " " + request.uri();
  }

  /** The client channel's writability changed: the target may be read again. */
  public void clientWritabilityChanged(boolean writable) {
    if (writable && connection != null) {
      connection.channel.config().setAutoRead(true);
    }
  }

  @Override
  public void targetWritabilityChanged(boolean writable) {
    if (writable && !requestReceived && !over) {
      client.channel().config().setAutoRead(true);
    }
  }

  @Override
  void done() {
    if (held != null) { // the client went away
      held.release();
      held = null;
    }
    owner.exchangeDone(this);
  }
}
