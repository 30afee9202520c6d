package io.fulcrum.bootstrap;

import io.fulcrum.admin.ControlVerticle;
import io.fulcrum.admin.Dashboard;
import io.fulcrum.admin.DnsResponderVerticle;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.HealthReport;
import io.fulcrum.bus.LocalCodec;
import io.fulcrum.function.FunctionInvokerVerticle;
import io.fulcrum.health.HealthCheckVerticle;
import io.fulcrum.keys.KeyRingReplication;
import io.fulcrum.keys.KeyRingVerticle;
import io.fulcrum.listener.AppliedVersions;
import io.fulcrum.time.Timers;
import io.fulcrum.time.VertxTimers;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.demo.DemoTargetsVerticle;
import io.fulcrum.listener.ListenerVerticle;
import io.fulcrum.optimizer.TargetControlVerticle;
import io.fulcrum.listener.SocketHandover;
import io.fulcrum.model.Resources;
import io.fulcrum.registry.RegistryVerticle;
import io.fulcrum.observe.AccessLogVerticle;
import io.fulcrum.observe.Meters;
import io.fulcrum.registry.ClusterReplication;
import io.fulcrum.registry.StateStore;
import io.fulcrum.tls.SelfSignedCertificate;
import java.util.ArrayList;
import java.util.List;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Fulcrum: the verticles of one process, deployed in order (function invoker, demo
 * targets, registry, health checker, stickiness keys, access log writer, control plane, DNS
 * responder, then the listener verticle once per event loop).
 * Used by {@link Main} and by tests that run Fulcrum in-process exactly as it runs from the jar.
 */
public final class Fulcrum {

  /** Where access logs go in the data dir: a directory per bucket, as S3 keys. */
  public static final String ACCESS_LOG_DIR = "s3";

  private static final Logger LOG = LoggerFactory.getLogger(Fulcrum.class);

  private final Vertx vertx;
  private volatile FulcrumConfig config;
  private RegistryVerticle registry;
  private volatile ClusterReplication cluster;
  private volatile String keysReplication;
  private final Timers timers;
  private final HealthCheckVerticle health;
  private final TargetControlVerticle optimizer;
  private final FunctionInvokerVerticle functions;
  private final KeyRingVerticle keys;
  private ControlVerticle control;
  private DnsResponderVerticle dns;
  private volatile String listenersDeployment;
  private volatile String accessLogDeployment;
  private volatile boolean ready;

  private final AppliedVersions applied = new AppliedVersions();

  private Fulcrum(Vertx vertx, FulcrumConfig config, Timers timers, SplittableRandom healthRandom) {
    this.vertx = vertx;
    this.config = config;
    this.timers = timers;
    this.health = new HealthCheckVerticle(timers, healthRandom);
    this.optimizer = new TargetControlVerticle(timers);
    this.functions = new FunctionInvokerVerticle(config.environment().region(), config.environment().account(),
        config.environment().functions());
    this.keys = new KeyRingVerticle(config.dataDir(), config.reload().scanPeriodMillis());
  }

  /**
   * The resources to start with: the config file's, or, when the API owns them, the persisted
   * state (the config file seeds an empty store). Fails with the state file's problem when it is
   * torn or corrupt; nothing is changed then.
   */
  private static Future<RegistryVerticle> registry(Vertx vertx, FulcrumConfig config, Timers timers) {
    return vertx.executeBlocking(() -> {
      RegistryVerticle registry;
      if (config.source() != FulcrumConfig.ResourceSource.API) {
        registry = new RegistryVerticle(config.environment(), config.resources(), timers);
      } else {
        StateStore store = new StateStore(config.dataDir());
        Resources initial = store.load(config.environment()).orElse(null);
        if (initial == null) {
          LOG.info("no state in {}: seeding it from the config file", store.file());
          // From now on the API owns them: their load balancers were created now, as far as it says.
          initial = config.resources().createdAt(Instant.ofEpochMilli(timers.now()));
          store.save(initial);
        } else {
          LOG.info("resources loaded from {} (the API owns them; the config file's are not used)", store.file());
        }
        registry = new RegistryVerticle(config.environment(), initial, timers, store);
      }
      return registry.selfSigned(SelfSignedCertificate.ensure(config.dataDir(), certificateNames(config)))
          .jwksCaCertificates(config.jwks().caCertificates())
          .oidcCaCertificates(config.oidc().caCertificates())
          .keepJournalIn(config.dataDir());
    });
  }

