package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.fulcrum.forward.HttpForwarder.ResponseHook;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.MultiMap;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The target side of one exchange over a pooled {@link TargetConnection}, whatever the client
 * side is: the target's response read (a 1xx dropped, a malformed one refused), its head made
 * ready for the client (hop-by-hop headers removed, stickiness cookies added), and every ending as
 * ALB has it (SPEC §11.3): before the response head the client gets an ELB status (502 refused,
 * reset, malformed or failed TLS, 504 idle timeout); after it, its stream or connection is cut. The
 * connection goes back to its pool only after a clean exchange. Subclasses write to the client:
 * {@link DirectExchange} to a Netty channel, {@link BridgedExchange} through Vert.x's server
 * response. Touched only on the owning event loop.
 */
abstract class TargetExchange implements HttpForwarder.Handle, TargetConnection.Exchange {

  private static final Logger LOG = LoggerFactory.getLogger(TargetExchange.class);

  final Upstream target;
  /** Whether the target is reached over TLS. */
  final boolean tls;
  final ChannelPool pool;
  final ExchangeListener listener;
  private final ResponseHook hook;
  /** The connection carrying the exchange, or null before it is there and once it is let go. */
  TargetConnection connection;
  /** The whole request went to the target. */
  boolean requestSent;
  /** Some of the request (its head at least) was written to the target connection. */
  boolean headWritten;
  /** No more of the target's response goes to the client. */
  boolean over;
  boolean clientGone;
  private boolean finished;
  private boolean informational;
  private boolean keepAlive;
  private String keepAliveHeader;
  /** The target connection closes after this exchange ({@link #closeTargetAfter}). */
  private boolean closeTarget;

  TargetExchange(Upstream target, boolean tls, ChannelPool pool, ExchangeListener listener, ResponseHook hook) {
    this.target = target;
    this.tls = tls;
    this.pool = pool;
    this.listener = listener;
    this.hook = hook;
  }

  @Override
  public boolean headSent() {
    return headWritten || requestSent;
  }

  /** Whether the client has the response head (too late for an ELB status). */
  abstract boolean headWritten();

  /** The listener's header modification, for the exchange's error page. */
  final ListenerHeaders listenerHeaders() {
    return ListenerHeaders.of(hook);
  }

  /**
   * Whether {@link #writeHead} can take the target's head as it is ({@code headers} null) rather
   * than a header map: without a hook, it then goes to the client from its bytes.
   */
  boolean takesRawHead() {
    return false;
  }

  /**
   * Writes the target's response head to the client, with {@code headers}: the target's without
   * the hop-by-hop ones, and what the hook added; null when the exchange {@link #takesRawHead}
   * and there is no hook.
   */
  abstract void writeHead(TargetResponse response, MultiMap headers);

  /** Writes a part of the response body to the client; the part is the callee's to release. */
  abstract void writeBody(TargetConnection c, HttpContent part);

  /**
   * Writes the end of the response (its last body bytes, trailers) to the client, and
   * {@link #finish}es once it is out; {@code last} is the callee's to release.
   */
  abstract void writeLast(LastHttpContent last);

  /** Answers the client with the page for {@code error}. */
  abstract void answer(ElbError error);

  /** Cuts the client's stream or connection: the response cannot end well. */
  abstract void cutClient();

  /** The request in words, for the log. */
  abstract String describe();

  /** Called once when the exchange is over. */
  void done() {
  }

  /**
   * Whether the request asks the target to switch protocols (a WebSocket upgrade): a {@code 101}
   * is then the final response, and the connection carries the other protocol from there on.
   */
  boolean upgradeRequest() {
    return false;
  }

  /** Takes {@code c} for this exchange. */
  final void attach(TargetConnection c, boolean headRequest) {
    connection = c;
    c.attach(this, headRequest, upgradeRequest());
  }

  /** Parts of the request read before the target connection was open, in order; null once it is. */
  List<Object> waiting;

  /**
   * Takes an idle connection to the target, or opens one, and sends {@code parts} (the request head,
   * and its end when there is no body); what comes before the connection is open waits in
   * {@link #waiting}, and goes out, flushed, once it is ({@link #connected} then follows).
   */
  final void open(boolean headRequest, Object... parts) {
    TargetConnection idle = pool.idle(target);
    if (idle != null) {
      attach(idle, headRequest);
      for (Object part : parts) {
        send(part);
      }
      return;
    }
    waiting = new ArrayList<>(parts.length + 1);
    waiting.addAll(Arrays.asList(parts));
    pool.connect(target, tls).onComplete(ar -> {
      if (ar.failed()) {
        fail(HttpForwarder.classify(ar.cause(), true), ar.cause());
        return;
      }
      TargetConnection c = ar.result();
      if (over) {
        pool.release(target, c, null); // unused: the client went away meanwhile
        return;
      }
      attach(c, headRequest);
      List<Object> ready = waiting;
      waiting = null;
      for (Object part : ready) {
        send(part);
      }
      c.channel.flush();
      connected(c);
    });
  }

