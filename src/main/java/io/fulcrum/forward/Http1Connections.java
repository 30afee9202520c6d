package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpConnectOptions;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keep-alive HTTP/1.1 connections to targets, owned by one event loop: per target an idle stack
 * (the most recently used connection first, so that a quiet period lets the others time out), a
 * cap on open connections, and the requests waiting for one when the cap is reached.
 *
 * <p>Vert.x's own client pool does the same job, but builds a context per request it serves
 * (about 2.4 KB of garbage and a pool lookup per request in Vert.x 5.0); the forwarder holds the
 * target's {@link Upstream} already, so finding its connections is one identity lookup here.
 *
 * <p>A connection goes back to the stack only when its exchange completed cleanly (the whole
 * request sent, the whole response read, and no {@code Connection: close}); any other ending
 * resets or closes it. An idle connection closes after the client's idle timeout, or when the
 * target closes it, and leaves the stack then. Touched only on the owning event loop.
 */
final class Http1Connections {

  private static final Logger LOG = LoggerFactory.getLogger(Http1Connections.class);

  private final HttpClientAgent client;
  private final int maxPerTarget;
  private final Map<Upstream, Pool> pools = new HashMap<>();

  /**
   * @param client       the client connections are made with (timeouts, TLS toward targets)
   * @param maxPerTarget open connections per target at most; further requests wait for one
   */
  Http1Connections(HttpClientAgent client, int maxPerTarget) {
    this.client = client;
    this.maxPerTarget = maxPerTarget;
  }

  /**
   * An idle connection to {@code target}, or null when there is none: the caller then
   * {@link #connect}s. Taken connections are the caller's until {@link #release}d.
   */
  HttpClientConnection idle(Upstream target) {
    Pool pool = pools.get(target);
    return pool == null ? null : pool.idle.pollFirst();
  }

  /** A new connection to {@code target}, or the next one released when the target has its cap. */
  Future<HttpClientConnection> connect(Upstream target, boolean tls) {
    Pool pool = pools.computeIfAbsent(target, t -> new Pool());
    if (pool.open.size() + pool.connecting >= maxPerTarget) {
      Promise<HttpClientConnection> waiter = Promise.promise();
      pool.waiters.addLast(waiter);
      return waiter.future();
    }
    pool.connecting++;
    return client.connect(new HttpConnectOptions().setHost(target.address()).setPort(target.port()).setSsl(tls))
        .andThen(ar -> {
          pool.connecting--;
          if (ar.succeeded()) {
            HttpClientConnection c = ar.result();
            pool.open.add(c);
            c.exceptionHandler(e -> LOG.debug("connection to {}:{}: {}", target.address(), target.port(), e.toString()));
            c.closeHandler(v -> closed(target, pool, c, tls));
          } else {
            Promise<HttpClientConnection> waiter = pool.waiters.pollFirst();
            if (waiter != null) {
              connect(target, tls).onComplete(waiter); // the cap has room again
            } else {
              forget(target, pool);
            }
          }
        });
  }

  /** Puts {@code c} back for the next request to {@code target} (its exchange ended cleanly). */
  void release(Upstream target, HttpClientConnection c) {
    Pool pool = pools.get(target);
    if (pool == null || !pool.open.contains(c)) {
      return; // closed meanwhile
    }
    Promise<HttpClientConnection> waiter = pool.waiters.pollFirst();
    if (waiter != null) {
      waiter.complete(c);
    } else {
      pool.idle.addFirst(c);
    }
  }

  private void closed(Upstream target, Pool pool, HttpClientConnection c, boolean tls) {
    pool.open.remove(c);
    pool.idle.remove(c);
    Promise<HttpClientConnection> waiter = pool.waiters.pollFirst();
    if (waiter != null) {
      connect(target, tls).onComplete(waiter);
    } else {
      forget(target, pool);
    }
  }

  private void forget(Upstream target, Pool pool) {
    if (pool.open.isEmpty() && pool.connecting == 0 && pool.waiters.isEmpty()) {
      pools.remove(target, pool);
    }
  }

  /** Closes every connection (the forwarder stops). */
  Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    for (Pool pool : List.copyOf(pools.values())) {
      pool.idle.clear();
      for (HttpClientConnection c : List.copyOf(pool.open)) {
        closing.add(c.close());
      }
    }
    return Future.join(closing).mapEmpty();
  }

  /** Connections open to one target. */
  private static final class Pool {
    final Set<HttpClientConnection> open = new HashSet<>();
    final ArrayDeque<HttpClientConnection> idle = new ArrayDeque<>();
    final ArrayDeque<Promise<HttpClientConnection>> waiters = new ArrayDeque<>();
    int connecting;
  }
}
