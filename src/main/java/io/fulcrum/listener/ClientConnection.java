package io.fulcrum.listener;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import java.util.function.LongSupplier;

/**
 * ALB's idle timeout on one client connection (SPEC §11.4): the connection closes once it has
 * carried no request for the idle timeout. While a request is in flight this timer is off: the
 * target's idle and connect timeouts govern it and end in 504 or 502 for the client, which a
 * client-side timer of the same length would otherwise cut off first.
 *
 * <p>Touched only on the connection's event loop.
 */
final class ClientConnection {

  private final Vertx vertx;
  private final HttpConnection connection;
  private final LongSupplier idleMillis;
  private int inFlight;
  private long timer = -1;

  /** Starts watching a new connection; its idle time starts now. */
  ClientConnection(Vertx vertx, HttpConnection connection, LongSupplier idleMillis) {
    this.vertx = vertx;
    this.connection = connection;
    this.idleMillis = idleMillis;
    arm();
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
    cancel();
    if (http2 && ++requests == MAX_HTTP2_REQUESTS) {
      // GOAWAY now: the client opens a new connection for what comes next; streams under way finish.
      connection.shutdown(idleMillis.getAsLong(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }
  }

  void requestEnded() {
    if (inFlight > 0 && --inFlight == 0) {
      arm();
    }
  }

  void closed() {
    cancel();
  }

  private void arm() {
    cancel();
    timer = vertx.setTimer(idleMillis.getAsLong(), id -> {
      timer = -1;
      if (inFlight == 0) {
        connection.close();
      }
    });
  }

  private void cancel() {
    if (timer != -1) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
  }
}
