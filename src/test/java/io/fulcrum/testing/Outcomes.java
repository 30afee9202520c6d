package io.fulcrum.testing;

import static org.awaitility.Awaitility.await;

import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.bus.ExchangeOutcomes;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Records the {@link ExchangeOutcome} of every exchange a gateway's listeners finish, in order, as
 * the access log will read them.
 */
public final class Outcomes implements AutoCloseable {

  private final LinkedBlockingQueue<ExchangeOutcome> queue = new LinkedBlockingQueue<>();
  private final ExchangeOutcomes.Subscription subscription;

  private Outcomes(Gateway gateway) {
    subscription = Await.result(ExchangeOutcomes.subscribe(gateway.vertx(), queue::add));
  }

  /** Starts recording (only exchanges that end from now on). */
  public static Outcomes record(Gateway gateway) {
    return new Outcomes(gateway);
  }

  /** The next outcome, waiting up to 10 s for it. */
  public ExchangeOutcome next() {
    ExchangeOutcome[] got = new ExchangeOutcome[1];
    await("an exchange outcome").atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(2))
        .until(() -> (got[0] = queue.poll()) != null);
    return got[0];
  }

  /** Outcomes recorded and not yet taken. */
  public int pending() {
    return queue.size();
  }

  @Override
  public void close() {
    Await.result(subscription.cancel());
  }
}
