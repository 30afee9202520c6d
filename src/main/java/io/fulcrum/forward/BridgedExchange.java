package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.fulcrum.forward.HttpForwarder.ResponseHook;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A request that Vert.x's server parsed (HTTP/2, or an HTTP/1.x request the direct path left to
 * Vert.x), forwarded to a plain HTTP/1.1 target over a pooled {@link TargetConnection}: the
 * request head and body go out as Netty messages, and the target's response comes back through
 * Vert.x's server response. Touched only on the owning event loop.
 *
 * <p>Endings as {@link HttpForwarder}'s (SPEC §11.3): before the response head an ELB status
 * (502, 504); after it, the client's stream (HTTP/2) or connection (HTTP/1.x) is cut. A target
 * connection goes back to its pool only after a clean exchange.
 */
final class BridgedExchange implements HttpForwarder.Handle, TargetConnection.Exchange {

  private static final Logger LOG = LoggerFactory.getLogger(BridgedExchange.class);

  private final HttpServerRequest request;
  private final HttpServerResponse response;
  private final HttpRequest head;
  private final boolean hasBody;
  private final Upstream target;
  private final ChannelPool pool;
  private final ExchangeListener listener;
  private final ResponseHook hook;
  private TargetConnection connection;
  private boolean headSent;
  private boolean requestSent;
  private boolean informational;
  private boolean keepAlive;
  private String keepAliveHeader;
  private boolean closeAfter;
  /** No more of the target's response goes to the client. */
  private boolean over;
  private boolean finished;
  private boolean clientGone;

  /**
   * @param head    the request head for the target (origin-form URI, headers prepared)
   * @param hasBody whether a body follows (piped from {@code request})
   */
  BridgedExchange(HttpServerRequest request, HttpRequest head, boolean hasBody, Upstream target, ChannelPool pool,
      ExchangeListener listener, ResponseHook hook) {
    this.request = request;
    this.response = request.response();
    this.head = head;
    this.hasBody = hasBody;
    this.target = target;
    this.pool = pool;
    this.listener = listener;
    this.hook = hook;
  }

  void start() {
    response.closeHandler(v -> clientClosed());
    if (hasBody) {
      request.pause(); // until the target connection is there to take the body
    }
    TargetConnection idle = pool.idle(target);
    if (idle != null) {
      send(idle);
      return;
    }
    pool.connect(target, false).onComplete(ar -> {
      if (ar.failed()) {
        fail(HttpForwarder.classify(ar.cause(), true), ar.cause());
      } else if (over) {
        pool.release(target, ar.result(), null); // unused: the client went away meanwhile
      } else {
        send(ar.result());
      }
    });
  }

