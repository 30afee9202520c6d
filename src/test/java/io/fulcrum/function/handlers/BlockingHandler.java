package io.fulcrum.function.handlers;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A function that holds each invocation until the test releases it (no sleeping: it waits on a
 * latch), for concurrency, timeouts and deregistration in flight. Takes and returns maps.
 */
public class BlockingHandler implements RequestHandler<Map<String, Object>, Map<String, Object>> {

  /** Invocations that have started. */
  public static final Semaphore STARTED = new Semaphore(0);
  private static final java.util.concurrent.atomic.AtomicInteger INSTANCES = new java.util.concurrent.atomic.AtomicInteger();
  /** Which instance this is (1, 2, ...): an execution environment of its own per concurrent invocation. */
  private final int instance = INSTANCES.incrementAndGet();
  /** Invocations this instance ran; a handler need not be thread-safe, so a plain field. */
  private int invocations;
  private static volatile CountDownLatch release = new CountDownLatch(1);

  /** Invocations whose thread was interrupted while held. */
  public static final java.util.concurrent.atomic.AtomicInteger INTERRUPTED = new java.util.concurrent.atomic.AtomicInteger();

  /** Holds every invocation from now on until {@link #releaseAll()}. */
  public static void reset() {
    INTERRUPTED.set(0);
    STARTED.drainPermits();
    release = new CountDownLatch(1);
  }

  public static void releaseAll() {
    release.countDown();
  }

  /**
   * Holds the invocation until released; an interrupt ends the wait, except on a path ending in
   * {@code /stubborn}, which waits on (a handler that ignores interrupts).
   */
  @Override
  public Map<String, Object> handleRequest(Map<String, Object> event, Context context) {
    boolean stubborn = String.valueOf(event.get("path")).endsWith("/stubborn");
    STARTED.release();
    while (true) {
      try {
        // Bounded, so that a test that forgets to release cannot hold a worker forever.
        release.await(60, TimeUnit.SECONDS);
        break;
      } catch (InterruptedException e) {
        INTERRUPTED.incrementAndGet();
        if (!stubborn) {
          Thread.currentThread().interrupt();
          break;
        }
      }
    }
    invocations++;
    return Map.of("statusCode", 200, "body", "released " + event.get("path"),
        "headers", Map.of("X-Instance", Integer.toString(instance), "X-Invocations", Integer.toString(invocations)));
  }
}
