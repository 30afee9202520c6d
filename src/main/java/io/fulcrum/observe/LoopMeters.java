package io.fulcrum.observe;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The counters of one event loop (one listener verticle), by load balancer and zone. Touched only
 * on that loop: requests add to plain fields, and a scrape copies them there too (see
 * {@link Meters#collect}), so the request path has no atomic operation and no lock.
 */
public final class LoopMeters {

  private final Map<String, LoadBalancerMeters> byKey = new HashMap<>();

  /**
   * The counters of a load balancer's node in a zone, made on first use.
   *
   * @param loadBalancer the {@code LoadBalancer} dimension, {@code app/<name>/<id>}
   */
  public LoadBalancerMeters loadBalancer(String loadBalancer, String zone) {
    String key = LoadBalancerMeters.key(loadBalancer, zone);
    LoadBalancerMeters m = byKey.get(key);
    if (m == null) {
      m = new LoadBalancerMeters(loadBalancer, zone);
      byKey.put(key, m);
    }
    return m;
  }

  /**
   * Forgets load balancers and target groups that are gone, so that their series leave the
   * scrape; a counter of one that comes back starts over from 0, which Prometheus reads as a reset.
   *
   * @param loadBalancers the {@code LoadBalancer} dimensions still served
   * @param groupArns     the target groups still in use
   */
  public void retain(Set<String> loadBalancers, Set<String> groupArns) {
    byKey.values().removeIf(m -> !loadBalancers.contains(m.loadBalancer));
    for (LoadBalancerMeters m : byKey.values()) {
      m.groups.keySet().retainAll(groupArns);
    }
  }

  /** A copy of every counter as it is now. */
  List<LoadBalancerMeters> copy() {
    List<LoadBalancerMeters> out = new ArrayList<>(byKey.size());
    for (LoadBalancerMeters m : byKey.values()) {
      LoadBalancerMeters c = new LoadBalancerMeters(m.loadBalancer, m.zone);
      m.addTo(c);
      out.add(c);
    }
    return out;
  }
}
