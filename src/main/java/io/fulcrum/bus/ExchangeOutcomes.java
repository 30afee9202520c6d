package io.fulcrum.bus;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.shareddata.Shareable;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;

/**
 * Who listens to {@link ExchangeOutcome}s on one Vert.x instance. Publishing an outcome costs a
 * record and an event-bus message per request, so the listener verticles publish on
 * {@link Addresses#EXCHANGES} only while at least one consumer has subscribed here: a consumer
 * (a test's recorder) registers with {@link #subscribe}, never with a plain
 * {@code localConsumer} on the address, which would receive nothing while no one else subscribed.
 *
 * <p>Thread-safe: the listener verticles read {@link #listened()} (one volatile read) on their
 * event loops; subscriptions come and go from any thread.
 */
public final class ExchangeOutcomes implements Shareable {

  private static final String MAP = "fulcrum.bus.exchange-outcomes";
  private static final String KEY = "subscribers";
  private static final DeliveryOptions LOCAL_ONLY = new DeliveryOptions().setLocalOnly(true);
  private static final AtomicIntegerFieldUpdater<ExchangeOutcomes> SUBSCRIBERS =
      AtomicIntegerFieldUpdater.newUpdater(ExchangeOutcomes.class, "subscribers");

  private final Vertx vertx;
  private volatile int subscribers;

  private ExchangeOutcomes(Vertx vertx) {
    this.vertx = vertx;
  }

  /** The subscriptions of {@code vertx} (one object per Vert.x instance). */
  public static ExchangeOutcomes of(Vertx vertx) {
    var map = vertx.sharedData().<String, ExchangeOutcomes>getLocalMap(MAP);
    ExchangeOutcomes mine = new ExchangeOutcomes(vertx);
    ExchangeOutcomes existing = map.putIfAbsent(KEY, mine);
    return existing == null ? mine : existing;
  }

  /** Whether anyone consumes outcomes: when not, the publisher skips building them. */
  public boolean listened() {
    return subscribers > 0;
  }

  /** Publishes {@code outcome}, local only, when anyone listens. */
  public void publish(ExchangeOutcome outcome) {
    if (subscribers > 0) {
      vertx.eventBus().publish(Addresses.EXCHANGES, outcome, LOCAL_ONLY);
    }
  }

  /**
   * Registers {@code handler} for the outcome of every exchange that ends from the moment the
   * returned future completes. Cancel the subscription to stop (outcomes are built again only
   * for subscribers).
   */
  public static Future<Subscription> subscribe(Vertx vertx, Handler<ExchangeOutcome> handler) {
    ExchangeOutcomes outcomes = of(vertx);
    MessageConsumer<ExchangeOutcome> consumer = vertx.eventBus().localConsumer(Addresses.EXCHANGES,
        m -> handler.handle(m.body()));
    return consumer.completion().map(v -> {
      SUBSCRIBERS.incrementAndGet(outcomes);
      return new Subscription(outcomes, consumer);
    });
  }

  @Override
  public Shareable copy() {
    return this;
  }

  /** One consumer of outcomes. */
  public static final class Subscription {
    private final ExchangeOutcomes outcomes;
    private final MessageConsumer<ExchangeOutcome> consumer;
    private boolean cancelled;

    private Subscription(ExchangeOutcomes outcomes, MessageConsumer<ExchangeOutcome> consumer) {
      this.outcomes = outcomes;
      this.consumer = consumer;
    }

    /** Stops the handler; completes once it is unregistered. */
    public synchronized Future<Void> cancel() {
      if (cancelled) {
        return Future.succeededFuture();
      }
      cancelled = true;
      SUBSCRIBERS.decrementAndGet(outcomes);
      return consumer.unregister();
    }
  }
}
