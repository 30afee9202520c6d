package io.fulcrum.registry;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.bus.Registrations;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.model.Action;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Node;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Rule;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.routing.RouteTable;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Compiles validated resources (and health) into what the data plane and the health checker run. */
final class SnapshotBuilder {

  private SnapshotBuilder() {
  }

  /** Every listener with its compiled rules, bound on the nodes of its load balancer's zones. */
  static List<ListenerPlan> listeners(Environment env, Resources resources) {
    List<ListenerPlan> listeners = new ArrayList<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      List<Node> nodes = env.nodes().stream().filter(n -> lb.zones().contains(n.zone())).toList();
      ProxySettings proxy = ProxySettings.of(lb);
      for (Listener l : lb.listeners()) {
        listeners.add(new ListenerPlan(lb.name(), l.arn(), l.protocol(), l.port(), nodes, RouteTable.compile(l), proxy));
      }
    }
    return listeners;
  }

  /**
   * The target groups that listener rules use, each with the enabled zones of the load balancer
   * using it (a target group serves one load balancer).
   */
  static Map<String, List<String>> groupsInUse(Resources resources) {
    Map<String, List<String>> inUse = new LinkedHashMap<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      for (Listener l : lb.listeners()) {
        List<Action> actions = new ArrayList<>(l.defaultActions());
        for (Rule r : l.rules()) {
          actions.addAll(r.actions());
        }
        for (Action a : actions) {
          if (a instanceof Action.Forward f) {
            f.targetGroups().forEach(w -> inUse.putIfAbsent(w.arn(), lb.zones()));
          }
        }
      }
    }
    return inUse;
  }

  static TargetGroupPlan plan(TargetGroup group, List<String> zones, Map<String, TargetHealth> health,
      Collection<Target> draining) {
    return TargetGroupPlan.of(group, zones, health, draining);
  }

  /** What the health checker watches: every group, each target with why it is or is not checked. */
  static Registrations registrations(long version, Resources resources, Map<String, List<String>> inUse,
      Map<String, List<Target>> draining) {
    List<Registrations.Group> groups = new ArrayList<>();
    for (TargetGroup g : resources.targetGroups()) {
      List<String> zones = inUse.get(g.arn());
      List<Registrations.Entry> entries = new ArrayList<>();
      for (Target t : g.targets()) {
        Registrations.Status status;
        if (zones == null) {
          status = Registrations.Status.GROUP_NOT_IN_USE;
        } else if (!Target.ALL_ZONES.equals(t.zone()) && !zones.contains(t.zone())) {
          status = Registrations.Status.ZONE_NOT_ENABLED;
        } else {
          status = Registrations.Status.ACTIVE;
        }
        entries.add(new Registrations.Entry(t, status));
      }
      for (Target t : draining.getOrDefault(g.arn(), List.of())) {
        entries.add(new Registrations.Entry(t, Registrations.Status.DRAINING));
      }
      groups.add(new Registrations.Group(g.arn(), g.name(), g.kind(), g.healthCheck(), entries));
    }
    return new Registrations(version, groups);
  }
}
