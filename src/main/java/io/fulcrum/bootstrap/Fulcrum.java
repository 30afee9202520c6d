package io.fulcrum.bootstrap;

import io.fulcrum.admin.ControlVerticle;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.HealthReport;
import io.fulcrum.bus.LocalCodec;
import io.fulcrum.health.HealthCheckVerticle;
import io.fulcrum.keys.KeyRingVerticle;
import io.fulcrum.listener.AppliedVersions;
import io.fulcrum.time.Timers;
import io.fulcrum.time.VertxTimers;
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
  private final HealthCheckVerticle health;
  private final KeyRingVerticle keys;
  private ControlVerticle control;
  private String listenersDeployment;
  private volatile boolean ready;

  private final AppliedVersions applied = new AppliedVersions();

  private Fulcrum(Vertx vertx, FulcrumConfig config, Timers timers, SplittableRandom healthRandom) {
    this.vertx = vertx;
    this.config = config;
    this.registry = new RegistryVerticle(config.environment(), config.resources(), timers);
    this.health = new HealthCheckVerticle(timers, healthRandom);
    this.keys = new KeyRingVerticle(config.dataDir(), config.reload().scanPeriodMillis());
  }

  /**
   * Deploys Fulcrum on {@code vertx}.
   *
   * @param instances listener verticle instances (one per event loop is the default in Main)
   * @param clock     the time source given to every component
   */
  public static Future<Fulcrum> start(Vertx vertx, FulcrumConfig config, int instances, Clock clock) {
    return start(vertx, config, instances, clock, new VertxTimers(vertx, clock));
  }

  /**
   * Deploys Fulcrum with its time source: {@code clock} for timestamps, {@code timers} for the
   * control plane's intervals and delays (health checks, deregistration). Tests pass a virtual one.
   */
  public static Future<Fulcrum> start(Vertx vertx, FulcrumConfig config, int instances, Clock clock, Timers timers) {
    LocalCodec.registerAll(vertx);
    long seed = config.randomSeed().orElse(new SplittableRandom().nextLong());
    Fulcrum f = new Fulcrum(vertx, config, timers, new SplittableRandom(seed - 1));
    Future<?> demo = config.demoTargets().isEmpty() ? Future.succeededFuture()
        : vertx.deployVerticle(new DemoTargetsVerticle(config.demoTargets()));
    return demo
        .compose(v -> vertx.deployVerticle(f.registry))
        .compose(v -> vertx.deployVerticle(f.health))
        .compose(v -> vertx.deployVerticle(f.keys))
        .compose(v -> {
          f.control = new ControlVerticle(config.control().address(), config.control().port(), () -> f.ready,
              () -> f.config.environment().zones());
          return vertx.deployVerticle(f.control).recover(e -> Future.failedFuture("the control plane cannot listen on "
              + Banner.host(config.control().address()) + ":" + config.control().port() + ": " + e.getMessage()));
        })
        .compose(v -> {
          AtomicInteger index = new AtomicInteger();
          return vertx.deployVerticle(() -> {
                int i = index.getAndIncrement();
                return new ListenerVerticle(clock, new SplittableRandom(seed + i),
                    () -> f.config.shutdownTimeoutSeconds() * 1000L, f.applied.slot(i));
              },
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
    return registry.replace(next.environment(), next.resources())
        .compose(v -> keys.reload())
        .mapEmpty();
  }

  /**
   * Re-reads the stickiness key file now (it is also re-read every scan period); completes with
   * true when the ring changed, once the new ring is on its way to every listener verticle.
   */
  public Future<Boolean> reloadStickinessKeys() {
    return keys.reload();
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

  /**
   * The oldest snapshot version that every listener verticle has applied: once it reaches a
   * version, every event loop routes by it.
   */
  public long appliedVersion() {
    return applied.min();
  }

  /** The registry's current snapshot version. */
  public Future<Long> snapshotVersion() {
    return vertx.eventBus().<DataPlaneSnapshot>request(Addresses.SNAPSHOT_CURRENT, null).map(m -> m.body().version());
  }

  /** Health checks sent and not yet decided. */
  public int healthChecksInFlight() {
    return health.checksInFlight();
  }

  /** The health checker's report on a target group. */
  public Future<HealthReport> health(String groupArn) {
    return vertx.eventBus().<HealthReport>request(Addresses.HEALTH_REPORT, groupArn).map(m -> m.body());
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