  private void send(TargetConnection c) {
    connection = c;
    c.attach(this, request.method() == HttpMethod.HEAD);
    c.touch();
    if (!hasBody) {
      c.channel.write(head, c.channel.voidPromise());
      c.channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT, c.channel.voidPromise());
      requestSent = true;
      return;
    }
    // The head goes with the first part of the body: a client that sent Expect: 100-continue was answered
    // by Vert.x, and the target sees nothing until the body comes.
    request.handler(buf -> {
      if (over || connection == null) {
        return;
      }
      sendHead();
      // A copy: Vert.x keeps no claim on it, and the target's encoder releases it once written.
      connection.channel.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(buf.getBytes())),
          connection.channel.voidPromise());
      connection.touch();
      if (!connection.channel.isWritable()) {
        request.pause(); // the target reads the body slower than the client sends it
      }
    });
    request.exceptionHandler(e -> clientClosed()); // the client went away mid-body
    request.endHandler(v -> {
      if (!over && connection != null) {
        sendHead();
        connection.channel.writeAndFlush(LastHttpContent.EMPTY_LAST_CONTENT, connection.channel.voidPromise());
        connection.touch();
        requestSent = true;
      }
    });
    request.resume();
  }

  private void sendHead() {
    if (!headSent) {
      headSent = true;
      connection.channel.write(head, connection.channel.voidPromise());
    }
  }

  @Override
  public void fromTarget(TargetConnection c, Object msg) {
    if (over) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof HttpResponse r) {
      if (r.decoderResult().isFailure()) {
        fail(ElbError.TARGET_MALFORMED, r.decoderResult().cause());
      } else if (r.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
        informational = true; // 100 Continue or 103 Early Hints: the final response follows
      } else {
        head(r);
      }
      return;
    }
    if (!(msg instanceof HttpContent content)) {
      ReferenceCountUtil.release(msg);
      return;
    }
    try {
      if (content.decoderResult().isFailure()) {
        if (response.headWritten()) {
          responseFailed();
        } else {
          fail(ElbError.TARGET_MALFORMED, content.decoderResult().cause());
        }
      } else if (informational) {
        informational = !(content instanceof LastHttpContent);
      } else {
        if (content.content().isReadable()) {
          response.write(Buffer.buffer(ByteBufUtil.getBytes(content.content()))).onFailure(e -> responseFailed());
          if (response.writeQueueFull()) {
            c.channel.config().setAutoRead(false); // the client reads slower than the target sends
            response.drainHandler(v -> {
              if (connection == c) {
                c.channel.config().setAutoRead(true);
              }
            });
          }
        }
        if (content instanceof LastHttpContent last) {
          end(last);
        }
      }
    } finally {
      content.release();
    }
  }

  private void head(HttpResponse r) {
    MultiMap targetHeaders = (MultiMap) r.headers();
    keepAlive = r.protocolVersion() == io.netty.handler.codec.http.HttpVersion.HTTP_1_1
        && !r.headers().contains(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    keepAliveHeader = targetHeaders.get(HttpHeaderNames.KEEP_ALIVE);
    HopByHop.strip(targetHeaders);
    int status = r.status().code();
    response.setStatusCode(status);
    String reason = r.status().reasonPhrase();
    if (!reason.equals(HttpResponseStatus.valueOf(status).reasonPhrase())) {
      response.setStatusMessage(reason); // the target's own phrase; the standard one is the default
    }
    MultiMap headers = response.headers();
    headers.addAll(targetHeaders);
    if (hook != null) {
      hook.beforeHead(headers);
    }
    boolean bodyless = request.method() == HttpMethod.HEAD || status == 204 || status == 304;
    if (!bodyless && !headers.contains(HttpHeaders.CONTENT_LENGTH)) {
      if (request.version() == HttpVersion.HTTP_1_0) {
        // An HTTP/1.0 client learns where the body ends only from the connection closing.
        headers.set(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        closeAfter = true;
      } else {
        response.setChunked(true);
      }
    }
    listener.responseHead(status);
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
    if (!last.trailingHeaders().isEmpty()) {
      MultiMap trailers = response.trailers();
      last.trailingHeaders().forEach(e -> trailers.add(e.getKey(), e.getValue()));
    }
    response.end().onComplete(ar -> {
      if (ar.failed()) {
        responseFailed();
        return;
      }
      if (closeAfter) {
        request.connection().close();
      }
      finish(true);
    });
  }

  @Override
  public void readComplete() {
    // Vert.x flushes what the response wrote.
  }

  @Override
  public void targetWritabilityChanged(boolean writable) {
    if (writable && hasBody && !requestSent && !over) {
      request.resume();
    }
  }

  @Override
  public void targetIdle(TargetConnection c) {
    if (response.headWritten()) {
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
    if (response.headWritten()) {
      responseFailed();
    } else {
      fail(cause == null ? ElbError.TARGET_RESET : HttpForwarder.classify(cause, false),
          cause == null ? new IOException("target closed the connection") : cause);
    }
  }

  private void fail(ElbError error, Throwable cause) {
    if (over) {
      return;
    }
    over = true;
    LOG.debug("{} {} -> {}: {}", request.method(), request.uri(), error.status(), cause.toString());
    dropTarget();
    if (!clientGone) {
      // A body still on its way would have to be read and thrown away: close instead.
      ElbResponses.send(request, error, !request.isEnded());
    }
    listener.failed(error);
    finish(false);
  }

  /** Too late for a status: the client's stream (HTTP/2, which carries others) or connection is cut. */
  private void responseFailed() {
    if (finished) {
      return;
    }
    over = true;
    dropTarget();
    cutClient();
    finish(false);
  }

  private void cutClient() {
    if (clientGone) {
      return;
    }
    if (request.version() == HttpVersion.HTTP_2) {
      response.reset();
    } else {
      request.connection().close();
    }
  }

  private void dropTarget() {
    TargetConnection c = connection;
    if (c != null) {
      connection = null;
      c.detach();
      c.channel.close();
    }
  }

  private void clientClosed() {
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
    if (!response.headWritten()) {
      fail(error, new IllegalStateException(error.reason()));
      return;
    }
    over = true;
    dropTarget();
    cutClient();
    listener.failed(error);
    finish(false);
  }

  private void finish(boolean complete) {
    if (!finished) {
      finished = true;
      listener.finished(complete);
    }
  }
}
