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
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.MultiMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request on the direct path: the client's parsed HTTP/1.1 request (Netty objects, headers
 * already rewritten by {@link ForwardHeaders}) written to a pooled {@link TargetConnection}, and
 * the target's response head and body written back to the client's channel as they arrive,
 * without a copy. Touched only on the event loop that owns both channels.
 *
 * <p>Endings follow {@link HttpForwarder}'s (SPEC §11.3): before the response head the client
 * gets an ELB status (502, 504); after it, its connection is closed. A target connection goes
 * back to its pool only after a clean exchange.
 */
public final class DirectExchange implements HttpForwarder.Handle, TargetConnection.Exchange {

  private static final Logger LOG = LoggerFactory.getLogger(DirectExchange.class);
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
  private final HttpRequest request;
  private final Upstream target;
  private final ChannelPool pool;
  private final ExchangeListener listener;
  private final HttpForwarder.ResponseHook hook;
  private final Client owner;
  private TargetConnection connection;
  /** Parts of the request that came before the target connection was open. */
  private List<Object> waiting;
  /** Body bytes in {@link #waiting}; past {@link #MAX_WAITING_BYTES} the client is not read. */
  private int waitingBytes;
  private boolean requestReceived;
  private boolean requestSent;
  private boolean headWritten;
  /** The target's response is a 1xx one, read and dropped (the real one follows). */
  private boolean informational;
  private boolean keepAlive;
  private String keepAliveHeader;
  /** No more of the target's response goes to the client. */
  private boolean over;
  private boolean finished;
  private boolean clientGone;

  DirectExchange(HttpRequest request, Upstream target, ChannelPool pool,
      ExchangeListener listener, HttpForwarder.ResponseHook hook, Client owner) {
    this.client = owner.out();
    this.owner = owner;
    this.request = request;
    this.target = target;
    this.pool = pool;
    this.listener = listener;
    this.hook = hook;
  }

  /** Takes an idle connection to the target, or opens one, and sends the request head. */
  void start() {
    TargetConnection idle = pool.idle(target);
    if (idle != null) {
      attach(idle);
      send(request);
      return;
    }
    waiting = new ArrayList<>(2);
    waiting.add(request);
    pool.connect(target, false).onComplete(ar -> {
      if (ar.failed()) {
        fail(HttpForwarder.classify(ar.cause(), true), ar.cause());
        return;
      }
      TargetConnection c = ar.result();
      if (over) {
        pool.release(target, c, null); // unused: the client went away meanwhile
        return;
      }
      attach(c);
      List<Object> parts = waiting;
      waiting = null;
      for (Object part : parts) {
        send(part);
      }
      c.channel.flush();
      if (!requestReceived && c.channel.isWritable()) {
        client.channel().config().setAutoRead(true); // if a long wait stopped it
      }
    });
  }

  private void attach(TargetConnection c) {
    connection = c;
    c.attach(this, false);
  }

  private void send(Object part) {
    connection.channel.write(part, connection.channel.voidPromise());
    connection.touch();
    if (part instanceof LastHttpContent) {
      requestSent = true;
    } else if (!connection.channel.isWritable()) {
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

  /** Whether the exchange is over (its listener was told). */
  public boolean finished() {
    return finished;
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
  public void fromTarget(TargetConnection c, Object msg) {
    if (over) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpResponse response) {
      if (response.decoderResult().isFailure()) {
        fail(ElbError.TARGET_MALFORMED, response.decoderResult().cause());
      } else if (response.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
        informational = true; // 100 Continue or 103 Early Hints: the final response follows
      } else {
        head(response);
      }
      return;
    }
    if (!(msg instanceof HttpContent content)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (content.decoderResult().isFailure()) {
      content.release();
      if (headWritten) {
        responseFailed();
      } else {
        fail(ElbError.TARGET_MALFORMED, content.decoderResult().cause());
      }
    } else if (informational) {
      informational = !(content instanceof LastHttpContent);
      content.release();
    } else if (content instanceof LastHttpContent last) {
      end(last);
    } else {
      client.write(content, client.voidPromise());
      owner.wrote();
      if (!client.channel().isWritable()) {
        c.channel.config().setAutoRead(false); // the client reads slower than the target sends
      }
    }
  }

  private void head(HttpResponse response) {
    MultiMap headers = (MultiMap) response.headers();
    keepAlive = response.protocolVersion() == HttpVersion.HTTP_1_1
        && !headers.contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    keepAliveHeader = headers.get(HttpHeaderNames.KEEP_ALIVE);
    HopByHop.strip(headers);
    if (hook != null) {
      hook.beforeHead(headers);
    }
    int status = response.status().code();
    if (status != 204 && status != 304 && !headers.contains(HttpHeaderNames.CONTENT_LENGTH)) {
      headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    response.setProtocolVersion(HttpVersion.HTTP_1_1);
    listener.responseHead(status);
    headWritten = true;
    client.write(response, client.voidPromise());
    owner.wrote();
  }

  private void end(LastHttpContent last) {
    over = true;
    TargetConnection c = connection;
    connection = null;
    c.detach();
    if (requestSent && keepAlive) {
      pool.release(target, c, keepAliveHeader);
    } else {
      c.channel.close();
    }
    client.writeAndFlush(last, client.voidPromise());
    owner.wrote();
    finish(true);
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
  public void targetIdle(TargetConnection c) {
    if (headWritten) {
      responseFailed();
    } else {
      fail(ElbError.TARGET_TIMEOUT, new IOException("no response within the idle timeout"));
    }
  }

  @Override
  public void targetFailed(TargetConnection c, Throwable cause) {
    if (over) {
      return;
    }
    if (headWritten) {
      responseFailed();
    } else {
      fail(cause == null ? ElbError.TARGET_RESET : HttpForwarder.classify(cause, false),
          cause == null ? new IOException("target closed the connection") : cause);
    }
  }

  /** The target failed before its response head: the client gets the ELB status. */
  private void fail(ElbError error, Throwable cause) {
    if (over) {
      return;
    }
    over = true;
    LOG.debug("{} {} -> {}: {}", request.method(), request.uri(), error.status(), cause.toString());
    dropTarget();
    if (!clientGone) {
      // A body still on its way would have to be read and thrown away: close instead.
      boolean close = !requestReceived;
      var sent = client.writeAndFlush(ElbResponses.full(error, close));
      if (close) {
        sent.addListener(ChannelFutureListener.CLOSE);
      }
    }
    listener.failed(error);
    finish(false);
  }

  /** The target failed after its head went out: too late for a status, the client connection is cut. */
  private void responseFailed() {
    if (over) {
      return;
    }
    over = true;
    dropTarget();
    client.close();
    finish(false);
  }

  private void dropTarget() {
    if (waiting != null) {
      waiting.forEach(ReferenceCountUtil::release);
      waiting = null;
    }
    TargetConnection c = connection;
    if (c != null) {
      connection = null;
      c.detach();
      c.channel.close();
    }
  }

  /** The client connection closed. */
  public void clientClosed() {
    clientGone = true;
    if (!over) {
      over = true;
      dropTarget();
    }
    finish(false);
  }

  @Override
  public void cut(ElbError error) {
    if (finished) {
      return;
    }
    if (!headWritten) {
      fail(error, new IllegalStateException(error.reason()));
      return;
    }
    over = true;
    dropTarget();
    client.close();
    listener.failed(error);
    finish(false);
  }

  private void finish(boolean complete) {
    if (!finished) {
      finished = true;
      listener.finished(complete);
      owner.exchangeDone(this);
    }
  }
}
