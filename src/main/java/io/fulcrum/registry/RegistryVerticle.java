package io.fulcrum.registry;

import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Resources;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authoritative store of resources. Every change builds a new immutable snapshot, off the
 * request path, and publishes it to the listener verticles; a verticle that starts later asks for
 * the current one. One instance per process; its state is touched only on its own context.
 */
public final class RegistryVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(RegistryVerticle.class);

  private volatile Environment environment;
  private volatile Resources resources;
  private DataPlaneSnapshot current;

  public RegistryVerticle(Environment environment, Resources resources) {
    this.environment = environment;
    this.resources = resources;
  }

  @Override
  public Future<?> start() {
    current = SnapshotBuilder.build(1, environment, resources);
    return vertx.eventBus().<Void>localConsumer(Addresses.SNAPSHOT_CURRENT, m -> m.reply(current)).completion();
  }

  /**
   * Replaces the resources (a config reload) and publishes the new snapshot. Safe to call from
   * any thread: the work runs on the registry's context.
   */
  public Future<DataPlaneSnapshot> replace(Environment env, Resources next) {
    Promise<DataPlaneSnapshot> done = Promise.promise();
    context.runOnContext(v -> {
      environment = env;
      resources = next;
      current = SnapshotBuilder.build(current.version() + 1, env, next);
      vertx.eventBus().publish(Addresses.SNAPSHOT, current);
      LOG.info("applied configuration version {} ({} listeners, {} target groups in use)", current.version(),
          current.listeners().size(), current.groups().size());
      done.complete(current);
    });
    return done.future();
  }

  /** The current resources; readable from any thread. */
  public Resources resources() {
    return resources;
  }
}
