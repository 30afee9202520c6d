package io.fulcrum.balancer;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The targets a request may go to, for the nodes of one zone (cross-zone off) or of every zone
 * (cross-zone on), decided before any selection: healthy targets, or, when the routing threshold
 * is breached, every target of the scope (unhealthy-state routing, fail-open). Carries what the
 * algorithms weigh: slow-start start times and anomaly-mitigation weights. Immutable and shared by
 * every event loop.
 */
public final class Scope {

  private final Upstream[] eligible;
  private final long[] slowStartSince;
  private final long slowStartMillis;
  private final long slowStartEndsAt;
  /** When every eligible target is in slow start: the earliest start (the heaviest); else 0. */
  private final long allInSlowStartSince;
  private final double[] weights;
  private final boolean unhealthyRouting;
  private final boolean dnsBreached;
  private final int registered;
  private final int healthy;
  private final Map<String, Upstream> byKey;

  Scope(List<Upstream> eligible, long[] slowStartSince, long slowStartMillis, double[] weights,
      boolean unhealthyRouting, boolean dnsBreached, int registered, int healthy) {
    this.eligible = eligible.toArray(Upstream[]::new);
    this.slowStartSince = slowStartSince;
    this.slowStartMillis = slowStartMillis;
    long ends = 0;
    if (slowStartSince != null) {
      for (long since : slowStartSince) {
        if (since > 0) {
          ends = Math.max(ends, since + slowStartMillis);
        }
      }
    }
    this.slowStartEndsAt = ends;
    long earliest = Long.MAX_VALUE;
    if (slowStartSince != null && slowStartMillis > 0) {
      for (long since : slowStartSince) {
        if (since == 0) {
          earliest = 0;
          break;
        }
        earliest = Math.min(earliest, since);
      }
    } else {
      earliest = 0;
    }
    this.allInSlowStartSince = earliest == Long.MAX_VALUE ? 0 : earliest;
    this.weights = weights;
    this.unhealthyRouting = unhealthyRouting;
    this.dnsBreached = dnsBreached;
    this.registered = registered;
    this.healthy = healthy;
    this.byKey = new HashMap<>();
    for (Upstream u : this.eligible) {
      byKey.put(u.key(), u);
    }
  }

  /** The targets selectors choose from; shared, callers must not modify it. */
  Upstream[] eligible() {
    return eligible;
  }

  public int eligibleCount() {
    return eligible.length;
  }

  /** The eligible target with this key, or null (a sticky cookie naming anything else is stale). */
  public Upstream eligible(String key) {
    return byKey.get(key);
  }

  /** The eligible targets' keys, in order. */
  public List<String> eligibleKeys() {
    return java.util.Arrays.stream(eligible).map(Upstream::key).toList();
  }

  /** Registered targets in this scope. */
  public int registered() {
    return registered;
  }

  /** Healthy targets in this scope. */
  public int healthy() {
    return healthy;
  }

  /** Whether the routing threshold is breached and requests go to every target (fail-open). */
  public boolean unhealthyRouting() {
    return unhealthyRouting;
  }

  /** Whether the DNS-failover threshold is breached for this scope. */
  public boolean dnsBreached() {
    return dnsBreached;
  }

  /**
   * The slow-start weight of eligible target {@code i} at {@code now}: {@code max(0.01, min(1,
   * elapsed / duration))}, or 1 when it is not in slow start (SPEC decisions, §4.6).
   */
  double slowStartWeight(int i, long now) {
    if (slowStartSince == null || slowStartSince[i] == 0) {
      return 1;
    }
    double w = (double) (now - slowStartSince[i]) / slowStartMillis;
    return w >= 1 ? 1 : Math.max(0.01, w);
  }

  /**
   * The largest slow-start weight among the eligible targets at {@code now}: 1 when one of them is
   * not in slow start (the usual case: ALB starts a target slowly only when a healthy one is at
   * full share), else the weight of the one that entered it first. Round robin weighs turns
   * relative to it, so a group whose every target is in slow start is served in plain turns, not
   * by walking the group for one full credit.
   */
  double maxSlowStartWeight(long now) {
    if (allInSlowStartSince == 0) {
      return 1;
    }
    double w = (double) (now - allInSlowStartSince) / slowStartMillis;
    return w >= 1 ? 1 : Math.max(0.01, w);
  }

  /** Whether some target may still be in slow start at {@code now}. */
  boolean slowStartActive(long now) {
    return now < slowStartEndsAt;
  }

  /** Anomaly-mitigation weights of the eligible targets, or null when all are 1. */
  double[] weights() {
    return weights;
  }
}
