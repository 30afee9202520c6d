package io.fulcrum.keys;

import io.fulcrum.bus.Addresses;
import io.fulcrum.sticky.KeyRing;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.shareddata.AsyncMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stickiness key ring, shared by the processes of a cluster (docs/cluster.md): so that a cookie
 * one process sealed, or an authenticate-oidc session it opened, is read by every other.
 *
 * <p>The cluster's ring is an entry of a cluster-wide map, in the key file's text. A process that
 * joins takes it (its key file is rewritten with it) or, first in the cluster, gives it its own.
 * A ring that changes on one process (a {@code rotate-stickiness-key} there, an edit of its file)
 * is written to the map if the entry is still the one that process took (compare-and-set), and
 * announced on the clustered bus; every other process writes it to its key file and uses it. A
 * ring that changed on two processes at once keeps the one written first: the other takes it
 * (its own change is logged and dropped), so rotate on one process at a time.
 *
 * <p>Deployed on the process's own Vert.x: every step runs on its context, one after another.
 */
public final class KeyRingReplication extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(KeyRingReplication.class);

  static final String MAP = "fulcrum.stickiness";
  static final String KEY = "keys";
  /** Published on the clustered bus after each write. */
  static final String CHANGED = "fulcrum.stickiness.changed";

  private final Vertx cluster;
  private final KeyRingVerticle keys;
  private AsyncMap<String, String> map;
  /** The map's entry this process's ring is, as last taken or written. */
  private String taken;
  private Future<?> turns = Future.succeededFuture();
  private long timer = -1;
  private MessageConsumer<Void> announcements;

  /**
   * @param cluster the clustered Vert.x whose map and bus carry the ring
   * @param keys    this process's key ring owner, deployed
   */
  public KeyRingReplication(Vertx cluster, KeyRingVerticle keys) {
    this.cluster = cluster;
    this.keys = keys;
  }

  @Override
  public Future<?> start() {
    return completingHere(cluster.sharedData().<String, String>getAsyncMap(MAP)).compose(m -> {
      map = m;
      announcements = cluster.eventBus().<Void>consumer(CHANGED, msg -> context.runOnContext(v -> inTurn(this::sync)));
      vertx.eventBus().<KeyRing>localConsumer(Addresses.STICKINESS_KEYS, msg -> inTurn(() -> offer(msg.body())));
      // An announcement lost is repaired by the next look, as for the resources.
      timer = vertx.setPeriodic(Long.getLong("fulcrum.cluster.checkMillis", 30_000), id -> inTurn(this::sync));
      return inTurn(this::seedOrTake);
    });
  }

  @Override
  public Future<?> stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    return announcements == null ? Future.succeededFuture() : announcements.unregister();
  }

  /** A ring this process changed: the cluster's, if nobody changed the cluster's first. */
  private Future<Void> offer(KeyRing ring) {
    String text = KeyRingFile.format(ring);
    if (text.equals(taken)) {
      return Future.succeededFuture(); // the cluster's, which this process just took
    }
    return completingHere(map.replaceIfPresent(KEY, taken, text)).compose(replaced -> {
      if (!replaced) {
        LOG.warn("the stickiness keys changed here and on another process at once: this process takes the"
            + " cluster's (rotate on one process at a time)");
        return sync();
      }
      taken = text;
      cluster.eventBus().publish(CHANGED, null);
      LOG.info("stickiness keys given to the cluster: {}", ring);
      return Future.succeededFuture();
    });
  }

  /** Takes the map's entry when it is not this process's ring; gives it this one's when it has none. */
  private Future<Void> sync() {
    return completingHere(map.get(KEY)).compose(entry -> entry == null ? seedOrTake()
        : entry.equals(taken) ? Future.succeededFuture() : take(entry));
  }

  /** Gives the map this process's ring when it has none, or takes the one it has. */
  private Future<Void> seedOrTake() {
    String mine = KeyRingFile.format(keys.ring());
    return completingHere(map.putIfAbsent(KEY, mine)).compose(existing -> {
      if (existing != null) {
        return take(existing);
      }
      taken = mine;
      return Future.succeededFuture();
    });
  }

  private Future<Void> take(String entry) {
    KeyRing ring;
    try {
      ring = KeyRingFile.parse(entry, "the cluster's stickiness keys");
    } catch (KeyRingFile.InvalidKeyFileException e) {
      return Future.failedFuture(e);
    }
    taken = entry;
    return completingHere(keys.adopt(ring));
  }

  /** Runs {@code step} on this verticle's context after every step before it. */
  private <T> Future<T> inTurn(Supplier<Future<T>> step) {
    Future<T> f = turns.transform(ignored -> {
      try {
        return step.get();
      } catch (RuntimeException e) {
        return Future.failedFuture(e);
      }
    });
    turns = f.otherwiseEmpty();
    f.onFailure(e -> LOG.error("sharing the stickiness keys with the cluster failed: {}", e.toString()));
    return f;
  }

  /** {@code f}, completing on this verticle's context (the clustered Vert.x completes on its own). */
  private <T> Future<T> completingHere(Future<T> f) {
    io.vertx.core.Promise<T> p = io.vertx.core.Promise.promise();
    f.onComplete(ar -> context.runOnContext(v -> p.handle(ar)));
    return p.future();
  }
}
