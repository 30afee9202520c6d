package io.fulcrum.keys;

import io.fulcrum.bus.Addresses;
import io.fulcrum.sticky.KeyRing;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.MessageConsumer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the stickiness key ring (control plane, deployed once): loads it at start, creating the
 * key file with a random key on first start (blocking I/O in {@code executeBlocking}), answers
 * {@link Addresses#STICKINESS_KEYS_CURRENT}, and re-reads the file every scan period (and on
 * {@link #reload()}), publishing a changed ring on {@link Addresses#STICKINESS_KEYS}. A file that
 * became unreadable or malformed is reported and the running ring stays.
 */
public final class KeyRingVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(KeyRingVerticle.class);

  private final Path file;
  private final long scanMillis;
  private volatile KeyRing ring;
  private Future<Boolean> checking;
  private String lastProblem;
  private long timer = -1;

  /**
   * @param dataDir    where the key file lives
   * @param scanMillis how often the file is re-read (0: only on {@link #reload()})
   */
  public KeyRingVerticle(Path dataDir, long scanMillis) {
    this.file = KeyRingFile.in(dataDir);
    this.scanMillis = scanMillis;
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(() -> KeyRingFile.loadOrCreate(file, new SecureRandom()))
        .recover(e -> Future.failedFuture("cannot use the stickiness key file " + file + ": " + e.getMessage()))
        .compose(loaded -> {
          ring = loaded;
          LOG.debug("stickiness keys {} from {}", ring, file);
          MessageConsumer<Object> current = vertx.eventBus().localConsumer(Addresses.STICKINESS_KEYS_CURRENT,
              m -> m.reply(ring));
          if (scanMillis > 0) {
            timer = vertx.setPeriodic(scanMillis, id -> check());
          }
          return current.completion();
        });
  }

  @Override
  public Future<?> stop() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
    return Future.succeededFuture();
  }

  /** The ring in use. */
  public KeyRing ring() {
    return ring;
  }

  /**
   * Replaces the key file with {@code next} (the cluster's keys, {@link KeyRingReplication}),
   * atomically, and the ring with it, published when it changed. Safe from any thread.
   */
  public Future<Void> adopt(KeyRing next) {
    Promise<Void> done = Promise.promise();
    context.runOnContext(v -> vertx.executeBlocking(() -> {
      KeyRingFile.write(file, next);
      return null;
    }).onSuccess(written -> {
      if (!next.equals(ring)) {
        LOG.info("stickiness keys taken from the cluster: {} -> {}", ring, next);
        ring = next;
        vertx.eventBus().publish(Addresses.STICKINESS_KEYS, next);
      }
    }).<Void>mapEmpty().onComplete(done));
    return done.future();
  }

  /** Re-reads the key file now; true when the ring changed and was published. */
  public Future<Boolean> reload() {
    Promise<Boolean> done = Promise.promise();
    context.runOnContext(v -> check().onComplete(done));
    return done.future();
  }

  private Future<Boolean> check() {
    if (checking != null) {
      return checking;
    }
    // Marked before the read starts: a read that completes at once runs the whole chain before
    // readFile returns, and must still find the mark to clear.
    Promise<Boolean> done = Promise.promise();
    checking = done.future();
    vertx.fileSystem().readFile(file.toString())
        .map(buffer -> {
          KeyRing next;
          try {
            next = KeyRingFile.parse(buffer.toString(StandardCharsets.UTF_8), file.toString());
          } catch (KeyRingFile.InvalidKeyFileException e) {
            throw new IllegalStateException(e.getMessage(), e);
          }
          lastProblem = null;
          if (next.equals(ring)) {
            return false;
          }
          LOG.info("stickiness keys changed: {} -> {}", ring, next);
          ring = next;
          vertx.eventBus().publish(Addresses.STICKINESS_KEYS, next);
          return true;
        })
        .recover(e -> {
          String problem = e.getMessage();
          if (!problem.equals(lastProblem)) {
            LOG.error("the stickiness key file cannot be used ({}); the running keys stay", problem);
            lastProblem = problem;
          }
          return Future.succeededFuture(false);
        })
        .onComplete(ar -> {
          checking = null;
          done.handle(ar);
        });
    return done.future();
  }
}
