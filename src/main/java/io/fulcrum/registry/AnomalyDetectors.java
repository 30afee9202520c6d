package io.fulcrum.registry;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.GroupHealth;
import io.fulcrum.model.AnomalyDetection;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Anomaly detection and mitigation across target groups: one {@link AnomalyDetector} per group in
 * use, fed from the counters of the group's {@link Upstream}s, and the mitigation weights last
 * taken from each, which the registry builds the group's plan with. A group's detector and its
 * weights go when the group is no longer in use, or is gone.
 *
 * <p>The registry calls {@link #tick} for each group in use once per bucket, from a timer of its
 * own, and rebuilds the plan of a group whose weights moved. Not thread-safe: used on the
 * registry's context.
 */
final class AnomalyDetectors {

  /** Anomaly-mitigation weights by group and target key (absent: 1). */
  private final Map<String, Map<String, Double>> anomalyWeights = new HashMap<>();
  private final Map<String, AnomalyDetector> detectors = new HashMap<>();

  /**
   * Drops the detectors of groups not in {@code groupArns}, and their weights with them: a group
   * used again starts with a new detector, and with no mitigation that a new detector, seeing
   * nothing to change, would never lift.
   */
  void retain(Set<String> groupArns) {
    detectors.keySet().retainAll(groupArns);
    anomalyWeights.keySet().retainAll(groupArns);
  }

  /**
   * Closes one bucket of the group's anomaly window.
   *
   * @param zones     the enabled zones of the load balancer using the group
   * @param upstreams the group's upstreams by target key
   * @param gh        the group's latest health, or null
   * @return whether its weights moved (its plan must be rebuilt)
   */
  boolean tick(TargetGroup g, List<String> zones, Map<String, Upstream> upstreams, GroupHealth gh) {
    // Lambda target groups have no protocol, and no anomaly detection.
    if (g.protocol() == null || !g.protocol().isHttpFamily()) {
      return false;
    }
    boolean crossZone = TargetGroupPlan.crossZone(g);
    Map<String, List<Upstream>> scopes = new LinkedHashMap<>();
    for (Target t : g.targets()) {
      Upstream u = upstreams.get(t.key());
      boolean enabled = Target.ALL_ZONES.equals(t.zone()) || zones.contains(t.zone());
      if (u != null && enabled) {
        scopes.computeIfAbsent(crossZone ? "*" : t.zone(), k -> new ArrayList<>()).add(u);
      }
    }
    int healthy = gh == null ? 0 : (int) gh.targets().values().stream().filter(TargetHealth::healthy).count();
    boolean mitigate = g.attributes().anomalyMitigation() && "weighted_random".equals(g.attributes().algorithm());
    AnomalyDetector d = detectors.computeIfAbsent(g.arn(), k -> new AnomalyDetector());
    if (d.tick(scopes, healthy, mitigate)) {
      anomalyWeights.put(g.arn(), d.weights());
      return true;
    }
    return false;
  }

  /** The group's mitigation weights below 1, by target key. */
  Map<String, Double> weights(String groupArn) {
    return anomalyWeights.getOrDefault(groupArn, Map.of());
  }

  /** The group's results, by target key (empty when it has no detector). */
  Map<String, AnomalyDetection> results(String groupArn) {
    AnomalyDetector d = detectors.get(groupArn);
    return d == null ? Map.of() : Map.copyOf(d.results());
  }

  /** Every detector's results, by group ARN and target key. */
  Map<String, Map<String, AnomalyDetection>> results() {
    Map<String, Map<String, AnomalyDetection>> anomalies = new HashMap<>();
    detectors.forEach((arn, d) -> anomalies.put(arn, d.results()));
    return anomalies;
  }

  /** Forgets the weights of a group that is gone. */
  void forget(String groupArn) {
    anomalyWeights.remove(groupArn);
  }
}
