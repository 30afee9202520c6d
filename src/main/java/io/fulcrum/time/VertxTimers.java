package io.fulcrum.time;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import java.time.Clock;

/** {@link Timers} on Vert.x timers and the system clock. */
public final class VertxTimers implements Timers {

  private final Vertx vertx;
  private final Clock clock;

  public VertxTimers(Vertx vertx, Clock clock) {
    this.vertx = vertx;
    this.clock = clock;
  }

  @Override
  public long now() {
    return clock.millis();
  }

  @Override
  public long setTimer(long delayMillis, Handler<Long> handler) {
    return vertx.setTimer(Math.max(1, delayMillis), handler);
  }

  @Override
  public boolean cancelTimer(long id) {
    return vertx.cancelTimer(id);
  }
}
