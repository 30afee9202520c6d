package io.fulcrum.testing;

import io.fulcrum.time.Timers;
import io.vertx.core.Context;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.PriorityQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A virtual clock and timers for tests: time stands still until the test calls
 * {@link #advance(Duration)}, which runs every timer that falls due, in time order, each on the
 * context that set it, and waits for each to finish. Health-check intervals, thresholds and
 * deregistration delays are so driven exactly, with no sleeping.
 *
 * <p>Timers must be set from a Vert.x context; {@link #advance} must be called from a test thread.
 */
public final class VirtualTime extends Clock implements Timers {

  /** 2026-01-01T00:00:00Z: a fixed start, so runs are reproducible. */
  public static final long START = 1_767_225_600_000L;

  private record Task(long at, long seq, long id, Context context, Handler<Long> handler) {
  }

  private final PriorityQueue<Task> queue = new PriorityQueue<>((a, b) ->
      a.at != b.at ? Long.compare(a.at, b.at) : Long.compare(a.seq, b.seq));
  private volatile long now;
  private final long start;
  private long seq;
  private long ids;

  public VirtualTime() {
    this(START);
  }

  /** A virtual clock that starts at {@code startMillis} (e.g. today, for cookies a real jar keeps). */
  public VirtualTime(long startMillis) {
    this.start = startMillis;
    this.now = startMillis;
  }

  @Override
  public long now() {
    return now;
  }

  @Override
  public synchronized long setTimer(long delayMillis, Handler<Long> handler) {
    Context ctx = Vertx.currentContext();
    if (ctx == null) {
      throw new IllegalStateException("virtual timers must be set from a Vert.x context");
    }
    long id = ++ids;
    queue.add(new Task(now + Math.max(1, delayMillis), ++seq, id, ctx, handler));
    return id;
  }

  @Override
  public synchronized boolean cancelTimer(long id) {
    return queue.removeIf(t -> t.id == id);
  }

  /** How many timers are pending (tests use it to see that checks are scheduled). */
  public synchronized int pending() {
    return queue.size();
  }

  /** Moves time forward, running every timer due by then. */
  public void advance(Duration d) {
    advance(d, () -> true);
  }

  /**
   * Moves time forward, running every timer due by then; after each one, waits (in real time, up
   * to 10 s) until {@code settled} holds before time moves on. With {@code settled} = "no health
   * check in flight", a check's answer is in before its timeout can fall due.
   */
  public void advance(Duration d, java.util.function.BooleanSupplier settled) {
    long target = now + d.toMillis();
    while (true) {
      Task t;
      synchronized (this) {
        t = queue.peek();
        if (t == null || t.at > target) {
          break;
        }
        queue.poll();
        now = t.at;
      }
      CountDownLatch ran = new CountDownLatch(1);
      t.context.runOnContext(v -> {
        try {
          t.handler.handle(t.id);
        } finally {
          ran.countDown();
        }
      });
      try {
        if (!ran.await(10, TimeUnit.SECONDS)) {
          throw new IllegalStateException("a timer handler did not finish within 10 s");
        }
        org.awaitility.Awaitility.await("settled after the timer due at " + (t.at - start) + " ms")
            .atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(1)).pollDelay(Duration.ZERO)
            .until(settled::getAsBoolean);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    }
    now = target;
  }

  public void advanceSeconds(long seconds) {
    advance(Duration.ofSeconds(seconds));
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    return Instant.ofEpochMilli(now);
  }

  @Override
  public long millis() {
    return now;
  }
}