  /** What the self-signed certificate is for: localhost, every load balancer name, every node address. */
  private static List<String> certificateNames(FulcrumConfig config) {
    List<String> names = new ArrayList<>();
    names.add("localhost");
    config.resources().loadBalancers().forEach(lb -> names.add(lb.dnsName()));
    config.environment().nodes().forEach(n -> names.add(n.address()));
    return names.stream().distinct().toList();
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
    // The function invoker first: a handler that cannot be loaded stops start-up before anything binds.
    return vertx.deployVerticle(f.functions)
        .compose(v -> config.demoTargets().isEmpty() ? Future.succeededFuture()
            : vertx.deployVerticle(new DemoTargetsVerticle(config.demoTargets())))
        .compose(v -> registry(vertx, config, timers))
        .compose(r -> {
          f.registry = r;
          return vertx.deployVerticle(r);
        })
        .compose(v -> !config.cluster().enabled() ? Future.succeededFuture()
            : ClusterReplication.join(config.cluster(), f.registry).map(c -> {
              f.cluster = c;
              return null;
            }).recover(e -> Future.failedFuture("cannot join the cluster '" + config.cluster().name() + "' on "
                + Banner.host(config.cluster().host()) + ":" + config.cluster().port() + ": " + e.getMessage())))
        .compose(v -> vertx.deployVerticle(f.optimizer))
        .compose(v -> vertx.deployVerticle(f.keys))
        // In a cluster, the stickiness keys are the cluster's: a cookie one process seals, every other reads.
        .compose(v -> f.cluster == null ? Future.succeededFuture()
            : vertx.deployVerticle(new KeyRingReplication(f.cluster.clustered(), f.keys)).map(id -> {
              f.keysReplication = id;
              return null;
            }))
        // The access log's writer, before the listeners, which build lines only while it is there. Its file
        // names' random part is never seeded: two processes writing to one bucket must not collide.
        .compose(v -> vertx.deployVerticle(new AccessLogVerticle(config.dataDir().resolve(ACCESS_LOG_DIR), timers,
            new SplittableRandom()), new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER)))
        .compose(id -> {
          f.accessLogDeployment = id;
          return Future.succeededFuture();
        })
        .compose(v -> {
          f.control = new ControlVerticle(config.control().address(), config.control().port(), () -> f.ready,
              () -> f.config.environment().zones(), Apis.create(f, config, clock, timers)).gauges(f.registry::gauges)
              .channels(f.optimizer::channelCounts)
              .cluster(() -> f.cluster == null ? null : f.cluster.describe())
              .dashboard(new Dashboard(new FulcrumApiContext(f, timers), f.registry::gauges,
                  () -> Meters.of(vertx).collect(), f.optimizer::agent));
          return vertx.deployVerticle(f.control).recover(e -> Future.failedFuture("the control plane cannot listen on "
              + Banner.host(config.control().address()) + ":" + config.control().port() + ": " + e.getMessage()));
        })
        .compose(v -> {
          FulcrumConfig.Dns d = config.dns();
          if (!d.enabled()) {
            return Future.succeededFuture();
          }
          f.dns = new DnsResponderVerticle(d.address(), d.port(), () -> f.config.dns().domain());
          String at = Banner.host(d.address()) + ":" + d.port();
          return vertx.deployVerticle(f.dns).recover(e -> Future.failedFuture("the DNS responder cannot listen on udp://"
              + at + " and tcp://" + at + ": " + e.getMessage()));
        })
        .compose(v -> {
          AtomicInteger index = new AtomicInteger();
          SocketHandover handover = new SocketHandover(instances);
          return vertx.deployVerticle(() -> {
                int i = index.getAndIncrement();
                return new ListenerVerticle(clock, new SplittableRandom(seed + i),
                    () -> f.config.shutdownTimeoutSeconds() * 1000L, f.applied.slot(i), handover, i, timers);
              },
              new DeploymentOptions().setInstances(instances));
        })
        .compose(id -> {
          f.listenersDeployment = id;
          // Checks start once every listener listens: an application load balancer registered as a target of a
          // network one is one of them, and would fail its first check otherwise (a check interval lost).
          return vertx.deployVerticle(f.health);
        })
        .map(id -> {
          f.ready = true;
          return f;
        });
  }

  /**
   * Applies a new configuration (hot reload); connections and in-flight requests are kept. When
   * the API owns the resources, the file's load balancers and target groups are not applied.
   */
  public Future<Void> reload(FulcrumConfig next) {
    FulcrumConfig previous = config;
    if (!previous.control().equals(next.control()) || !previous.demoTargets().equals(next.demoTargets())
        || !previous.dataDir().equals(next.dataDir()) || !sameSocket(previous.dns(), next.dns())
        || previous.source() != next.source() || !previous.cluster().equals(next.cluster())) {
      LOG.warn("changes to control, dns (enabled, address, port), demo, data-dir, resources.source and cluster apply"
          + " at the next start");
    }
    config = next;
    Resources resources = next.resources();
    if (previous.source() == FulcrumConfig.ResourceSource.API) {
      if (!next.resources().equals(previous.resources())) {
        LOG.warn("the config file's load balancers and target groups are ignored: the API owns them");
      }
      resources = registry.resources();
    }
    Resources apply = resources;
    // New and changed function handlers are loaded before any target group can route to them.
    return functions.update(next.environment().functions())
        .compose(v -> registry.replace(next.environment(), apply))
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

  /** The target optimizer's control channels. */
  public TargetControlVerticle targetControl() {
    return optimizer;
  }

  /** The registry: the API reads resources from it and sends it every change. */
  public RegistryVerticle registry() {
    return registry;
  }

  /**
   * Applies an API change: through the cluster when this process is in one ({@link ClusterReplication}),
   * else through the registry alone.
   */
  public Future<RegistryVerticle.MutationResult> mutate(java.util.function.Function<Resources, Resources> change) {
    ClusterReplication c = cluster;
    return c == null ? registry.mutate(change) : c.mutate(change);
  }

  /** The stickiness key ring in use. */
  public io.fulcrum.sticky.KeyRing stickinessKeys() {
    return keys.ring();
  }

  /** The cluster this process shares its resources with, or null. */
  public ClusterReplication cluster() {
    return cluster;
  }

  /** Completes once every listener verticle routes by snapshot {@code version} or a later one. */
  public Future<Void> awaitApplied(long version) {
    if (applied.min() >= version) {
      return Future.succeededFuture();
    }
    io.vertx.core.Promise<Void> p = io.vertx.core.Promise.promise();
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(5);
    vertx.setPeriodic(1, id -> {
      if (applied.min() >= version) {
        vertx.cancelTimer(id);
        p.tryComplete();
      } else if (System.nanoTime() > deadline) {
        vertx.cancelTimer(id);
        p.tryFail("the listeners did not apply snapshot " + version + " within 5 s");
      }
    });
    return p.future();
  }

  private static boolean sameSocket(FulcrumConfig.Dns a, FulcrumConfig.Dns b) {
    return a.enabled() == b.enabled() && a.address().equals(b.address()) && a.port() == b.port();
  }

  /**
   * Stops accepting connections and lets in-flight requests finish (up to the configured shutdown
   * timeout). Readiness turns 503 at once. The caller closes the Vert.x instance afterwards, from a
   * thread of its own (closing it from one of its event loops would wait on itself).
   */
  public Future<Void> shutdown() {
    ready = false;
    String id = listenersDeployment;
    // A second call (a test closing a gateway it already shut down) finds nothing left to undeploy.
    listenersDeployment = null;
    Future<?> listeners = id == null ? Future.succeededFuture() : vertx.undeploy(id);
    // Then the access log's writer, which completes its files with what the listeners handed over as they stopped.
    String log = accessLogDeployment;
    accessLogDeployment = null;
    ClusterReplication member = cluster;
    cluster = null;
    String keysShared = keysReplication;
    keysReplication = null;
    return listeners.transform(ar -> log == null ? Future.succeededFuture() : vertx.undeploy(log))
        // Then the cluster, which this process leaves once it serves nothing more.
        .transform(ar -> keysShared == null ? Future.succeededFuture() : vertx.undeploy(keysShared))
        .transform(ar -> member == null ? Future.succeededFuture() : member.close())
        .mapEmpty();
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

  /** Anomaly detection results of a target group's targets, by target key. */
  public Future<java.util.Map<String, io.fulcrum.model.AnomalyDetection>> anomalies(String groupArn) {
    return registry.anomalies(groupArn);
  }

  /** Whether the registry has taken in every health decision published so far. */
  public boolean registryCaughtUpWithHealth() {
    return registry.healthReceived() >= health.healthPublished();
  }

  /** Whether the health checker watches the registry's latest registrations (a reload has reached it). */
  public boolean healthCheckerCaughtUp() {
    return health.registrationsVersion() >= registry.registrationsVersion();
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

  /** The DNS responder's UDP port (useful when it was configured as 0), or -1 when it is disabled. */
  public int dnsPort() {
    return dns == null ? -1 : dns.actualPort();
  }
}
