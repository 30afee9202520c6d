package io.fulcrum.time;

import io.vertx.core.Handler;

/**
 * Time as the control plane's state machines see it: the current time and one-shot timers. The
 * production implementation is {@link VertxTimers}; tests use a virtual one they advance by hand,
 * so that intervals, thresholds and delays are tested without sleeping.
 *
 * <p>Timer handlers run on the context of the caller of {@link #setTimer}, like Vert.x timers.
 */
public interface Timers {

  /** Milliseconds since the epoch. */
  long now();

  /** Runs {@code handler} once, {@code delayMillis} from now (at least 1 ms). */
  long setTimer(long delayMillis, Handler<Long> handler);

  /** Cancels a timer; false when it already ran or was cancelled. */
  boolean cancelTimer(long id);
}
