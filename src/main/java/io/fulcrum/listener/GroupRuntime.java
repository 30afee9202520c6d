package io.fulcrum.listener;

import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.model.ProtocolVersion;
import java.util.HashMap;
import java.util.Map;
import java.util.random.RandomGenerator;

/**
 * A target group's plan and one listener verticle's selectors for it: one with cross-zone on, one
 * per node zone with it off, each built on first use. A verticle keeps it while the group's plan is
 * the same object from snapshot to snapshot; for a new plan it makes its {@link #next} one, whose
 * selectors go on with round robin's turns where these left them. Touched only on that verticle's
 * event loop.
 */
final class GroupRuntime {

  private final TargetGroupPlan plan;
  private final RandomGenerator random;
  private final HttpForwarder.TargetProtocol protocol;
  private TargetSelector all;
  private Map<String, TargetSelector> byZone;
  /** Round robin's turns where the runtimes of the plans before left them: by zone, {@link #ALL} with cross-zone. */
  private final Map<String, TargetSelector.Turn> turns;
  private static final String ALL = "";

  GroupRuntime(TargetGroupPlan plan, RandomGenerator random) {
    this(plan, random, Map.of());
  }

  private GroupRuntime(TargetGroupPlan plan, RandomGenerator random, Map<String, TargetSelector.Turn> turns) {
    this.plan = plan;
    this.random = random;
    this.turns = turns;
    this.protocol = HttpForwarder.TargetProtocol.of(plan.tls(), plan.protocolVersion() != ProtocolVersion.HTTP1);
  }

  /** The runtime of the group's next plan, going on with round robin's turns where this one stands. */
  GroupRuntime next(TargetGroupPlan nextPlan) {
    Map<String, TargetSelector.Turn> now = new HashMap<>(turns);
    if (all != null && all.turn() != null) {
      now.put(ALL, all.turn());
    }
    if (byZone != null) {
      byZone.forEach((zone, s) -> {
        if (s.turn() != null) {
          now.put(zone, s.turn());
        }
      });
    }
    return new GroupRuntime(nextPlan, random, now);
  }

  TargetGroupPlan plan() {
    return plan;
  }

  /** How the group's targets are reached (TLS or not, HTTP/1.1 or HTTP/2). */
  HttpForwarder.TargetProtocol protocol() {
    return protocol;
  }

  /** The selector for requests arriving on a node of {@code zone}, or null when it has no scope. */
  TargetSelector selector(String zone) {
    if (plan.crossZone()) {
      if (all == null) {
        all = TargetSelector.of(plan.algorithm(), plan.scope(zone), random, turns.get(ALL));
      }
      return all;
    }
    if (byZone == null) {
      byZone = new HashMap<>();
    }
    TargetSelector s = byZone.get(zone);
    if (s == null) {
      Scope scope = plan.scope(zone);
      if (scope == null) {
        return null;
      }
      s = TargetSelector.of(plan.algorithm(), scope, random, turns.get(zone));
      byZone.put(zone, s);
    }
    return s;
  }
}
