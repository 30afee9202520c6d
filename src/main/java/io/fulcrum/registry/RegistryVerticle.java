package io.fulcrum.registry;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.AgentChannelChange;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.GroupHealth;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.bus.Registrations;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.jwt.KeySource;
import io.fulcrum.jwt.KeySources;
import io.fulcrum.oidc.IdpClient;
import io.fulcrum.routing.RouteTable;
import io.fulcrum.model.AnomalyDetection;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Environment;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.observe.GroupGauges;
import io.fulcrum.time.Timers;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The authoritative store of resources and of their registration lifecycle: which targets are
 * registered, which are draining (and until when), and the latest health of each group.
 *
 * <p>Every change (a new configuration, a health decision, the end of a deregistration delay)
 * builds a new immutable {@link DataPlaneSnapshot}, off the request path, and publishes it to the
 * listener verticles; changes to what must be checked are published to the health checker as
 * {@link Registrations}. One instance per process; its state is touched only on its own context.
 *
 * <p>Three concerns keep their state in classes of their own, which it alone uses, on its context:
 * the draining targets and their timers ({@link Deregistrations}), slow start ({@link SlowStarts})
 * and anomaly detection ({@link AnomalyDetectors}). Each is told what changed and asked what a plan
 * needs. The resources, the health, the upstreams and the plans stay here: every change reads them
 * together, and publishing follows from them.
 */
