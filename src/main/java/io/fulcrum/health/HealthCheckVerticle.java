package io.fulcrum.health;

import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.GroupHealth;
import io.fulcrum.bus.HealthReport;
import io.fulcrum.bus.Registrations;
import io.fulcrum.bus.Registrations.Entry;
import io.fulcrum.bus.Registrations.Group;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroupKind;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.fulcrum.observe.AccessLogs;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.observe.LoopLog;
import io.fulcrum.time.Timers;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.VerticleBase;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Probes every target the registry says is in use and decides its health, per target group (the
 * same target in two groups is checked and decided twice). One instance per process; all its
 * state is touched only on its own context.
 *
 * <p>Each target's first check goes out after a random delay so that many targets do not fire
 * together: spread over {@value #SPREAD_PER_TARGET_MS} ms per checked target, at least
 * {@value #MIN_FIRST_CHECK_SPREAD_MS} ms and at most the interval or
 * {@value #MAX_FIRST_CHECK_JITTER_MS} ms (a few targets are checked at once, a thousand over
 * five seconds); after that
 * checks run every interval, however long the target takes to answer. After every change in a
 * group it publishes the group's whole {@link GroupHealth}. Each check's result goes to its
 * application load balancer's health check log when that is on ({@link HealthCheckLogLine}).
 */
public final class HealthCheckVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(HealthCheckVerticle.class);

  static final long MAX_FIRST_CHECK_JITTER_MS = 5_000;
  static final long MIN_FIRST_CHECK_SPREAD_MS = 100;
  static final long SPREAD_PER_TARGET_MS = 5;

  private final Timers timers;
  private final RandomGenerator random;
  private final Map<String, GroupState> groups = new LinkedHashMap<>();
  private final AtomicInteger inFlight = new AtomicInteger();
  private final java.util.concurrent.atomic.AtomicLong published = new java.util.concurrent.atomic.AtomicLong();
  private volatile long registrationsVersion = -1;
  /** Targets checked as of the latest registrations: sizes the spread of first checks. */
  private int activeTargets;
  private Prober http;
  private Prober tcp;
  /** Checks of network groups with the PROXY protocol: every connection starts with its header. */
  private Prober proxied;
  private FunctionProber functions;
  /** The health check log's lines, collected by the access log's writer as the listeners' are. */
  private AccessLogs accessLogs;
  private LoopLog log;
  private Runnable unregisterLog;

  public HealthCheckVerticle(Timers timers, RandomGenerator random) {
    this.timers = timers;
    this.random = random;
  }

  @Override
  public Future<?> start() {
    http = new HttpProber(vertx, timers);
    tcp = new TcpProber(vertx, timers);
    proxied = new ProxyProtocolProber(vertx, timers);
    functions = new FunctionProber(vertx, timers);
    accessLogs = AccessLogs.of(vertx);
    log = accessLogs.newLoop();
    unregisterLog = accessLogs.register(context, log);
    var updates = vertx.eventBus().<Registrations>localConsumer(Addresses.REGISTRATIONS, m -> apply(m.body()));
    var reports = vertx.eventBus().<String>localConsumer(Addresses.HEALTH_REPORT, m -> m.reply(report(m.body())));
    return Future.all(updates.completion(), reports.completion())
        .compose(v -> vertx.eventBus().<Registrations>request(Addresses.REGISTRATIONS_CURRENT, null))
        .onSuccess(reply -> apply(reply.body()));
  }

  /** How many group health messages it has published; readable from any thread. */
  public long healthPublished() {
    return published.get();
  }

  /** The version of the registrations it watches; readable from any thread. */
  public long registrationsVersion() {
    return registrationsVersion;
  }

  /** Checks sent and not yet decided; readable from any thread (tests settle virtual time on it). */
  public int checksInFlight() {
    return inFlight.get();
  }

  @Override
  public Future<?> stop() {
    groups.values().forEach(g -> g.targets.values().forEach(WatchedTarget::cancel));
    log.retain(Set.of()); // what the log holds goes to the writer now
    unregisterLog.run();
    return Future.succeededFuture();
  }

  /** Reconciles what is checked with a new version of the registrations. */
  void apply(Registrations next) {
    if (next.version() <= registrationsVersion) {
      return;
    }
    registrationsVersion = next.version();
    activeTargets = (int) next.groups().stream().flatMap(g -> g.targets().stream())
        .filter(e -> e.status() == Registrations.Status.ACTIVE).count();
    Set<String> seen = new HashSet<>();
    for (Group g : next.groups()) {
      seen.add(g.arn());
      GroupState state = groups.computeIfAbsent(g.arn(), arn -> new GroupState(arn));
      state.group = g;
      if (state.reconcile()) {
        publish(state);
      }
    }
    for (Iterator<Map.Entry<String, GroupState>> it = groups.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, GroupState> e = it.next();
      if (!seen.contains(e.getKey())) {
        e.getValue().targets.values().forEach(WatchedTarget::cancel);
        it.remove();
      }
    }
    Set<LogDestination> logged = new HashSet<>();
    next.groups().forEach(g -> {
      if (g.healthCheckLog() != null) {
        logged.add(g.healthCheckLog());
      }
    });
    log.retain(logged);
  }

  private void publish(GroupState g) {
    g.version++;
    Map<String, TargetHealth> health = new HashMap<>();
    g.targets.forEach((key, t) -> health.put(key, t.health()));
    published.incrementAndGet();
    vertx.eventBus().publish(Addresses.HEALTH, new GroupHealth(g.arn, g.version, health, timers.now()));
  }

  private HealthReport report(String groupArn) {
    GroupState g = groups.get(groupArn);
    Map<String, HealthReport.TargetReport> out = new HashMap<>();
    if (g != null) {
      g.targets.forEach((key, t) -> out.put(key, new HealthReport.TargetReport(t.health(),
          t.active() ? t.port() : 0, t.tracker == null ? List.of() : t.tracker.history())));
    }
    return new HealthReport(groupArn, out);
  }

  /** One target group's targets and their trackers. */
  private final class GroupState {
    final String arn;
    final Map<String, WatchedTarget> targets = new LinkedHashMap<>();
    Group group;
    long version;

    GroupState(String arn) {
      this.arn = arn;
    }

    /** @return whether any target's health changed (added, removed, or a new fixed state) */
    boolean reconcile() {
      boolean changed = false;
      Set<String> keys = new HashSet<>();
      for (Entry e : group.targets()) {
        String key = e.target().key();
        keys.add(key);
        WatchedTarget t = targets.get(key);
        if (t == null) {
          t = new WatchedTarget(this, e.target(), e.status());
          targets.put(key, t);
          changed = true;
        } else if (t.status != e.status()) {
          t.cancel();
          boolean wasActive = t.active();
          t.status = e.status();
          t.target = e.target();
          if (t.active() && !wasActive) {
            // Checked again (the group is in use again, say): it starts over as a new registration.
            t.tracker = new HealthTracker();
          }
          changed = true;
        } else {
          t.target = e.target();
          if (t.active()) {
            t.retime(group.healthCheck());
            // The group stopped keeping unhealthy targets' connections: one draining is unhealthy now.
            if (t.drainingSeconds() == 0 && t.tracker.drainingOver(timers.now())) {
              t.followDraining();
              changed = true;
            }
          }
        }
        if (t.active() && t.timer == -1 && !t.inFlight) {
          t.schedule(firstCheckDelay(group.healthCheck()));
        }
      }
      for (Iterator<Map.Entry<String, WatchedTarget>> it = targets.entrySet().iterator(); it.hasNext(); ) {
        Map.Entry<String, WatchedTarget> e = it.next();
        if (!keys.contains(e.getKey())) {
          e.getValue().cancel();
          it.remove();
          changed = true;
        }
      }
      return changed;
    }
  }

  private long firstCheckDelay(HealthCheck hc) {
    long wanted = Math.max(MIN_FIRST_CHECK_SPREAD_MS, activeTargets * SPREAD_PER_TARGET_MS);
    long spread = Math.min(wanted, Math.min(hc.intervalSeconds() * 1000L, MAX_FIRST_CHECK_JITTER_MS));
    return 1 + random.nextLong(spread);
  }

  /** One target of one group: its status, tracker and next check. */
  private final class WatchedTarget {
    final GroupState group;
    Target target;
    Registrations.Status status;
    HealthTracker tracker;
    long timer = -1;
    long nextAt;
    /** When the last check was due, or -1 before the first one. */
    long lastDueAt = -1;
    boolean inFlight;
    /** Bumped when checks stop, so a result that arrives afterwards is ignored. */
    int epoch;
    /** Ends an {@code unhealthy.draining} state when the group's draining interval is over; -1 when none runs. */
    long drainTimer = -1;

    WatchedTarget(GroupState group, Target target, Registrations.Status status) {
      this.group = group;
      this.target = target;
      this.status = status;
      this.tracker = active() ? new HealthTracker() : null;
    }

    boolean active() {
      return status == Registrations.Status.ACTIVE;
    }

    int port() {
      return group.group.healthCheck().portFor(target.port());
    }

    TargetHealth health() {
      switch (status) {
        case DRAINING:
          return TargetHealth.DRAINING;
        case GROUP_NOT_IN_USE:
          return TargetHealth.NOT_IN_USE;
        case ZONE_NOT_ENABLED:
          return TargetHealth.ZONE_NOT_ENABLED;
        case IP_UNUSABLE:
          return TargetHealth.IP_UNUSABLE;
        default:
          return group.group.healthCheck().enabled() ? tracker.health() : TargetHealth.CHECKS_DISABLED;
      }
    }

    void schedule(long delay) {
      if (!group.group.healthCheck().enabled()) {
        return;
      }
      nextAt = timers.now() + delay;
      timer = timers.setTimer(delay, id -> {
        timer = -1;
        check();
      });
    }

    /**
     * After the interval changed, moves the pending check to one new interval after the last one
     * (spread out again when that time has already passed), so a shorter interval applies now
     * rather than after the check the old interval scheduled.
     */
    void retime(HealthCheck hc) {
      if (timer == -1 || lastDueAt < 0) {
        return;
      }
      long due = lastDueAt + hc.intervalSeconds() * 1000L;
      if (due == nextAt) {
        return;
      }
      timers.cancelTimer(timer);
      timer = -1;
      long delay = due - timers.now();
      schedule(delay > 0 ? delay : firstCheckDelay(hc));
    }

    void cancel() {
      epoch++;
      lastDueAt = -1;
      if (inFlight) {
        inFlight = false;
        HealthCheckVerticle.this.inFlight.decrementAndGet();
      }
      if (timer != -1) {
        timers.cancelTimer(timer);
        timer = -1;
      }
      stopDraining();
    }

    /** The seconds an unhealthy target keeps its connections in {@code unhealthy.draining}; 0: none. */
    int drainingSeconds() {
      return group.group.unhealthyDrainingSeconds();
    }

    /** Starts or stops the draining interval's timer as the tracker's state says. */
    void followDraining() {
      boolean draining = tracker.health().state() == TargetState.UNHEALTHY_DRAINING;
      if (draining && drainTimer == -1) {
        drainTimer = timers.setTimer(drainingSeconds() * 1000L, id -> {
          drainTimer = -1;
          if (tracker.drainingOver(timers.now())) {
            LOG.info("target {} of {}: unhealthy.draining -> unhealthy (draining interval over)", target.key(),
                group.group.name());
            publish(group);
          }
        });
      } else if (!draining) {
        stopDraining();
      }
    }

    private void stopDraining() {
      if (drainTimer != -1) {
        timers.cancelTimer(drainTimer);
        drainTimer = -1;
      }
    }

    private void check() {
      HealthCheck hc = group.group.healthCheck();
      long interval = hc.intervalSeconds() * 1000L;
      // Fixed rate: the next check's time does not depend on how long this one takes.
      long next = Math.max(1, nextAt + interval - timers.now());
      lastDueAt = nextAt;
      if (tracker.checkStarted(timers.now())) {
        publish(group);
      }
      inFlight = true;
      HealthCheckVerticle.this.inFlight.incrementAndGet();
      int myEpoch = epoch;
      long startedAt = timers.now();
      boolean nlb = group.group.kind() == TargetGroupKind.NLB;
      Prober prober = group.group.proxyProtocol() ? proxied : hc.protocol() == Protocol.TCP ? tcp : http;
      Handler<CheckResult> onResult = result -> {
        if (myEpoch != epoch) {
          return;
        }
        inFlight = false;
        LogDestination logTo = group.group.healthCheckLog();
        if (logTo != null && accessLogs.writing()) {
          HealthCheckLogLine.append(log.lines(logTo), startedAt, group.group, target, port(), result);
        }
        HealthCheck current = group.group.healthCheck();
        TargetHealth before = tracker.health();
        if (tracker.record(result, current.healthyThreshold(), current.unhealthyThreshold(), drainingSeconds() > 0,
            timers.now())) {
          LOG.info("target {} of {}: {} -> {}{}", target.key(), group.group.name(), before.state().wire(),
              tracker.health().state().wire(),
              tracker.health().description() == null ? "" : " (" + tracker.health().description() + ")");
          followDraining();
          publish(group);
        }
        // Counted out only once its decision is recorded and published: whoever waits for no check in flight
        // (a test moving a virtual clock on) then sees the decision made at the time the answer came.
        HealthCheckVerticle.this.inFlight.decrementAndGet();
      };
      if (group.group.kind() == TargetGroupKind.ALB_LAMBDA) {
        // A Lambda target is checked by invoking its function with the health-check event.
        functions.probe(group.arn, target.id(), hc, onResult);
      } else {
        prober.probe(target.address(), port(), hc, nlb, onResult);
      }
      schedule(next);
    }
  }
}
