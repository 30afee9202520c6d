package io.fulcrum.listener;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands a listening socket over from a server of one kind to a server of another (a listener that
 * turns from HTTP to HTTPS or back, or gains h2c, on the same address and port). Every listener
 * verticle of the process shares the socket, and Vert.x gives a server that joins a shared socket
 * the TLS context of the server that bound it; so the new kind may bind only once every verticle
 * has closed its server of the old kind and the socket is gone. Each verticle reports its close
 * here; the binds wait until all have. Lock-free: a map per socket of the version each verticle
 * released it at.
 */
public final class SocketHandover {

  private static final Logger LOG = LoggerFactory.getLogger(SocketHandover.class);
  private static final long POLL_MILLIS = 5;
  private static final long GIVE_UP_MILLIS = 10_000;

  private final int instances;
  private final Map<String, Map<Integer, Long>> released = new ConcurrentHashMap<>();

  /** @param instances how many listener verticles share each socket */
  public SocketHandover(int instances) {
    this.instances = instances;
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
