package io.fulcrum.observe;

import io.fulcrum.time.Timers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.random.RandomGenerator;
import java.util.zip.Deflater;
import java.util.zip.GZIPOutputStream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the access log (SPEC §11.5) as ALB delivers it: one gzip file per load balancer node and
 * 5-minute period, named and placed as ALB's S3 keys, in a directory per bucket. Deployed as a
 * worker verticle: every file operation runs on its thread, never on an event loop. At the end of
 * each period it collects the lines every loop holds and closes that period's files; a file is
 * written under a hidden temporary name and appears under its own only once complete. Lines that
 * come after their period's file closed (rare: a loop that handed them over late) go to a second
 * file of that period, as ALB may deliver several.
 */
public final class AccessLogVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(AccessLogVerticle.class);
  private static final char[] RANDOM = "abcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

  private record Key(LogDestination destination, long periodEnd) {
  }

  private record OpenFile(Path temporary, Path complete, OutputStream out) {
  }

  private final Path root;
  private final Timers timers;
  private final RandomGenerator random;
  private final Map<Key, OpenFile> open = new HashMap<>();
  private AccessLogs logs;
  private long timer = -1;
  private boolean stopped;

  /**
   * @param root   where the buckets are (a directory each)
   * @param timers the period's end (a virtual clock in tests)
   * @param random the files' random suffixes
   */
  public AccessLogVerticle(Path root, Timers timers, RandomGenerator random) {
    this.root = root;
    this.timers = timers;
    this.random = random;
  }

  @Override
  public Future<?> start() {
    logs = AccessLogs.of(vertx);
    logs.writer(chunk -> context.runOnContext(v -> write(chunk)));
    schedule();
    return Future.succeededFuture();
  }

  /** Collects what the loops hold and closes every file. */
  @Override
  public Future<?> stop() {
    stopped = true;
    timers.cancelTimer(timer);
    logs.writer(null);
    Promise<Void> done = Promise.promise();
    logs.collect().onComplete(ar -> context.runOnContext(v -> {
      if (ar.succeeded()) {
        ar.result().forEach(this::write);
      }
      closeThrough(Long.MAX_VALUE);
      done.complete();
    }));
    return done.future();
  }

  private void schedule() {
    long now = timers.now();
    long end = LogDestination.periodEnd(now);
    timer = timers.setTimer(end - now, id -> periodEnded(end));
  }

  /** The period that ends at {@code end} is over: its lines are collected and its files closed. */
  private void periodEnded(long end) {
    timer = -1;
    if (stopped) {
      return;
    }
    logs.collect().onComplete(ar -> context.runOnContext(v -> {
      if (ar.succeeded()) {
        ar.result().forEach(this::write);
      } else {
        LOG.warn("collecting access log lines failed: {}", ar.cause().getMessage());
      }
      closeThrough(end);
      if (!stopped) {
        schedule();
      }
    }));
  }

  private void write(LoopLog.Chunk chunk) {
    Key key = new Key(chunk.destination(), chunk.periodEnd());
    OpenFile f = open.get(key);
    try {
      if (f == null) {
        f = create(key);
        open.put(key, f);
      }
      f.out().write(chunk.text().getBytes(StandardCharsets.ISO_8859_1));
    } catch (IOException e) {
      LOG.warn("access log lines for {} lost: {}", chunk.destination().loadBalancer(), e.getMessage());
    }
  }

  private OpenFile create(Key key) throws IOException {
    Path dir = key.destination().directory(root, key.periodEnd());
    Files.createDirectories(dir);
    char[] suffix = new char[8];
    for (int i = 0; i < suffix.length; i++) {
      suffix[i] = RANDOM[random.nextInt(RANDOM.length)];
    }
    String name = key.destination().fileName(key.periodEnd(), new String(suffix));
    Path temporary = dir.resolve("." + name + ".tmp");
    OutputStream out = new GZIPOutputStream(new BufferedOutputStream(Files.newOutputStream(temporary), 64 * 1024),
        64 * 1024) {
      {
        // The fastest level: the writer spends under half the default level's CPU per line, for files a
        // quarter larger (loadtest/RESULTS.md, "What the access log costs").
        def.setLevel(Deflater.BEST_SPEED);
      }
    };
    return new OpenFile(temporary, dir.resolve(name), out);
  }

  /** Closes the files of periods that end at or before {@code end}, each then appearing under its name. */
  private void closeThrough(long end) {
    for (Iterator<Map.Entry<Key, OpenFile>> it = open.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<Key, OpenFile> e = it.next();
      if (e.getKey().periodEnd() > end) {
        continue;
      }
      it.remove();
      OpenFile f = e.getValue();
      try {
        f.out().close();
        Files.move(f.temporary(), f.complete(), StandardCopyOption.ATOMIC_MOVE);
      } catch (IOException ex) {
        LOG.warn("access log file {} could not be completed: {}", f.complete(), ex.getMessage());
      }
    }
  }
}