  /** Writes a part of the request to the target (not flushed). */
  void send(Object part) {
    headWritten = true;
    connection.channel.write(part, connection.channel.voidPromise());
    connection.touch();
    if (part instanceof LastHttpContent) {
      requestSent = true;
    }
  }

  /**
   * Writes a part of the request to the target as bytes, below its connection's HTTP encoder (not
   * flushed): the head with the load balancer's headers after the request's own, body bytes as
   * they came or as chunks, the end.
   */
  final void sendBytes(Object part, ForwardHeaders.Values forwarded, boolean chunked) {
    TargetConnection c = connection;
    ChannelHandlerContext out = c.wire;
    headWritten = true;
    if (part instanceof HttpRequest head) {
      out.write(Http1Wire.requestHead(out.alloc(), head, forwarded), out.voidPromise());
    }
    if (part instanceof LastHttpContent last) {
      Http1Wire.writeEnd(out, last, chunked, false);
      requestSent = true;
    } else if (part instanceof HttpContent body) {
      Http1Wire.writeBody(out, body.content(), chunked);
    }
    c.touch();
  }

  /** The connection that had to be opened is there, and what waited for it went out. */
  void connected(TargetConnection c) {
  }

  @Override
  public final void fromTarget(TargetConnection c, Object msg) {
    if (over) {
      ReferenceCountUtil.release(msg);
      return;
    }
    if (msg instanceof TargetResponse response) {
      if (response.status() < 200 && response.status() != 101) {
        // 100 Continue or 103 Early Hints: the final response follows. (A 101 comes only to an
        // upgrade request: the reader refuses any other.)
        informational = true;
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
      if (headWritten()) {
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
      writeBody(c, content);
    }
  }

  private void head(TargetResponse response) {
    keepAlive = response.keepAlive() && response.status() != 101; // a switched connection never goes back
    keepAliveHeader = response.keepAliveHeader();
    if ((hook == null || !hook.changesHead()) && takesRawHead()) {
      writeHead(response, null);
    } else {
      MultiMap headers = response.headers(); // hop-by-hop headers left out
      if (hook != null && hook.changesHead()) {
        hook.beforeHead(headers);
      }
      writeHead(response, headers);
    }
    if (!over) { // a head the client's side refused ended the exchange
      listener.responseHead(response.status());
    }
  }

  private void end(LastHttpContent last) {
    over = true;
    TargetConnection c = connection;
    connection = null;
    c.detach();
    if (requestSent && keepAlive && !closeTarget && c.nothingMoreRead()) {
      pool.release(target, c, keepAliveHeader);
    } else {
      c.channel.close();
    }
    writeLast(last);
  }

  @Override
  public final void targetIdle(TargetConnection c) {
    if (headWritten()) {
      responseFailed();
    } else {
      fail(ElbError.TARGET_TIMEOUT, new IOException("no response within the idle timeout"));
    }
  }

  @Override
  public final void targetFailed(TargetConnection c, Throwable cause) {
    if (over) {
      return;
    }
    if (headWritten()) {
      responseFailed();
    } else {
      fail(cause == null ? ElbError.TARGET_RESET : HttpForwarder.classify(cause, false),
          cause == null ? new IOException("target closed the connection") : cause);
    }
  }

  /** The target failed before its response head (or could not be reached): the client gets the ELB status. */
  final void fail(ElbError error, Throwable cause) {
    if (over) {
      return;
    }
    over = true;
    if (LOG.isDebugEnabled()) {
      LOG.debug("{} -> {}: {}", describe(), error.status(), cause.toString());
    }
    dropTarget();
    if (!clientGone) {
      answer(error);
    }
    listener.failed(error);
    finish(false);
  }

  /** Too late for a status: the client's stream or connection is cut. */
  final void responseFailed() {
    if (finished) {
      return;
    }
    over = true;
    dropTarget();
    if (!clientGone) {
      cutClient();
    }
    finish(false);
  }

  /** Lets the target connection go, closed: what is on it is not to be trusted any more. */
  void dropTarget() {
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

  /** The client went away. */
  public final void clientClosed() {
    clientGone = true;
    if (!over) {
      over = true;
      dropTarget();
    }
    finish(false);
  }

  @Override
  public final void cut(ElbError error) {
    if (finished) {
      return;
    }
    if (!headWritten()) {
      fail(error, new IllegalStateException(error.reason()));
      return;
    }
    over = true;
    dropTarget();
    if (!clientGone) {
      cutClient();
    }
    listener.failed(error);
    finish(false);
  }

  @Override
  public final void closeTargetAfter() {
    closeTarget = true;
  }

  /** Whether the exchange is over (its listener was told). */
  public final boolean finished() {
    return finished;
  }

  final void finish(boolean complete) {
    if (!finished) {
      finished = true;
      listener.finished(complete);
      done();
    }
  }
}