public final class RegistryVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(RegistryVerticle.class);

  private final Timers timers;
  private volatile Environment environment;
  private volatile Resources resources;
  private Map<String, List<String>> inUse = Map.of();
  /** Whether the load balancer using each group balances across zones (its own setting's default). */
  private Map<String, Boolean> loadBalancerCrossZone = Map.of();
  /** Where the load balancers listen: targets there are never routed to (Target.IpUnusable). */
  private ListenerSockets sockets = ListenerSockets.NONE;
  private List<ListenerPlan> listeners = List.of();
  private final Map<String, TargetGroupPlan> plans = new HashMap<>();
  private final Map<String, GroupHealth> health = new HashMap<>();
  /** Deregistered targets whose delay still runs. */
  private final Deregistrations deregistrations;
  /** One {@link Upstream} per target per group, kept across snapshots for its shared counters. */
  private final Map<String, Map<String, Upstream>> upstreams = new HashMap<>();
  /** Which targets are in slow start and since when, and which may enter it. */
  private final SlowStarts slowStarts = new SlowStarts();
  /** Each group's anomaly detector, and the mitigation weights its plan is built with. */
  private final AnomalyDetectors detectors = new AnomalyDetectors();
  private final Journal journal = new Journal(Journal.CAPACITY);
  private DataPlaneSnapshot current;
  private volatile ZoneStatus zones = ZoneStatus.EMPTY;
  private volatile Registrations registrations;
  private long version;

  public RegistryVerticle(Environment environment, Resources resources, Timers timers) {
    this(environment, resources, timers, null);
  }

  /**
   * @param store where API-owned resources are persisted before a change is acknowledged; null when
   *              the config file owns them (every API change is then refused)
   */
  public RegistryVerticle(Environment environment, Resources resources, Timers timers, StateStore store) {
    this.environment = environment;
    this.resources = io.fulcrum.model.AlbTargets.withAddresses(environment, resources);
    this.timers = timers;
    this.store = store;
    this.deregistrations = new Deregistrations(timers, journal, () -> this.resources, this::rebuildAll);
  }

  /** Refuses API changes when the config file owns the resources. */
  public static final String READ_ONLY = "OperationNotPermitted";

  private final StateStore store;
  private volatile io.fulcrum.tls.SelfSignedCertificate.PemFiles selfSigned;

  private JournalWriter journalWriter;

  /**
   * Keeps the journal in {@code <dataDir>/journal.jsonl} across restarts, and reads the events kept
   * there (blocking: call it off the event loop, before the registry starts).
   */
  public RegistryVerticle keepJournalIn(java.nio.file.Path dataDir) {
    journalWriter = new JournalWriter(dataDir);
    return this;
  }

  /**
   * The PEM bundle of the CAs that JWKS endpoints' certificates must chain to (null: the JDK's); set
   * before the registry starts.
   */
  public RegistryVerticle jwksCaCertificates(String caBundle) {
    this.jwksCaCertificates = caBundle;
    return this;
  }

  private String jwksCaCertificates;
  /** The JWKS endpoints of jwt-validation actions; created when the registry starts. */
  private KeySources keySources;

  /**
   * The PEM bundle of the CAs that identity providers' certificates (authenticate-oidc's token and
   * user info endpoints) must chain to (null: the JDK's); set before the registry starts.
   */
  public RegistryVerticle oidcCaCertificates(String caBundle) {
    this.oidcCaCertificates = caBundle;
    return this;
  }

  private String oidcCaCertificates;
  /** How authenticate-oidc actions reach identity providers; created when the registry starts. */
  private IdpClient idp;

  private final RouteTable.Checks checks = new RouteTable.Checks() {
    @Override
    public KeySource keys(String endpoint) {
      if (keySources == null) {
        throw new IllegalStateException("jwt-validation actions need the registry deployed (JWKS " + endpoint + ")");
      }
      return keySources.source(endpoint);
    }

    @Override
    public IdpClient idp() {
      if (idp == null) {
        throw new IllegalStateException("authenticate-oidc actions need the registry deployed");
      }
      return idp;
    }
  };

  /** The certificate of HTTPS listeners configured without one; set before the registry starts. */
  public RegistryVerticle selfSigned(io.fulcrum.tls.SelfSignedCertificate.PemFiles files) {
    this.selfSigned = files;
    return this;
  }
  /** Mutations run one after another: each sees the result of the one before. */
  private Future<?> mutations = Future.succeededFuture();

  /**
   * Applies a change made through the API: validated as a whole (cross-resource rules, quotas, IP
   * targets still draining), persisted when the API owns the resources, then applied and published.
   * The future completes once the new snapshot is published; fails, changing nothing, with an
   * {@link InvalidModelException} whose problems carry the AWS error codes. Safe from any thread.
   *
   * @param change builds the next resources from the current ones; may throw
   *               {@link InvalidModelException}
   */
  public Future<MutationResult> mutate(java.util.function.Function<Resources, Resources> change) {
    return mutate(change, null);
  }

  /**
   * {@link #mutate(java.util.function.Function)}, with a {@code gate} the validated next resources
   * pass before they are saved and applied (the cluster's replication: {@link ClusterReplication});
   * when the gate fails, nothing changes and the mutation fails with its failure.
   */
  Future<MutationResult> mutate(java.util.function.Function<Resources, Resources> change, Gate gate) {
    return inTurn(() -> applyMutation(change, gate));
  }

  /** A step of a mutation between its validation and its saving: failing it changes nothing. */
  interface Gate {
    Future<Void> pass(Resources next);
  }

  /**
   * Runs {@code task} on the registry's context once every mutation queued before it has ended; the
   * ones queued after wait for the future it returns. Safe from any thread.
   */
  <T> Future<T> inTurn(java.util.function.Supplier<Future<T>> task) {
    Promise<T> done = Promise.promise();
    context.runOnContext(v -> {
      mutations = mutations.transform(ignored -> {
        Future<T> f;
        try {
          f = task.get();
        } catch (RuntimeException e) {
          f = Future.failedFuture(e);
        }
        f.onComplete(done);
        return f.otherwiseEmpty();
      });
    });
    return done.future();
  }

  /** {@code f}, completing on the registry's context (a future of another Vert.x completes on that one's). */
  <T> Future<T> completingHere(Future<T> f) {
    Promise<T> p = Promise.promise();
    f.onComplete(ar -> context.runOnContext(v -> p.handle(ar)));
    return p.future();
  }

  /**
   * Takes resources another node of the cluster accepted, in a turn ({@link #inTurn}): saved, then
   * applied as an API change is, without the API's checks (the node that accepted them ran them;
   * a target this node still drains that they register again stops draining, as on a reload).
   */
  Future<MutationResult> adopt(Resources taken) {
    Resources next = io.fulcrum.model.AlbTargets.withAddresses(environment, taken); // addresses are not replicated
    return next.equals(resources) ? Future.succeededFuture(new MutationResult(resources, current.version()))
        : commit(next, "cluster");
  }

  /** The outcome of a mutation: the resources after it and the snapshot version that carries them. */
  public record MutationResult(Resources resources, long version) {
  }

  private Future<MutationResult> applyMutation(java.util.function.Function<Resources, Resources> change, Gate gate) {
    if (store == null) {
      return Future.failedFuture(new InvalidModelException(List.of(new io.fulcrum.model.Problem("", READ_ONLY,
          "resources are owned by the config file (resources.source: config); change them there, or set"
              + " resources.source: api to manage them through the API"))));
    }
    Resources next;
    try {
      // A change to an application load balancer's zones moves where its alb registrations reach it.
      next = io.fulcrum.model.AlbTargets.withAddresses(environment, change.apply(resources));
    } catch (RuntimeException e) {
      // Any failure, not only a refusal, must reach the caller: otherwise its request would never be answered.
      return Future.failedFuture(e);
    }
    if (next == resources) {
      return Future.succeededFuture(new MutationResult(resources, current.version()));
    }
    Problems problems = new Problems();
    io.fulcrum.model.ResourceRules.check(environment, next, problems);
    deregistrations.checkReRegistrations(next, problems);
    if (!problems.isEmpty()) {
      return Future.failedFuture(new InvalidModelException(problems.list()));
    }
    Resources accepted = next;
    return PortProbe.held(vertx, PortProbe.added(environment, resources, accepted))
        .compose(held -> held.isEmpty() ? Future.<Void>succeededFuture()
            : Future.failedFuture(new InvalidModelException(held)))
        .compose(free -> gate == null ? Future.<Void>succeededFuture() : completingHere(gate.pass(accepted)))
        .compose(passed -> commit(accepted, "api"));
  }

  /** Saves {@code accepted} and applies it: draining, slow start, the snapshot every listener takes. */
  private Future<MutationResult> commit(Resources accepted, String source) {
    return vertx.executeBlocking(() -> {
      store.save(accepted);
      return null;
    }, false).map(saved -> {
      journal.resourcesChanged(resources, accepted, source, timers.now());
      startDraining(resources, accepted);
      slowStarts.markCandidates(resources, accepted, health, timers.now());
      resources = accepted;
      rebuildAll();
      return new MutationResult(accepted, current.version());
    });
  }

  @Override
  public Future<?> start() {
    if (journalWriter != null) {
      journalWriter.start(vertx, journal);
    }
    keySources = new KeySources(vertx, timers, jwksCaCertificates,
        (endpoint, from, to, description) -> journal.jwksKeys(endpoint, from, to, description, timers.now()));
    idp = new IdpClient(vertx, oidcCaCertificates);
    rebuildAll();
    scheduleAnomalyTick();
    var bus = vertx.eventBus();
    return Future.all(
        bus.<Void>localConsumer(Addresses.SNAPSHOT_CURRENT, m -> m.reply(current)).completion(),
        bus.<Void>localConsumer(Addresses.REGISTRATIONS_CURRENT, m -> m.reply(registrations)).completion(),
        bus.<Void>localConsumer(Addresses.ZONES_CURRENT, m -> m.reply(zones)).completion(),
        bus.<GroupHealth>localConsumer(Addresses.HEALTH, m -> onHealth(m.body())).completion(),
        bus.<AgentChannelChange>localConsumer(Addresses.OPTIMIZER_CHANNELS, m -> {
          AgentChannelChange c = m.body();
          journal.agentChannel(resources.targetGroup(c.groupArn()).map(TargetGroup::name)
              .orElse(Arns.targetGroupDimension(c.groupArn())), c.target(), c.open(), c.detail(), c.time());
        }).completion());
  }

  @Override
  public Future<?> stop() {
    Future<?> keys = Future.all(keySources == null ? Future.succeededFuture() : keySources.close().otherwiseEmpty(),
        idp == null ? Future.succeededFuture() : idp.close().otherwiseEmpty());
    return journalWriter == null ? keys : Future.all(keys, journalWriter.flush().otherwiseEmpty());
  }

  /**
   * Replaces the resources (a config reload) and publishes the new snapshot. Targets that are no
   * longer registered start draining. Fails, changing nothing, when an IP target is registered
   * again before its deregistration delay has ended. Safe to call from any thread.
   */
  public Future<DataPlaneSnapshot> replace(Environment env, Resources next) {
    Promise<DataPlaneSnapshot> done = Promise.promise();
    context.runOnContext(v -> {
      Problems problems = new Problems();
      deregistrations.checkReRegistrations(next, problems);
      if (!problems.isEmpty()) {
        done.fail(new InvalidModelException(problems.list()));
        return;
      }
      Resources located = io.fulcrum.model.AlbTargets.withAddresses(env, next);
      journal.resourcesChanged(resources, located, "config", timers.now());
      startDraining(resources, located);
      slowStarts.markCandidates(resources, located, health, timers.now());
      environment = env;
      resources = located;
      rebuildAll();
      LOG.info("applied configuration version {} ({} listeners, {} target groups in use)", current.version(),
          current.listeners().size(), current.groups().size());
      done.complete(current);
    });
    return done.future();
  }

  /**
   * Targets registered before and not now start draining; targets registered again stop. What was
   * kept for a group that is gone goes with it.
   */
  private void startDraining(Resources before, Resources next) {
    deregistrations.startDraining(before, next);
    Set<String> groups = new HashSet<>();
    next.targetGroups().forEach(g -> groups.add(g.arn()));
    for (TargetGroup old : before.targetGroups()) {
      if (!groups.contains(old.arn())) {
        health.remove(old.arn());
        upstreams.remove(old.arn());
        slowStarts.forget(old.arn());
        detectors.forget(old.arn());
      }
    }
  }

  private final java.util.concurrent.atomic.AtomicLong healthReceived = new java.util.concurrent.atomic.AtomicLong();

  /** How many group health messages it has processed; readable from any thread. */
  public long healthReceived() {
    return healthReceived.get();
  }

  private void onHealth(GroupHealth gh) {
    try {
      applyHealth(gh);
    } finally {
      healthReceived.incrementAndGet();
    }
  }

  private void applyHealth(GroupHealth gh) {
    GroupHealth previous = health.get(gh.groupArn());
    if (previous != null && previous.version() >= gh.version()) {
      return;
    }
    health.put(gh.groupArn(), gh);
    TargetGroup group = resources.targetGroup(gh.groupArn()).orElse(null);
    if (group != null) {
      slowStarts.track(group, previous == null ? Map.of() : previous.targets(), gh.targets(), gh.decidedAt());
      if (previous != null) {
        journal.healthChanged(group, previous.targets(), gh.targets(), gh.decidedAt());
      }
    }
    List<String> zones = inUse.get(gh.groupArn());
    if (group == null || zones == null) {
      return;
    }
    plans.put(group.arn(), plan(group, zones));
    publishSnapshot(gh.decidedAt());
  }

  /**
   * Runs {@code read} on the registry's context, where its state lives, for a caller on any thread;
   * the future fails with what {@code read} throws.
   */
  private <T> Future<T> onContext(java.util.function.Supplier<T> read) {
    Promise<T> p = Promise.promise();
    context.runOnContext(v -> {
      try {
        p.complete(read.get());
      } catch (RuntimeException e) {
        p.fail(e);
      }
    });
    return p.future();
  }

  /**
   * Where traffic would go if the targets {@code failing} (keys {@code id:port}) of the group named
   * {@code group} (a name or an ARN) failed their health checks now, beside where it goes now: the
   * group's plan and every load balancer's DNS zones both ways. Nothing changes. Fails with
   * {@link NoSuchElementException} for an unknown group, {@link IllegalArgumentException}
   * for a target it does not have or a group no load balancer forwards to. Safe from any thread.
   */
  public Future<WhatIf> whatIf(String group, Set<String> failing) {
    return onContext(() -> whatIfNow(group, failing));
  }

  private WhatIf whatIfNow(String name, Set<String> failing) {
    TargetGroup g = resources.targetGroup(name).or(() -> resources.targetGroupByName(name))
        .orElseThrow(() -> new NoSuchElementException("no target group '" + name + "'"));
    Set<String> keys = new HashSet<>();
    g.targets().forEach(t -> keys.add(t.key()));
    for (String key : failing) {
      if (!keys.contains(key)) {
        throw new IllegalArgumentException("target " + key + " is not registered in target group " + g.name()
            + " (expected id:port, one of " + new TreeSet<>(keys) + ")");
      }
    }
    List<String> zones = inUse.get(g.arn());
    TargetGroupPlan now = plans.get(g.arn());
    if (zones == null || now == null) {
      throw new IllegalArgumentException("no load balancer forwards to target group " + g.name());
    }
    GroupHealth gh = health.get(g.arn());
    Map<String, TargetHealth> h = new HashMap<>(gh == null ? Map.of() : gh.targets());
    failing.forEach(key -> h.put(key, WhatIf.ASSUMED_FAILING));
    TargetGroupPlan then = plan(g, zones, h);
    Map<String, TargetGroupPlan> thenPlans = new HashMap<>(plans);
    thenPlans.put(g.arn(), then);
    return new WhatIf(g, zones, Set.copyOf(failing), now, then, this.zones,
        SnapshotBuilder.zones(version, environment, resources, thenPlans));
  }

  /** The snapshot the listeners route by now. Safe from any thread. */
  public Future<DataPlaneSnapshot> snapshot() {
    return onContext(() -> current);
  }

  /** The journal's events after {@code sequence}, oldest first. Safe from any thread. */
  public Future<List<Journal.Event>> events(long sequence) {
    return onContext(() -> journal.after(sequence));
  }

  /** Rebuilds listeners, every plan and the registrations, and publishes both. */
  private void rebuildAll() {
    listeners = SnapshotBuilder.listeners(environment, resources, selfSigned, checks);
    if (keySources != null) {
      keySources.retain(SnapshotBuilder.jwksEndpoints(resources));
    }
    inUse = SnapshotBuilder.groupsInUse(resources);
    loadBalancerCrossZone = SnapshotBuilder.loadBalancerCrossZone(resources);
    sockets = ListenerSockets.of(environment, resources);
    plans.clear();
    for (TargetGroup g : resources.targetGroups()) {
      List<String> zones = inUse.get(g.arn());
      if (zones != null) {
        plans.put(g.arn(), plan(g, zones));
      }
    }
    registrations = SnapshotBuilder.registrations(++version, environment, resources, inUse,
        deregistrations.targets(), sockets);
    publishSnapshot();
    if (vertx != null) {
      vertx.eventBus().publish(Addresses.REGISTRATIONS, registrations);
    }
  }

  private TargetGroupPlan plan(TargetGroup g, List<String> zones) {
    GroupHealth gh = health.get(g.arn());
    return plan(g, zones, gh == null ? Map.of() : gh.targets());
  }

  /** The group's plan with its targets' health as {@code h} says (absent: initial). */
  private TargetGroupPlan plan(TargetGroup g, List<String> zones, Map<String, TargetHealth> h) {
    if (h.containsValue(TargetHealth.NOT_IN_USE)) {
      // The group is in use now and the health checker hears of it with these registrations: until
      // it reports, its targets are starting rather than unused, which would answer 503 meanwhile.
      Map<String, TargetHealth> attached = new HashMap<>(h);
      attached.replaceAll((k, v) -> v.inUse());
      h = attached;
    }
    // A load balancer's own socket is never routed to, not even before the health checker reports it
    // unused (an initial target is routed to while none is healthy).
    Map<String, TargetHealth> unusable = null;
    for (Target t : g.targets()) {
      if (sockets.holds(g, t)) {
        unusable = unusable == null ? new HashMap<>(h) : unusable;
        unusable.put(t.key(), TargetHealth.IP_UNUSABLE);
      }
    }
    h = unusable == null ? h : unusable;
    Map<String, Upstream> cache = upstreams.computeIfAbsent(g.arn(), k -> new HashMap<>());
    return TargetGroupPlan.build(new TargetGroupPlan.Inputs(g, zones, h, deregistrations.targets(g.arn()),
        slowStarts.since(g.arn()), detectors.weights(g.arn()),
        t -> {
          Map<String, String> zoneAddresses = g.targetType() != io.fulcrum.model.TargetType.ALB ? null
              : io.fulcrum.model.AlbTargets.loadBalancer(resources, t)
                  .map(lb -> io.fulcrum.model.AlbTargets.zoneAddresses(environment, lb)).orElse(null);
          return cache.compute(t.key(), (key, u) -> u != null && u.sameAs(t.address(), t.port(), t.zone(), zoneAddresses)
              ? u : new Upstream(t.key(), t.id(), t.address(), t.port(), t.zone(), zoneAddresses));
        },
        loadBalancerCrossZone.getOrDefault(g.arn(), true)));
  }

  private void publishSnapshot() {
    publishSnapshot(timers.now());
  }

  /**
   * Publishes the snapshot and the zones' DNS state; {@code decidedAt} is when what changed them was
   * decided (a health check's answer may reach the registry later), the time the journal gives the
   * failovers they start or end.
   */
  private void publishSnapshot(long decidedAt) {
    current = new DataPlaneSnapshot(++version, listeners, plans);
    if (vertx != null) {
      vertx.eventBus().publish(Addresses.SNAPSHOT, current);
    }
    journal.routingPublished(resources, inUse, plans, decidedAt);
    ZoneStatus next = SnapshotBuilder.zones(version, environment, resources, plans);
    if (!next.loadBalancers().equals(zones.loadBalancers())) {
      journal.dnsChanged(zones, next, decidedAt);
      ZoneStatus before = zones;
      zones = next;
      if (vertx != null) {
        vertx.eventBus().publish(Addresses.ZONES, zones);
        logDnsChanges(before, zones);
      }
    }
  }

  /**
   * Logs each zone whose DNS failover changed: one that starts failing (or now fails for other
   * target groups), and one that passes again. A zone whose state stays is not logged again, so
   * that a zone's last line says its state now.
   */
  private static void logDnsChanges(ZoneStatus before, ZoneStatus after) {
    for (ZoneStatus.LoadBalancerZones lb : after.loadBalancers()) {
      for (ZoneStatus.Zone z : lb.zones()) {
        ZoneStatus.Zone was = zone(before, lb.name(), z.name());
        if (!z.passing() && (was == null || was.passing() || !was.failing().equals(z.failing()))) {
          LOG.info("load balancer {}: zone {} fails DNS failover (target groups {}){}", lb.name(), z.name(),
              z.failing(), lb.failOpen() ? "; every zone fails, so DNS advertises all" : "");
        } else if (z.passing() && was != null && !was.passing()) {
          LOG.info("load balancer {}: zone {} passes DNS failover again", lb.name(), z.name());
        }
      }
    }
  }

  /** The zone {@code zone} of the load balancer {@code lb} in {@code status}, or null. */
  private static ZoneStatus.Zone zone(ZoneStatus status, String lb, String zone) {
    return status.loadBalancers().stream().filter(l -> l.name().equals(lb)).flatMap(l -> l.zones().stream())
        .filter(z -> z.name().equals(zone)).findFirst().orElse(null);
  }

  private void scheduleAnomalyTick() {
    timers.setTimer(AnomalyDetector.BUCKET_MILLIS, id -> {
      anomalyTick();
      scheduleAnomalyTick();
    });
  }

  /** Closes one bucket of every group's anomaly window; rebuilds the plans whose weights moved. */
  private void anomalyTick() {
    detectors.retain(plans.keySet());
    boolean changed = false;
    for (TargetGroup g : resources.targetGroups()) {
      List<String> zones = inUse.get(g.arn());
      if (zones != null && detectors.tick(g, zones, upstreams.getOrDefault(g.arn(), Map.of()), health.get(g.arn()))) {
        plans.put(g.arn(), plan(g, zones));
        changed = true;
      }
    }
    if (changed) {
      publishSnapshot();
    }
  }

  /** Anomaly detection results of a group's targets, by key (DescribeTargetHealth, Include=AnomalyDetection). */
  public Future<Map<String, AnomalyDetection>> anomalies(String groupArn) {
    return onContext(() -> detectors.results(groupArn));
  }

  /**
   * The state of every target group each load balancer forwards to, per zone, as the metrics show
   * it ({@code HealthyHostCount}, {@code UnhealthyStateRouting}, ...). Safe from any thread.
   */
  public Future<List<GroupGauges>> gauges() {
    return onContext(() -> {
      Map<String, Map<String, TargetHealth>> byGroup = new HashMap<>();
      health.forEach((arn, gh) -> byGroup.put(arn, gh.targets()));
      return SnapshotBuilder.gauges(resources, plans, byGroup, detectors.results());
    });
  }

  /** Draining targets of a group with the end of their delay (epoch millis), by target key. */
  public Future<Map<String, Long>> draining(String groupArn) {
    return onContext(() -> deregistrations.deadlines(groupArn));
  }

  /**
   * Draining targets of a group as they were registered (DescribeTargetHealth echoes their port and
   * the zone given), by target key.
   */
  public Future<Map<String, Target>> drainingTargets(String groupArn) {
    return onContext(() -> deregistrations.targetsByKey(groupArn));
  }

  /** The version of the latest registrations published to the health checker; any thread. */
  public long registrationsVersion() {
    return registrations == null ? 0 : registrations.version();
  }

  /** The latest DNS failover state; readable from any thread. */
  public ZoneStatus zones() {
    return zones;
  }

  /** The current resources; readable from any thread. */
  public Resources resources() {
    return resources;
  }

  public Environment environment() {
    return environment;
  }
}
