package io.fulcrum.listener;

import io.fulcrum.observe.LoadBalancerMeters;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * The requests of one event loop that wait for a target optimizer credit (Fulcrum's decision for
 * SPEC §9: a bounded wait, {@code fulcrum.target_optimizer.queue_timeout_ms}), first come first
 * served per target group. Each waits with its body paused; when an agent grants credits to the
 * group, the loop tries its waiters in order until one finds none; past its time a waiter gets 503
 * and counts as rejected. A waiter whose client goes away leaves the queue. Touched only on the
 * owning event loop.
 */
final class OptimizerQueue {

  private final Vertx vertx;
  private final Map<String, ArrayDeque<Waiter>> byGroup = new HashMap<>();

  OptimizerQueue(Vertx vertx) {
    this.vertx = vertx;
  }

  private final class Waiter {
    final String arn;
    final LoadBalancerMeters meters;
    final BooleanSupplier attempt;
    long timer;
    boolean gone;

    Waiter(String arn, LoadBalancerMeters meters, BooleanSupplier attempt) {
      this.arn = arn;
      this.meters = meters;
      this.attempt = attempt;
    }

    /** Leaves the queue (the caller has taken it out of its deque, or does now). */
    boolean leave(boolean remove) {
      if (gone) {
        return false;
      }
      gone = true;
      vertx.cancelTimer(timer);
      meters.targetControlQueued(-1);
      if (remove) {
        ArrayDeque<Waiter> q = byGroup.get(arn);
        if (q != null) {
          q.remove(this);
        }
      }
      return true;
    }
  }

  /**
   * Parks {@code req} for at most {@code millis}: {@code attempt} runs again when credits come
   * (true: it went to a target or was answered; false: still none), {@code expired} when the time
   * is up. A request with a body is paused (the exchange resumes it when the target takes the
   * body); one without is left alone, so that its end is read.
   */
  void park(String arn, long millis, LoadBalancerMeters meters, HttpServerRequest req, boolean body,
      BooleanSupplier attempt, Runnable expired) {
    if (body) {
      req.pause();
    }
    Waiter w = new Waiter(arn, meters, attempt);
    meters.targetControlQueued(1);
    w.timer = vertx.setTimer(millis, id -> {
      if (w.leave(true)) {
        expired.run();
      }
    });
    req.response().closeHandler(v -> w.leave(true));
    byGroup.computeIfAbsent(arn, a -> new ArrayDeque<>()).addLast(w);
  }

  /** An agent of group {@code arn} granted credits: the group's waiters try again, in order. */
  void credits(String arn) {
    ArrayDeque<Waiter> q = byGroup.get(arn);
    while (q != null && !q.isEmpty()) {
      Waiter w = q.peekFirst();
      if (w.gone) {
        q.pollFirst();
        continue;
      }
      if (!w.attempt.getAsBoolean()) {
        return; // no credit left for the next either
      }
      q.pollFirst();
      w.leave(false);
    }
    if (q != null && q.isEmpty()) {
      byGroup.remove(arn);
    }
  }
}
