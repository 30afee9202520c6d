package io.fulcrum.listener;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.PromiseInternal;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the listener verticles of the process agree on about the sockets they share (Vert.x shares
 * a listening socket among every server bound to its address and port; the first to bind owns it).
 *
 * <p>Hand-over: a listener that turns from HTTP to HTTPS or back, or gains h2c, keeps its address
 * and port, and Vert.x gives a server that joins a shared socket the TLS context of the server that
 * bound it; so the new kind may bind only once every verticle has closed its server of the old kind
 * and the socket is gone. Each verticle reports its close here; the binds wait until all have.
 * Lock-free: a map per socket of the version each verticle released it at.
 *
 * <p>Departure: when the last server of a shared socket shuts down, Vert.x closes the socket on
 * the owner's context; because Fulcrum accepts on the event loops ({@code LeanTransport}), that
 * close completes at once, and the grace-period timer of that last shutdown is set on the owner's
 * context. A verticle's context closes as it finishes stopping, closing a context cancels its
 * timers, and a shutdown whose timer was cancelled that way never completes: had the owner finished
 * stopping meanwhile, the process's graceful stop hung until its caller gave up. So each verticle,
 * once drained, waits here until every verticle has drained before it finishes stopping.
 */
public final class SocketHandover {

  private static final Logger LOG = LoggerFactory.getLogger(SocketHandover.class);
  private static final long POLL_MILLIS = 5;
  private static final long GIVE_UP_MILLIS = 10_000;

  private final int instances;
  private final Map<String, Map<Integer, Long>> released = new ConcurrentHashMap<>();
  /** Verticles that have neither drained nor failed to start. */
  private final AtomicInteger staying;
  /** The drained verticles' waits, each completing on its own verticle's context. */
  private final Queue<Promise<Void>> departing = new ConcurrentLinkedQueue<>();

  /** @param instances how many listener verticles share each socket */
  public SocketHandover(int instances) {
    this.instances = instances;
    this.staying = new AtomicInteger(instances);
  }

  /**
   * A verticle has drained (its servers have shut down): completes, on the caller's context, once
   * every verticle has, or after {@code boundMillis} (a verticle undeployed while it was still
   * starting never drains).
   */
  Future<Void> drained(Vertx vertx, long boundMillis) {
    PromiseInternal<Void> wait = ((ContextInternal) vertx.getOrCreateContext()).promise();
    departing.add(wait); // before counting down: the last to count down completes every wait queued
    leave();
    if (!wait.future().isComplete()) {
      long timer = vertx.setTimer(Math.max(1, boundMillis), id -> {
        if (wait.tryComplete()) {
          departing.remove(wait);
          LOG.warn("not every listener verticle drained within {} ms; stopping anyway", boundMillis);
        }
      });
      wait.future().onComplete(ar -> vertx.cancelTimer(timer));
    }
    return wait.future();
  }

  /** How many drained verticles wait for the others. */
  int departing() {
    return departing.size();
  }

  /** A verticle failed to start: the others do not wait for it to drain. */
  void withdraw() {
    leave();
  }

  private void leave() {
    if (staying.decrementAndGet() <= 0) {
      for (Promise<Void> p = departing.poll(); p != null; p = departing.poll()) {
        p.tryComplete();
      }
    }
  }

  /** Listener verticle {@code instance} has closed its old server on {@code socket} for snapshot {@code version}. */
  void released(String socket, int instance, long version) {
    released.computeIfAbsent(socket, k -> new ConcurrentHashMap<>()).merge(instance, version, Math::max);
  }

  boolean allReleased(String socket, long version) {
    Map<Integer, Long> byInstance = released.get(socket);
    if (byInstance == null || byInstance.size() < instances) {
      return false;
    }
    return byInstance.values().stream().allMatch(v -> v >= version);
  }

  /**
   * Completes once every verticle has released {@code socket} for {@code version}; after ten seconds
   * it completes anyway (a verticle that is stopping may never report) and the bind's own retries
   * take over.
   */
  Future<Void> await(Vertx vertx, String socket, long version) {
    if (allReleased(socket, version)) {
      return Future.succeededFuture();
    }
    Promise<Void> done = Promise.promise();
    long deadline = System.nanoTime() + GIVE_UP_MILLIS * 1_000_000;
    vertx.setPeriodic(POLL_MILLIS, id -> {
      if (allReleased(socket, version)) {
        vertx.cancelTimer(id);
        done.tryComplete();
      } else if (System.nanoTime() > deadline) {
        vertx.cancelTimer(id);
        LOG.warn("{}: not every listener verticle closed its old server within {} ms; binding anyway", socket,
            GIVE_UP_MILLIS);
        done.tryComplete();
      }
    });
    return done.future();
  }
}
