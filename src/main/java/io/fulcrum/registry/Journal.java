package io.fulcrum.registry;

import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * The registry's journal: every decision that changes where traffic goes, as data with its reason
 * (DESIGN §7): a target's health changing (state, reason code and description, as the health
 * checker decided them), a deregistered target draining and its delay ending, and a zone failing
 * over or recovering, in DNS for a load balancer or in routing for a target group (SPEC §10).
 * Changes of the resources (API calls, configuration reloads) are events too
 * ({@link ResourceChanges}: load balancers, listeners, target groups, registered targets).
 * Times are the registry's clock (a virtual one in tests), so a run replayed on a virtual clock
 * gives the same journal. The latest {@link #CAPACITY} events are kept. Touched on the registry's
 * context only.
 */
public final class Journal {

  /** How many events are kept; older ones are dropped. */
  public static final int CAPACITY = 1000;

  /** A target's health changed ({@code from}, {@code to}: states; with the new reason and description). */
  public static final String TARGET_HEALTH = "TargetHealth";
  /** A target was deregistered and drains for its group's deregistration delay ({@code reason}: the delay). */
  public static final String TARGET_DRAINING = "TargetDraining";
  /** A draining target's deregistration delay ended: it gets no more requests. */
  public static final String TARGET_DRAINED = "TargetDrained";
  /**
   * A zone of a load balancer left DNS ({@code to: failover}, {@code reason}: the target groups
   * that fail their DNS threshold there) or came back ({@code to: healthy}).
   */
  public static final String ZONE_DNS = "ZoneDnsFailover";
  /**
   * A target group's zone breached its unhealthy-state routing threshold, so its node routes to
   * every target ({@code to: failover}), or met it again ({@code to: healthy}).
   */
  public static final String ZONE_ROUTING = "ZoneRoutingFailover";
  /**
   * A target optimizer control channel to a target's agent opened ({@code to: open}; the target
   * can take requests again as its agent grants credits) or went down ({@code to: down}; the
   * target takes none until it is back), with what the agent said or why.
   */
  public static final String AGENT_CHANNEL = "TargetControlChannel";
  /**
   * A jwt-validation action's JWKS endpoint ({@code reason}) was read and its keys changed
   * ({@code to: 2 keys}), or it could not be read ({@code to: failing}), with the keys or why.
   */
  public static final String JWKS_KEYS = "JwksKeys";

  /**
   * One event; fields that do not apply are null.
   *
   * @param sequence    1 for the first event of the process, then one more for each
   * @param time        epoch millis
   * @param type        one of the type constants
   * @param loadBalancer the load balancer's name (zone DNS events)
   * @param targetGroup the target group's name
   * @param target      {@code id:port}
   * @param zone        the zone
   * @param from        the state before
   * @param to          the state after
   * @param reason      the reason code, or what the event hangs on
   * @param description the reason in words
   */
  public record Event(long sequence, long time, String type, String loadBalancer, String targetGroup, String target,
      String zone, String from, String to, String reason, String description) {

    /** As {@code /ui/events} shows it: the time in ISO 8601, null fields left out. */
    public JsonObject toJson() {
      JsonObject o = new JsonObject().put("sequence", sequence).put("time", Instant.ofEpochMilli(time).toString())
          .put("type", type);
      put(o, "loadBalancer", loadBalancer);
      put(o, "targetGroup", targetGroup);
      put(o, "target", target);
      put(o, "zone", zone);
      put(o, "from", from);
      put(o, "to", to);
      put(o, "reason", reason);
      put(o, "description", description);
      return o;
    }

    /** An event as {@link #toJson} wrote it. */
    static Event fromJson(JsonObject o) {
      return new Event(o.getLong("sequence"), Instant.parse(o.getString("time")).toEpochMilli(), o.getString("type"),
          o.getString("loadBalancer"), o.getString("targetGroup"), o.getString("target"), o.getString("zone"),
          o.getString("from"), o.getString("to"), o.getString("reason"), o.getString("description"));
    }

    private static void put(JsonObject o, String key, String value) {
      if (value != null) {
        o.put(key, value);
      }
    }
  }

  private final int capacity;
  private final ArrayDeque<Event> events;
  private java.util.function.Consumer<Event> sink;
  private long sequence;
  /** Whether each target group's zone breached its routing threshold, by group ARN and zone, as last published. */
  private final Map<String, Boolean> routingFailover = new HashMap<>();

  public Journal(int capacity) {
    this.capacity = capacity;
    this.events = new ArrayDeque<>(Math.min(capacity, 64));
  }

  /**
   * Takes back events kept from before (the journal file), oldest first; numbering goes on after
   * the last. Called before any event is added.
   */
  void restore(List<Event> kept) {
    for (Event e : kept) {
      if (events.size() == capacity) {
        events.removeFirst();
      }
      events.addLast(e);
      sequence = Math.max(sequence, e.sequence());
    }
  }

  /** Hands every event added from now on to {@code sink} too (the journal file's writer). */
  void sink(java.util.function.Consumer<Event> sink) {
    this.sink = sink;
  }

  /** Records an event now; returns it. */
  Event add(long time, String type, String loadBalancer, String targetGroup, String target, String zone, String from,
      String to, String reason, String description) {
    Event e = new Event(++sequence, time, type, loadBalancer, targetGroup, target, zone, from, to, reason,
        description);
    if (events.size() == capacity) {
      events.removeFirst();
    }
    events.addLast(e);
    if (sink != null) {
      sink.accept(e);
    }
    return e;
  }

  /**
   * Records each target whose health state the health checker changed, or whose reason it changed
   * while the target stays unhealthy (a timeout that becomes a wrong status code). A target it
   * reports for the first time is not recorded.
   */
  void healthChanged(TargetGroup group, Map<String, TargetHealth> before, Map<String, TargetHealth> after,
      long time) {
    for (Target t : group.targets()) {
      TargetHealth was = before.get(t.key());
      TargetHealth now = after.get(t.key());
      if (was != null && now != null && (was.state() != now.state()
          || now.state() == TargetState.UNHEALTHY && !Objects.equals(was.reason(), now.reason()))) {
        add(time, TARGET_HEALTH, null, group.name(), t.key(), zoneOf(t), was.state().wire(), now.state().wire(),
            now.reason(), now.description());
      }
    }
  }

  /**
   * Records what a change of the resources changed ({@link ResourceChanges}), each change an event
   * whose {@code reason} says where it came from.
   *
   * @param source {@code api} (an ELBv2 API call), {@code config} (the configuration file reloaded) or
   *               {@code cluster} (an API call on another process of the cluster)
   */
  void resourcesChanged(Resources before, Resources after, String source, long time) {
    for (ResourceChanges.Change c : ResourceChanges.between(before, after)) {
      add(time, c.type(), c.loadBalancer(), c.targetGroup(), c.target(), c.zone(), null, null, source,
          c.description());
    }
  }

  /** Records a target optimizer channel opening or going down ({@code group}: its group's name). */
  void agentChannel(String group, String target, boolean open, String detail, long time) {
    add(time, AGENT_CHANNEL, null, group, target, null, null, open ? "open" : "down", null, detail);
  }

  /** Records a JWKS endpoint's keys changing, or its fetches starting to fail. */
  void jwksKeys(String endpoint, String from, String to, String description, long time) {
    add(time, JWKS_KEYS, null, null, null, null, from, to, endpoint, description);
  }

  /** Records a deregistered target starting to drain for {@code delayMillis}. */
  void drainingStarted(TargetGroup group, Target t, long delayMillis, long time) {
    add(time, TARGET_DRAINING, null, group.name(), t.key(), zoneOf(t), null, "draining",
        "Target.DeregistrationInProgress", "deregistration delay " + delayMillis / 1000 + " s");
  }

  /** Records a draining target's delay ending ({@code group}: its group's name). */
  void drainingEnded(String group, Target t, long time) {
    add(time, TARGET_DRAINED, null, group, t.key(), zoneOf(t), "draining", "unused", "Target.NotRegistered",
        "deregistration delay over");
  }

  /**
   * Records each target group's zone whose routing failover began or ended with the plans just
   * published (a zone seen for the first time is not recorded).
   *
   * @param inUse the zones each group is used in, by ARN
   */
  void routingPublished(Resources resources, Map<String, List<String>> inUse, Map<String, TargetGroupPlan> plans,
      long time) {
    Set<String> seen = new HashSet<>();
    for (TargetGroup g : resources.targetGroups()) {
      TargetGroupPlan plan = plans.get(g.arn());
      List<String> zones = inUse.get(g.arn());
      if (plan == null || zones == null) {
        continue;
      }
      for (String zone : zones) {
        Scope scope = plan.scope(zone);
        if (scope == null) {
          continue;
        }
        String key = g.arn() + '\n' + zone;
        seen.add(key);
        boolean failover = scope.unhealthyRouting();
        Boolean was = routingFailover.put(key, failover);
        if (was != null && was != failover) {
          add(time, ZONE_ROUTING, null, g.name(), null, zone, state(was), state(failover), null, failover
              ? "below the unhealthy-state routing threshold: every target takes requests"
              : "meets the unhealthy-state routing threshold");
        }
      }
    }
    routingFailover.keySet().retainAll(seen);
  }

  /** Records each load balancer zone that left DNS or came back between {@code before} and {@code after}. */
  void dnsChanged(ZoneStatus before, ZoneStatus after, long time) {
    Map<String, Boolean> was = new HashMap<>();
    before.loadBalancers().forEach(lb -> lb.zones().forEach(z -> was.put(lb.name() + '\n' + z.name(), z.passing())));
    for (ZoneStatus.LoadBalancerZones lb : after.loadBalancers()) {
      for (ZoneStatus.Zone z : lb.zones()) {
        Boolean passing = was.get(lb.name() + '\n' + z.name());
        if (passing != null && passing != z.passing()) {
          add(time, ZONE_DNS, lb.name(), null, null, z.name(), state(!passing), state(!z.passing()),
              z.passing() ? null : String.join(",", z.failing()), z.passing() ? "advertised in DNS again"
                  : "removed from DNS" + (lb.failOpen() ? " (every zone fails, so DNS advertises all)" : ""));
        }
      }
    }
  }

  static String zoneOf(Target t) {
    return Target.ALL_ZONES.equals(t.zone()) ? null : t.zone();
  }

  private static String state(boolean failover) {
    return failover ? "failover" : "healthy";
  }

  /** The events kept whose sequence is above {@code after}, oldest first. */
  public List<Event> after(long after) {
    List<Event> out = new ArrayList<>();
    for (Event e : events) {
      if (e.sequence() > after) {
        out.add(e);
      }
    }
    return out;
  }
}
