package io.fulcrum.admin;

import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.ZoneStatus;
import io.vertx.core.Future;
import io.vertx.core.Vertx;

/**
 * The latest {@link ZoneStatus} the registry published: subscribes to {@link Addresses#ZONES},
 * then asks for the current one, and keeps whichever is newer (a publish may overtake the reply).
 * Started from a verticle's context; read on that context, or from any thread (volatile).
 */
final class ZoneStatusFeed {

  private volatile ZoneStatus current = ZoneStatus.EMPTY;

  /** Subscribes and fetches the current status; completes once it is known. */
  Future<Void> start(Vertx vertx) {
    var consumer = vertx.eventBus().<ZoneStatus>localConsumer(Addresses.ZONES, m -> offer(m.body()));
    return consumer.completion()
        .compose(v -> vertx.eventBus().<ZoneStatus>request(Addresses.ZONES_CURRENT, null))
        .onSuccess(reply -> offer(reply.body()))
        .mapEmpty();
  }

  private void offer(ZoneStatus next) {
    if (next != null && next.version() >= current.version()) {
      current = next;
    }
  }

  ZoneStatus current() {
    return current;
  }
}
