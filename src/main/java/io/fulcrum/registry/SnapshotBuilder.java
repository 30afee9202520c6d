package io.fulcrum.registry;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Node;
import io.fulcrum.model.Resources;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.routing.ForwardRoute;
import io.fulcrum.routing.RouteAction;
import io.fulcrum.routing.RouteTable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** Compiles validated resources into the immutable snapshot the data plane runs. */
public final class SnapshotBuilder {

  private SnapshotBuilder() {
  }

  public static DataPlaneSnapshot build(long version, Environment env, Resources resources) {
    Map<String, TargetGroup> groupsByArn = new HashMap<>();
    resources.targetGroups().forEach(g -> groupsByArn.put(g.arn(), g));
    List<ListenerPlan> listeners = new ArrayList<>();
    Map<String, TargetGroupPlan> groups = new HashMap<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      List<Node> nodes = env.nodes().stream().filter(n -> lb.zones().contains(n.zone())).toList();
      ProxySettings proxy = ProxySettings.of(lb);
      for (Listener l : lb.listeners()) {
        RouteTable routes = RouteTable.compile(l);
        listeners.add(new ListenerPlan(lb.name(), l.arn(), l.protocol(), l.port(), nodes, routes, proxy));
        for (RouteAction a : routes.actions()) {
          if (a instanceof ForwardRoute f) {
            for (String arn : f.targetGroupArns()) {
              TargetGroup g = groupsByArn.get(arn);
              if (g != null) {
                groups.computeIfAbsent(arn, k -> TargetGroupPlan.of(g, lb.zones()));
              }
            }
          }
        }
      }
    }
    return new DataPlaneSnapshot(version, listeners, groups);
  }
}
