package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The listener verticles' departure (see {@link SocketHandover}): a drained verticle waits until
 * every verticle has drained or failed to start, on its own context, and no longer than its bound.
 */
class SocketHandoverTest {

  /** Longer than any test here runs: a wait that ends is ended by the others, not by its bound. */
  private static final long NO_BOUND = 60_000;

  private final Vertx vertx = TestVertx.create();
  private final List<Context> contexts = new ArrayList<>();

  @AfterEach
  void stop() {
    Await.result(vertx.close());
  }

  @Test
  void drainedVerticles_waitUntilTheLastHasDrained_eachOnItsOwnContext() {
    SocketHandover handover = new SocketHandover(3);
    Future<Context> first = drained(handover, NO_BOUND);
    Future<Context> second = drained(handover, NO_BOUND);
    assertThat(first.isComplete()).isFalse();
    assertThat(second.isComplete()).isFalse();
    assertThat(handover.departing()).isEqualTo(2);

    Future<Context> last = drained(handover, NO_BOUND);

    assertThat(Await.result(first)).isSameAs(contexts.get(0));
    assertThat(Await.result(second)).isSameAs(contexts.get(1));
    assertThat(Await.result(last)).isSameAs(contexts.get(2));
    assertThat(handover.departing()).isZero();
  }

  @Test
  void aVerticleThatFailedToStart_isNotWaitedFor() {
    SocketHandover handover = new SocketHandover(2);
    Future<Context> drained = drained(handover, NO_BOUND);
    assertThat(drained.isComplete()).isFalse();

    handover.withdraw();

    assertThat(Await.result(drained)).isSameAs(contexts.get(0));
  }

  @Test
  void aVerticleThatNeverDrains_isWaitedFor_noLongerThanTheBound() {
    SocketHandover handover = new SocketHandover(2);

    Future<Context> drained = drained(handover, 50);

    assertThat(Await.result(drained, 10)).isSameAs(contexts.get(0));
  }

  /**
   * Reports a drain from a context of its own and returns once it is reported; completes with the
   * context the wait ended on.
   */
  private Future<Context> drained(SocketHandover handover, long bound) {
    Context context = vertx.getOrCreateContext();
    contexts.add(context);
    Promise<Void> reported = Promise.promise();
    Promise<Context> ended = Promise.promise();
    context.runOnContext(v -> {
      handover.drained(vertx, bound).onComplete(ar -> ended.complete(Vertx.currentContext()));
      reported.complete();
    });
    Await.result(reported.future());
    return ended.future();
  }
}
