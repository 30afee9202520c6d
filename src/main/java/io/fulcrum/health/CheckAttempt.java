package io.fulcrum.health;

import io.fulcrum.time.Timers;
import io.vertx.core.Handler;

/**
 * One health check in flight over a connection: when it started, the timer of its timeout, and
 * its result, of which the first wins (the answer or the timeout). {@link #ended} and
 * {@link #timedOut} let a prober close what the check opened. Touched only on the health
 * checker's context.
 */
class CheckAttempt {

  private final Timers timers;
  private final Handler<CheckResult> result;
  /** When the check started, on {@link Timers}'s clock. */
  final long start;
  private long timer = -1;
  private boolean done;

  /** Starts the check's timeout of {@code timeoutMillis}, which fails it with {@code onTimeout}. */
  CheckAttempt(Timers timers, long timeoutMillis, Handler<CheckResult> result,
      java.util.function.LongFunction<CheckResult> onTimeout) {
    this.timers = timers;
    this.result = result;
    this.start = timers.now();
    this.timer = timers.setTimer(timeoutMillis, id -> {
      timer = -1;
      if (finish(onTimeout.apply(timers.now() - start))) {
        timedOut();
      }
    });
  }

  /** Whether the check has its result. */
  boolean done() {
    return done;
  }

  /** The milliseconds since the check started. */
  long elapsed() {
    return timers.now() - start;
  }

  /** Gives the check its result, unless it has one; @return whether this one counted. */
  boolean finish(CheckResult r) {
    if (done) {
      return false;
    }
    done = true;
    if (timer != -1) {
      timers.cancelTimer(timer);
      timer = -1;
    }
    ended();
    result.handle(r);
    return true;
  }

  /** The check has its result: what it opened can go. */
  void ended() {
  }

  /** The check's time ran out before its answer (after {@link #ended}). */
  void timedOut() {
  }
}
