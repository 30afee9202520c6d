package io.fulcrum.registry;

import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The registry's journal: every decision that changes where traffic goes, as data with its reason
 * (DESIGN §7): a target's health changing (state, reason code and description, as the health
 * checker decided them), a deregistered target draining and its delay ending, and a zone failing
 * over or recovering, in DNS for a load balancer or in routing for a target group (SPEC §10).
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

    private static void put(JsonObject o, String key, String value) {
      if (value != null) {
        o.put(key, value);
      }
    }
  }

  private final int capacity;
  private final ArrayDeque<Event> events;
  private long sequence;

  public Journal(int capacity) {
    this.capacity = capacity;
    this.events = new ArrayDeque<>(Math.min(capacity, 64));
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
    return e;
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
