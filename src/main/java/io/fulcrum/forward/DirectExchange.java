package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.MultiMap;

/**
 * One request on the direct path: the client's parsed HTTP/1.1 request (Netty objects, headers
 * already rewritten by {@link ForwardHeaders}) written to a pooled {@link TargetConnection}, and
 * the target's response head and body written back to the client's channel as they arrive,
 * without a copy. Endings as {@link TargetExchange} has them; an ELB status closes the client
 * connection when the request body had not all come. Touched only on the event loop that owns
 * both channels.
 */
public final class DirectExchange extends TargetExchange {

  /** How much of a request body is held while its target connection opens. */
  private static final int MAX_WAITING_BYTES = 64 * 1024;

  /** The client connection's side of an exchange. */
  public interface Client {
    /**
     * The context the exchange writes the response through (toward the HTTP encoder), flushes
     * and closes with.
     */
    ChannelHandlerContext out();

    /** Something was written to the client (its idle timer restarts). */
    void wrote();

    /** The exchange is over: the connection can take its next request. */
    void exchangeDone(DirectExchange exchange);
  }

  private final ChannelHandlerContext client;
  private final Client owner;
  private final HttpRequest request;
  /** Body bytes in {@link #waiting}; past {@link #MAX_WAITING_BYTES} the client is not read. */
  private int waitingBytes;
  private boolean requestReceived;
  private boolean headWritten;

  DirectExchange(HttpRequest request, Upstream target, boolean tls, ChannelPool pool, ExchangeListener listener,
      HttpForwarder.ResponseHook hook, Client owner) {
    super(target, tls, pool, listener, hook);
    this.client = owner.out();
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
    super.send(part);
    if (!(part instanceof LastHttpContent) && !connection.channel.isWritable()) {
      // The target reads the body slower than the client sends it: stop reading the client.
      client.channel().config().setAutoRead(false);
    }
  }

  /** A part of the request body from the client. */
  public void fromClient(HttpContent part) {
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
    client.flush();
  }

  @Override
  boolean headWritten() {
    return headWritten;
  }

  @Override
  void writeHead(HttpResponse response, MultiMap headers) {
    int status = response.status().code();
    if (status != 204 && status != 304 && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    response.setProtocolVersion(HttpVersion.HTTP_1_1);
    headWritten = true;
    client.write(response, client.voidPromise());
    owner.wrote();
  }

  @Override
  void writeBody(TargetConnection c, HttpContent part) {
    client.write(part, client.voidPromise());
    owner.wrote();
    if (!client.channel().isWritable()) {
      c.channel.config().setAutoRead(false); // the client reads slower than the target sends
    }
  }

  @Override
  void writeLast(LastHttpContent last) {
    client.writeAndFlush(last, client.voidPromise());
    owner.wrote();
    finish(true);
  }

  @Override
  void answer(ElbError error) {
    // A body still on its way would have to be read and thrown away: close instead.
    boolean close = !requestReceived;
    var sent = client.writeAndFlush(ElbResponses.full(error, close));
    if (close) {
      sent.addListener(ChannelFutureListener.CLOSE);
    }
  }

  @Override
  void cutClient() {
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
    owner.exchangeDone(this);
  }
}
