package io.fulcrum.listener;

import io.fulcrum.forward.ClientCertHeaders;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.time.Timers;
import io.fulcrum.time.VertxTimers;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.impl.ConnectionBase;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * ALB's idle timeout and client keep-alive on one client connection (SPEC §11.4). The connection
 * closes once it has carried no request for the idle timeout; an HTTP/1.x request head begun and
 * not all come by then is answered 408 first (a client sending its head a byte at a time is held
 * no longer than one that sends nothing). While a request is in flight this
 * timer is off: the target's idle and connect timeouts govern it and end in 504 or 502 for the
 * client, which a client-side timer of the same length would otherwise cut off first. Once the
 * connection has lived for {@code client_keep_alive.seconds} it is shut down (HTTP/2: GOAWAY, its
 * streams finish; HTTP/1.x: closed now when idle, else once its response in flight has ended),
 * unless it has become a WebSocket tunnel.
 *
 * <p>The idle timer is not moved per request: a request only notes when the connection went idle, and
 * the timer, when it fires, closes the connection if it has been idle for the whole timeout or
 * waits for the rest of it. A keep-alive connection thus costs no timer per request. Also the
 * handler of each response's end.
 *
 * <p>Touched only on the connection's event loop.
 */
final class ClientConnection implements Handler<Void> {

  /** {@link #tls}'s value for a connection without TLS. */
  private static final ForwardHeaders.Tls CLEARTEXT = new ForwardHeaders.Tls("", "");
  /** The access log's {@code chosen_cert_arn} for a session that resumed an earlier one. */
  static final String SESSION_REUSED = "session-reused";

  private final Vertx vertx;
  private final HttpConnection connection;
  private final LongSupplier idleMillis;
  private int inFlight;
  /** When the connection last became idle ({@link System#nanoTime()}); meaningful while inFlight is 0. */
  private long idleSince;
  private long timer = -1;
  /** The timer of the connection's end of life, or -1. */
  private long lifetimeTimer = -1;
  private final Timers lifetime;
  /** The life is over ({@link #expired}). */
  private boolean expired;
  /** The latest response of Vert.x's path on an HTTP/1.x connection, until it ends; or null. */
  private HttpServerResponse vertxResponse;
  private boolean closed;
  private boolean closing;
  private boolean last;
  /** The connection's TLS for the TLS headers, once asked for; {@link #CLEARTEXT} without TLS. */
  private ForwardHeaders.Tls tls;
  /** The connection's mutual TLS headers, once asked for (a listener's mutual TLS lasts as long as its connections). */
  private ClientCertHeaders clientCert;
  /** The ARN of the certificate the connection's session was given, once asked for; {@code "-"} when unknown. */
  private String chosenCertificate;
  private SocketAddress forwardedAddress;
  private boolean forwardedWithPort;
  private String forwardedFor;
  /** Where the connection is counted (its load balancer in its zone), set by the listener as it opens; or null. */
  LoadBalancerMeters meters;
  /** The bytes of an HTTP/1.x connection, else null (HTTP/2 counts each stream's). */
  ByteCounter bytes;
  /** {@link #bytes} read when the connection last became idle: more at the idle timeout is a request head not all come. */
  private long readWhenIdle;
  /**
   * Answers a request head that has not all come within the idle timeout (ALB's 408) and closes
   * the connection; null: the connection just closes.
   */
  Runnable headTimedOut;
  private long loggedRead;
  private long loggedWritten;
  /** The access log's {@code conn_trace_id}, once a line needed it. */
  private String traceId;

  /**
   * Starts watching a new connection; its idle time and its life start now.
   *
   * @param lifetimeMillis how long it may live ({@code client_keep_alive.seconds}), read as it opens
   */
  ClientConnection(Vertx vertx, HttpConnection connection, LongSupplier idleMillis, long lifetimeMillis) {
    this(vertx, connection, idleMillis, lifetimeMillis, new VertxTimers(vertx, java.time.Clock.systemUTC()));
  }

