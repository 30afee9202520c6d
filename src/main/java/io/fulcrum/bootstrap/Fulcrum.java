package io.fulcrum.bootstrap;

import io.fulcrum.admin.ControlVerticle;
import io.fulcrum.bus.LocalCodec;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.demo.DemoTargetsVerticle;
import io.fulcrum.listener.ListenerVerticle;
import io.fulcrum.registry.RegistryVerticle;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Fulcrum: the verticles of one process, deployed in order (demo targets, registry,
 * control plane, then the listener verticle once per event loop). Used by {@link Main} and by
 * tests that run Fulcrum in-process exactly as it runs from the jar.
 */
public final class Fulcrum {

  private static final Logger LOG = LoggerFactory.getLogger(Fulcrum.class);

  private final Vertx vertx;
  private volatile FulcrumConfig config;
  private final RegistryVerticle registry;
  private ControlVerticle control;
  private String listenersDeployment;
  private volatile boolean ready;

  private Fulcrum(Vertx vertx, FulcrumConfig config) {
    this.vertx = vertx;
    this.config = config;
    this.registry = new RegistryVerticle(config.environment(), config.resources());
  }

  /**
   * Deploys Fulcrum on {@code vertx}.
   *
   * @param instances listener verticle instances (one per event loop is the default in Main)
   * @param clock     the time source given to every component
   */
  public static Future<Fulcrum> start(Vertx vertx, FulcrumConfig config, int instances, Clock clock) {
    LocalCodec.registerAll(vertx);
    Fulcrum f = new Fulcrum(vertx, config);
    Future<?> demo = config.demoTargets().isEmpty() ? Future.succeededFuture()
        : vertx.deployVerticle(new DemoTargetsVerticle(config.demoTargets()));
    return demo
        .compose(v -> vertx.deployVerticle(f.registry))
        .compose(v -> {
          f.control = new ControlVerticle(config.control().address(), config.control().port(), () -> f.ready,
              () -> f.config.environment().zones());
          return vertx.deployVerticle(f.control).recover(e -> Future.failedFuture("the control plane cannot listen on "
              + Banner.host(config.control().address()) + ":" + config.control().port() + ": " + e.getMessage()));
        })
        .compose(v -> {
          AtomicInteger index = new AtomicInteger();
          long seed = config.randomSeed().orElse(new SplittableRandom().nextLong());
          return vertx.deployVerticle(() -> new ListenerVerticle(clock, new SplittableRandom(seed + index.getAndIncrement()),
                  () -> f.config.shutdownTimeoutSeconds() * 1000L),
              new DeploymentOptions().setInstances(instances));
        })
        .map(id -> {
          f.listenersDeployment = id;
          f.ready = true;
          return f;
        });
  }

  /** Applies a new configuration (hot reload); connections and in-flight requests are kept. */
  public Future<Void> reload(FulcrumConfig next) {
    FulcrumConfig previous = config;
    if (!previous.control().equals(next.control()) || !previous.demoTargets().equals(next.demoTargets())
        || !previous.dataDir().equals(next.dataDir())) {
      LOG.warn("changes to control, demo and data-dir apply at the next start");
    }
    config = next;
    return registry.replace(next.environment(), next.resources()).mapEmpty();
  }

  /**
   * Stops accepting connections and lets in-flight requests finish (up to the configured shutdown
   * timeout). Readiness turns 503 at once. The caller closes the Vert.x instance afterwards, from a
   * thread of its own (closing it from one of its event loops would wait on itself).
   */
  public Future<Void> shutdown() {
    ready = false;
    Future<?> listeners = listenersDeployment == null ? Future.succeededFuture() : vertx.undeploy(listenersDeployment);
    return listeners.mapEmpty();
  }

  public FulcrumConfig config() {
    return config;
  }

  public boolean ready() {
    return ready;
  }

  /** The control plane's port (useful when it was configured as 0). */
  public int controlPort() {
    return control.actualPort();
  }
}
