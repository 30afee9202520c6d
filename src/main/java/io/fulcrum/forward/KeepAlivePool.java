package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keep-alive HTTP/1.1 connections to targets, owned by one event loop: per target an idle stack
 * (the most recently used connection first, so that a quiet period lets the others time out), a
 * cap on open connections, and the requests waiting for one when the cap is reached.
 *
 * <p>Vert.x's own client pool does the same job, but builds a context per request it serves
 * (about 2.4 KB of garbage and a pool lookup per request in Vert.x 5.0); the forwarder holds the
 * target's {@link Upstream} already, so finding its connections is one identity lookup here.
 * The subclass says how a connection is opened and closed: {@link ChannelPool}, over plain Netty
 * channels.
 *
 * <p>A connection goes back to the stack only when its exchange completed cleanly (the whole
 * request sent, the whole response read with nothing after it, and no {@code Connection: close});
 * any other ending resets or closes it. An idle connection closes after the client's idle timeout, or when the
 * target closes it, and leaves the stack then; one whose target announced a keep-alive
 * {@code timeout} is not reused near its end, when the target may be closing it as a request
 * goes out. Touched only on the owning event loop.
 */
abstract class KeepAlivePool<C> {

  /** An idle connection whose target announced no keep-alive timeout. */
  private static final long NO_EXPIRY = Long.MIN_VALUE;
  private static final long KEEP_ALIVE_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

  private final int maxPerTarget;
  private final LongSupplier nanoTime;
  private final Map<Upstream, Pool<C>> pools = new HashMap<>();

  /**
   * @param maxPerTarget open connections per target at most; further requests wait for one
   * @param nanoTime     the clock keep-alive timeouts are measured with ({@link System#nanoTime})
   */
  KeepAlivePool(int maxPerTarget, LongSupplier nanoTime) {
    this.maxPerTarget = maxPerTarget;
    this.nanoTime = nanoTime;
  }

  /** Opens a connection to {@code target}. */
  protected abstract Future<C> dial(Upstream target, boolean tls);

  /** Runs {@code action} on the owning loop when {@code c} closes, whoever closes it (at once if it has). */
  protected abstract void whenClosed(C c, Runnable action);

  /** Closes {@code c}. */
  protected abstract Future<Void> close(C c);

  /**
   * An idle connection to {@code target}, or null when there is none: the caller then
   * {@link #connect}s. Taken connections are the caller's until {@link #release}d.
   */
  C idle(Upstream target) {
    Pool<C> pool = pools.get(target);
    if (pool == null) {
      return null;
    }
    for (Idle<C> i = pool.idle.pollFirst(); i != null; i = pool.idle.pollFirst()) {
      if (i.expiresAt == NO_EXPIRY || i.expiresAt - nanoTime.getAsLong() > 0) {
        return i.connection;
      }
      // Past the keep-alive time the target announced: it may be closing it right now.
      close(i.connection);
    }
    return null;
  }

  /** A new connection to {@code target}, or the next one released when the target has its cap. */
  Future<C> connect(Upstream target, boolean tls) {
    Pool<C> pool = pools.computeIfAbsent(target, t -> new Pool<>());
    if (pool.open.size() + pool.connecting >= maxPerTarget) {
      Promise<C> waiter = Promise.promise();
      pool.waiters.addLast(waiter);
      return waiter.future();
    }
    pool.connecting++;
    return dial(target, tls)
        .andThen(ar -> {
          pool.connecting--;
          if (ar.succeeded()) {
            C c = ar.result();
            pool.open.add(c);
            whenClosed(c, () -> closed(target, pool, c, tls));
          } else {
            Promise<C> waiter = pool.waiters.pollFirst();
            if (waiter != null) {
              connect(target, tls).onComplete(waiter); // the cap has room again
            } else {
              forget(target, pool);
            }
          }
        });
  }

  /**
   * Puts {@code c} back for the next request to {@code target} (its exchange ended cleanly).
   *
   * @param keepAlive the target's {@code Keep-Alive} response header, or null: a connection is not
   *                  reused later than half a second before the {@code timeout} it announces
   */
  void release(Upstream target, C c, String keepAlive) {
    Pool<C> pool = pools.get(target);
    if (pool == null || !pool.open.contains(c)) {
      return; // closed meanwhile
    }
    Promise<C> waiter = pool.waiters.pollFirst();
    if (waiter != null) {
      waiter.complete(c);
      return;
    }
    long timeout = keepAlive == null ? -1 : keepAliveTimeoutSeconds(keepAlive);
    long expiresAt = timeout < 0 ? NO_EXPIRY
        : nanoTime.getAsLong() + Math.max(0, TimeUnit.SECONDS.toNanos(timeout) - KEEP_ALIVE_MARGIN_NANOS);
    pool.idle.addFirst(new Idle<>(c, expiresAt));
  }

  /** The {@code timeout} parameter of a {@code Keep-Alive} header in seconds, or -1 when it has none. */
  static long keepAliveTimeoutSeconds(String header) {
    int at = 0;
    while (at < header.length()) {
      int comma = header.indexOf(',', at);
      int end = comma < 0 ? header.length() : comma;
      String param = header.substring(at, end).trim();
      int eq = param.indexOf('=');
      if (eq > 0 && param.substring(0, eq).trim().equalsIgnoreCase("timeout")) {
        try {
          return Math.max(0, Long.parseLong(param.substring(eq + 1).trim()));
        } catch (NumberFormatException e) {
          return -1;
        }
      }
      at = end + 1;
    }
    return -1;
  }

  private void closed(Upstream target, Pool<C> pool, C c, boolean tls) {
    pool.open.remove(c);
    pool.idle.removeIf(i -> i.connection == c);
    Promise<C> waiter = pool.waiters.pollFirst();
    if (waiter != null) {
      connect(target, tls).onComplete(waiter);
    } else {
      forget(target, pool);
    }
  }

  private void forget(Upstream target, Pool<C> pool) {
    if (pool.open.isEmpty() && pool.connecting == 0 && pool.waiters.isEmpty()) {
      pools.remove(target, pool);
    }
  }

  /** Closes every connection (the forwarder stops). */
  Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    for (Pool<C> pool : List.copyOf(pools.values())) {
      pool.idle.clear();
      for (C c : List.copyOf(pool.open)) {
        closing.add(close(c));
      }
    }
    return Future.join(closing).mapEmpty();
  }

  /** An idle connection, and when it must not be used any more ({@link #NO_EXPIRY}: never). */
  private record Idle<C>(C connection, long expiresAt) {
  }

  /** Connections open to one target. */
  private static final class Pool<C> {
    final Set<C> open = new HashSet<>();
    final ArrayDeque<Idle<C>> idle = new ArrayDeque<>();
    final ArrayDeque<Promise<C>> waiters = new ArrayDeque<>();
    int connecting;
  }
}