  /** @param lifetime the timers of the connection's life (a virtual clock in tests) */
  ClientConnection(Vertx vertx, HttpConnection connection, LongSupplier idleMillis, long lifetimeMillis,
      Timers lifetime) {
    this.vertx = vertx;
    this.connection = connection;
    this.idleMillis = idleMillis;
    this.lifetime = lifetime;
    idleSince = System.nanoTime();
    arm(idleMillis.getAsLong());
    lifetimeTimer = lifetime.setTimer(Math.max(1, lifetimeMillis), id -> {
      lifetimeTimer = -1;
      if (!closed) {
        expired = true;
        // A Vert.x response whose head has not gone yet says so; the direct path asks (see expired()).
        if (vertxResponse != null && !vertxResponse.headWritten()) {
          vertxResponse.headers().set(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        }
        // The graceful shutdown's way: HTTP/2 sends GOAWAY; HTTP/1.x closes now when no response is on its
        // way, else after it (the direct path holds the close until its exchange has ended).
        connection.shutdown(idleMillis.getAsLong(), TimeUnit.MILLISECONDS);
      }
    });
  }

  /**
   * Whether the connection's life is over ({@code client_keep_alive.seconds}): an HTTP/1.x
   * response whose head goes out from now on says {@code Connection: close}, so that the client
   * sends nothing more on a connection about to close.
   */
  boolean expired() {
    return expired;
  }

  /**
   * An HTTP/1.x response of Vert.x's path is under way: it says {@code Connection: close} when
   * the connection's life is over before its head goes.
   */
  void vertxResponse(HttpServerResponse response) {
    vertxResponse = response;
    if (expired) {
      response.headers().set(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
    }
  }

  /** The connection is a WebSocket tunnel now: its age no longer ends it. */
  void tunnelOpened() {
    cancelLifetime();
  }

  private void cancelLifetime() {
    if (lifetimeTimer != -1) {
      lifetime.cancelTimer(lifetimeTimer);
      lifetimeTimer = -1;
    }
  }

  /**
   * ALB ends an HTTP/2 client connection with GOAWAY after this many requests (SPEC §7.3). The
   * system property {@code fulcrum.http2.maxRequestsPerConnection} changes it for load tests only:
   * h2load does not reconnect after a GOAWAY (loadtest/compare.sh lifts the limit, as it lifts
   * NGINX's {@code keepalive_requests}).
   */
  static final int MAX_HTTP2_REQUESTS = Integer.getInteger("fulcrum.http2.maxRequestsPerConnection", 10_000);

  private int requests;

  /** @param http2 whether the connection speaks HTTP/2 (counted toward the GOAWAY limit) */
  void requestStarted(boolean http2) {
    inFlight++;
    if (http2 && ++requests == MAX_HTTP2_REQUESTS) {
      // GOAWAY now: the client opens a new connection for what comes next; streams under way finish.
      connection.shutdown(idleMillis.getAsLong(), TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The response under way says {@code Connection: close} (what follows its request on the
   * connection cannot be trusted as a request): no later request on the connection is served.
   */
  void closeAfterResponse() {
    closing = true;
  }

  /** Whether {@link #closeAfterResponse} was called. */
  boolean closing() {
    return closing;
  }

  /**
   * The request now being read is the connection's last (an Ambiguous one, desync mitigation):
   * its body is read and it is served, no request after it is, and the connection closes once its
   * response has ended.
   */
  void lastRequest() {
    last = true;
  }

  /** Whether no new request is to be served on the connection ({@link #closing} or {@link #lastRequest}). */
  boolean refusesRequests() {
    return closing || last;
  }

  void requestEnded() {
    if (last) {
      inFlight = Math.max(0, inFlight - 1);
      if (inFlight == 0) {
        connection.close(); // what the response wrote goes out first
      }
      return;
    }
    if (inFlight > 0 && --inFlight == 0) {
      idleSince = System.nanoTime();
      readWhenIdle = bytes == null ? 0 : bytes.read;
      if (timer == -1) {
        arm(idleMillis.getAsLong());
      }
    }
  }

  /**
   * The client's X-Forwarded-For entry, made once per connection rather than per request (every
   * request of a connection comes from the same address).
   */
  String forwardedFor(SocketAddress client, boolean withPort) {
    if (client != forwardedAddress || withPort != forwardedWithPort || forwardedFor == null) {
      forwardedFor = ForwardHeaders.forwardedFor(client, withPort);
      forwardedAddress = client;
      forwardedWithPort = withPort;
    }
    return forwardedFor;
  }

  /** The connection's TLS protocol and cipher suite (read once), or null over cleartext. */
  ForwardHeaders.Tls tls() {
    if (tls == null) {
      ForwardHeaders.Tls t = ForwardHeaders.Tls.of(connection.sslSession());
      tls = t == null ? CLEARTEXT : t;
    }
    return tls == CLEARTEXT ? null : tls;
  }

  /**
   * The access log's {@code chosen_cert_arn} (looked up once): the ARN of the listener's
   * certificate that the connection's session was given, {@code session-reused} for a session that
   * resumed an earlier one (as ALB writes it), or {@code "-"} when that is not known.
   */
  String chosenCertificate(ServedCertificates served) {
    if (chosenCertificate == null) {
      String arn = connection instanceof ConnectionBase base && Tls.resumed(base.channel()) ? SESSION_REUSED
          : served.arnOf(connection.sslSession());
      chosenCertificate = arn == null ? "-" : arn;
    }
    return chosenCertificate;
  }

  /**
   * The connection's mutual TLS headers (made once): those of its listener's mode, under
   * {@code names}, for the certificate the client sent, if any.
   */
  ClientCertHeaders clientCert(MutualAuthentication.Mode mode, ClientCertHeaders.Names names) {
    if (clientCert == null || clientCert.names() != names) {
      clientCert = ClientCertHeaders.of(connection.sslSession(), mode, names);
    }
    return clientCert;
  }

  /**
   * The bytes read since the last call (the access log's {@code received_bytes} of the request that
   * ends now), or -1 when the connection does not count them (HTTP/2). Exact
   * unless requests are pipelined, when a request's bytes count with the one before it.
   */
  long received() {
    if (bytes == null) {
      return -1;
    }
    long n = bytes.read - loggedRead;
    loggedRead = bytes.read;
    return n;
  }

  /** The bytes written since the last call ({@code sent_bytes}), or -1 (see {@link #received}). */
  long sent() {
    if (bytes == null) {
      return -1;
    }
    long n = bytes.written - loggedWritten;
    loggedWritten = bytes.written;
    return n;
  }

  /** The connection's id in the access log ({@code conn_trace_id}): {@code TID_} and 32 hex digits. */
  String traceId(java.util.random.RandomGenerator random) {
    if (traceId == null) {
      traceId = newTraceId(random);
    }
    return traceId;
  }

  /** The id its connection log line gave the connection, for its access log lines too. */
  void useTraceId(String id) {
    traceId = id;
  }

  /** A new {@code conn_trace_id}: {@code TID_} and 32 hex digits. */
  static String newTraceId(java.util.random.RandomGenerator random) {
    return "TID_" + java.util.HexFormat.of().toHexDigits(random.nextLong())
        + java.util.HexFormat.of().toHexDigits(random.nextLong());
  }

  /** The TLS server name the client indicated (SNI), or null. */
  String serverName() {
    return connection.indicatedServerName();
  }

  /** A response ended (registered as each response's end handler). */
  @Override
  public void handle(Void v) {
    vertxResponse = null;
    requestEnded();
  }

  void closed() {
    closed = true;
    if (timer != -1) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    cancelLifetime();
  }

  private void arm(long millis) {
    if (closed) {
      return;
    }
    timer = vertx.setTimer(Math.max(1, millis), id -> {
      timer = -1;
      if (inFlight > 0) {
        return; // the end of the last request in flight arms it again
      }
      long idle = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - idleSince);
      long left = idleMillis.getAsLong() - idle;
      if (left <= 0) {
        if (headTimedOut != null && bytes != null && bytes.read > readWhenIdle) {
          headTimedOut.run(); // a request started and did not finish coming: 408, then the close
        } else {
          connection.close();
        }
      } else {
        arm(left);
      }
    });
  }
}
