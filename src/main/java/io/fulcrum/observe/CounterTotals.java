package io.fulcrum.observe;

import io.vertx.core.json.JsonObject;
import java.util.Collection;

/**
 * The counters of every event loop, as {@link Meters#collect} adds them up, summed over zones for
 * the dashboard: by load balancer ({@code app/<name>/<id>}), and within it by target group
 * ({@code targetgroup/<name>/<id>}). Counts since the process started; a reader makes rates of them.
 */
public final class CounterTotals {

  private CounterTotals() {
  }

  /** {@code {"<LoadBalancer>": {counters..., "groups": {"<TargetGroup>": {counters...}}}}}. */
  public static JsonObject byLoadBalancer(Collection<LoadBalancerMeters> counters) {
    JsonObject out = new JsonObject();
    for (LoadBalancerMeters m : counters) {
      JsonObject lb = out.getJsonObject(m.loadBalancer);
      if (lb == null) {
        lb = new JsonObject().put("requests", 0L).put("groups", new JsonObject());
        out.put(m.loadBalancer, lb);
      }
      add(lb, "newConnections", m.newConnections);
      add(lb, "activeConnections", m.activeConnections);
      add(lb, "processedBytes", m.processedBytes);
      if (m.loadBalancer.startsWith("net/")) {
        // A network load balancer's connections: NewFlowCount, ActiveFlowCount, the TCP resets.
        add(lb, "newFlows", m.newFlows);
        add(lb, "activeFlows", m.activeFlows);
        add(lb, "activeUdpFlows", m.activeUdpFlows);
        add(lb, "resets", m.clientResets + m.elbResets + m.targetResets);
        add(lb, "elbResets", m.elbResets);
      }
      for (int c = 3; c <= 5; c++) {
        add(lb, "elb" + c + "xx", m.elbByClass[c]);
      }
      JsonObject groups = lb.getJsonObject("groups");
      for (GroupMeters g : m.groups.values()) {
        JsonObject tg = groups.getJsonObject(g.targetGroup);
        if (tg == null) {
          tg = new JsonObject();
          groups.put(g.targetGroup, tg);
        }
        add(tg, "requests", g.requests);
        add(lb, "requests", g.requests);
        for (int c = 2; c <= 5; c++) {
          add(tg, "target" + c + "xx", g.targetByClass[c]);
        }
        add(tg, "responses", g.responseTimes.count());
        add(tg, "responseTimeNanos", g.responseTimes.sumNanos);
        add(tg, "targetConnectionErrors", g.targetConnectionErrors);
      }
    }
    return out;
  }

  private static void add(JsonObject o, String key, long n) {
    o.put(key, o.getLong(key, 0L) + n);
  }
}
