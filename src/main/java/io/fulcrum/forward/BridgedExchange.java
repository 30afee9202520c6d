package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.fulcrum.forward.HttpForwarder.ResponseHook;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;

/**
 * A request that Vert.x's server parsed (HTTP/2, or an HTTP/1.x request the direct path left to
 * Vert.x), forwarded to an HTTP/1.1 target over a pooled {@link TargetConnection}: the
 * request head and body go out as Netty messages, and the target's response comes back through
 * Vert.x's server response. Endings as {@link TargetExchange} has them; after the response head an
 * HTTP/2 client's stream is reset, an HTTP/1.x client's connection closed. Touched only on the
 * owning event loop.
 */
class BridgedExchange extends TargetExchange {

  final HttpServerRequest request;
  final HttpServerResponse response;
  private final HttpRequest head;
  private final boolean hasBody;
  private boolean headSent;
  private boolean closeAfter;

  /**
   * @param head    the request head for the target (origin-form URI, headers prepared)
   * @param hasBody whether a body follows (piped from {@code request})
   */
  BridgedExchange(HttpServerRequest request, HttpRequest head, boolean hasBody, Upstream target, boolean tls,
      ChannelPool pool, ExchangeListener listener, ResponseHook hook) {
    super(target, tls, pool, listener, hook);
    this.request = request;
    this.response = request.response();
    this.head = head;
    this.hasBody = hasBody;
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
    pool.connect(target, tls).onComplete(ar -> {
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
    attach(c, request.method() == HttpMethod.HEAD);
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

  @Override
  public boolean headSent() {
    return headSent || super.headSent();
  }

  private void sendHead() {
    if (!headSent) {
      headSent = true;
      connection.channel.write(head, connection.channel.voidPromise());
    }
  }

  @Override
  boolean headWritten() {
    return response.headWritten();
  }

  @Override
  void writeHead(TargetResponse r, MultiMap targetHeaders) {
    int status = r.status();
    response.setStatusCode(status);
    String reason = r.reason();
    if (!reason.equals(HttpResponseStatus.valueOf(status).reasonPhrase())) {
      response.setStatusMessage(reason); // the target's own phrase; the standard one is the default
    }
    MultiMap headers = response.headers();
    headers.addAll(targetHeaders);
    boolean bodyless = request.method() == HttpMethod.HEAD || status == 204 || status == 304;
    if (!bodyless && !headers.contains(HttpHeaders.CONTENT_LENGTH)) {
      if (request.version() == HttpVersion.HTTP_1_0) {
        // An HTTP/1.0 client learns where the body ends only from the connection closing. (Vert.x sets
        // Connection: keep-alive on the head when the request asked for it: this goes on after that.)
        response.headersEndHandler(v -> headers.set(HttpHeaders.CONNECTION, HttpHeaders.CLOSE));
        closeAfter = true;
      } else {
        response.setChunked(true);
      }
    }
  }

  @Override
  void writeBody(TargetConnection c, HttpContent part) {
    write(part);
    if (response.writeQueueFull()) {
      c.channel.config().setAutoRead(false); // the client reads slower than the target sends
      response.drainHandler(v -> {
        if (connection == c) {
          c.channel.config().setAutoRead(true);
        }
      });
    }
  }

  /** Copies the part's bytes into the response (Vert.x keeps what it is given) and releases the part. */
  private void write(HttpContent part) {
    try {
      if (part.content().isReadable()) {
        response.write(Buffer.buffer(ByteBufUtil.getBytes(part.content()))).onFailure(e -> responseFailed());
      }
    } finally {
      part.release();
    }
  }

  @Override
  void writeLast(LastHttpContent last) {
    if (!last.trailingHeaders().isEmpty()) {
      MultiMap trailers = response.trailers();
      last.trailingHeaders().forEach(e -> {
        if (Http1Wire.mayTrail(e.getKey())) {
          trailers.add(e.getKey(), e.getValue());
        }
      });
    }
    write(last);
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
  void answer(ElbError error) {
    // A body still on its way would have to be read and thrown away: close instead.
    ElbResponses.send(request, error, !request.isEnded(), listenerHeaders());
  }

  @Override
  void cutClient() {
    if (request.version() == HttpVersion.HTTP_2) {
      response.reset();
    } else {
      request.connection().close();
    }
  }

  @Override
  String describe() {
    return request.method() + " " + request.uri();
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
}
