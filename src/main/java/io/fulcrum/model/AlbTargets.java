package io.fulcrum.model;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Application load balancers registered as targets of network load balancers (target type
 * {@code alb}, SPEC §8.1): which load balancer a target names, where it is reached, and the rules
 * AWS sets on them. An {@code alb} target is registered by the ALB's ARN on one of its listeners'
 * ports; it is reached on the ALB's nodes, the one in the connecting node's zone where the ALB has
 * it (as an NLB sends to the ALB's address in its own zone), else its first.
 */
public final class AlbTargets {

  private AlbTargets() {
  }

  /** The application load balancer {@code target} names, if it exists. */
  public static Optional<LoadBalancer> loadBalancer(Resources resources, Target target) {
    return resources.loadBalancer(target.id()).filter(lb -> lb.type() == LoadBalancerType.APPLICATION);
  }

  /**
   * The address of each of {@code lb}'s zones: the deployment's node there, in the order of the
   * deployment's nodes.
   */
  public static Map<String, String> zoneAddresses(Environment env, LoadBalancer lb) {
    Map<String, String> out = new LinkedHashMap<>();
    for (Node node : env.nodes()) {
      if (lb.zones().contains(node.zone())) {
        out.putIfAbsent(node.zone(), node.address());
      }
    }
    return out;
  }

  /**
   * {@code resources} with the address of every {@code alb} target set to its load balancer's first
   * node (where health checks reach it); {@code resources} itself when none changes. A target whose
   * load balancer is gone (one still draining) keeps the address it had.
   */
  public static Resources withAddresses(Environment env, Resources resources) {
    List<TargetGroup> groups = new ArrayList<>(resources.targetGroups().size());
    boolean changed = false;
    for (TargetGroup g : resources.targetGroups()) {
      if (g.targetType() != TargetType.ALB) {
        groups.add(g);
        continue;
      }
      List<Target> targets = new ArrayList<>(g.targets().size());
      boolean groupChanged = false;
      for (Target t : g.targets()) {
        Target located = located(env, resources, t);
        groupChanged |= located != t;
        targets.add(located);
      }
      groups.add(groupChanged ? g.withTargets(targets) : g);
      changed |= groupChanged;
    }
    return changed ? new Resources(resources.loadBalancers(), groups, resources.tags()) : resources;
  }

  /**
   * {@code target} with the address of its load balancer's first node; {@code target} itself when
   * that is its address already, or when the load balancer is gone.
   */
  public static Target located(Environment env, Resources resources, Target target) {
    String address = loadBalancer(resources, target)
        .map(lb -> zoneAddresses(env, lb).values().stream().findFirst().orElse(null)).orElse(target.address());
    return java.util.Objects.equals(address, target.address()) ? target
        : new Target(target.id(), target.port(), target.zone(), address, target.zoneGiven());
  }

  /**
   * What AWS requires of {@code alb} target groups across resources: each names an application
   * load balancer that exists (so one cannot be deleted while registered) and holds at most one.
   * One application load balancer may be in several groups, one per network load balancer (AWS
   * allowed two at first, any number now). Problems at the config's paths
   * ({@code target-groups[i].targets[j].id}).
   */
  static void check(Resources resources, Problems problems) {
    for (int i = 0; i < resources.targetGroups().size(); i++) {
      TargetGroup g = resources.targetGroups().get(i);
      if (g.targetType() != TargetType.ALB) {
        continue;
      }
      Problems gp = problems.at("target-groups").at(i);
      if (g.targets().size() > 1) {
        gp.at("targets").add("TooManyTargets", "a target group of type alb holds one application load balancer; '"
            + g.name() + "' would hold " + g.targets().size() + " targets");
      }
      for (int j = 0; j < g.targets().size(); j++) {
        Target t = g.targets().get(j);
        Optional<LoadBalancer> lb = loadBalancer(resources, t);
        if (lb.isEmpty()) {
          // The file names load balancers by name: one of that name may be a network load balancer.
          String name = Arns.loadBalancerName(t.id());
          boolean network = resources.loadBalancers().stream().anyMatch(x -> x.name().equals(name));
          gp.at("targets").at(j).at("id").add(Problem.INVALID_TARGET, network
              ? "'" + name + "' is a network load balancer: only an application load balancer can be the target of"
                  + " a target group of type alb"
              : "The load balancer '" + t.id() + "' does not exist");
        }
      }
    }
  }

  /**
   * Why {@code target} cannot be registered now, or null: its load balancer must have a listener on
   * the target's port (the port the network load balancer sends to).
   */
  public static String listenerProblem(Resources resources, Target target) {
    Optional<LoadBalancer> lb = loadBalancer(resources, target);
    if (lb.isEmpty() || lb.get().listeners().stream().anyMatch(l -> l.port() == target.port())) {
      return null; // a load balancer that is not there is check()'s
    }
    List<String> ports = lb.get().listeners().stream().map(l -> Integer.toString(l.port())).toList();
    return "The application load balancer '" + lb.get().name() + "' has no listener on port " + target.port()
        + (ports.isEmpty() ? " (it has no listeners)" : " (its listeners' ports: " + String.join(", ", ports) + ")")
        + "; the target's port must be the port of one of its listeners";
  }

  /**
   * {@link #listenerProblem} for every {@code alb} target, at the config's paths
   * ({@code target-groups[i].targets[j].port}): the file is checked each time it is read.
   */
  public static void checkListeners(Resources resources, Problems problems) {
    for (int i = 0; i < resources.targetGroups().size(); i++) {
      TargetGroup g = resources.targetGroups().get(i);
      for (int j = 0; g.targetType() == TargetType.ALB && j < g.targets().size(); j++) {
        String problem = listenerProblem(resources, g.targets().get(j));
        if (problem != null) {
          problems.at("target-groups").at(i).at("targets").at(j).at("port").add(Problem.INVALID_TARGET, problem);
        }
      }
    }
  }

  /** The names of the target groups {@code lbArn} is registered with, in order. */
  public static List<String> groupsRegistering(Resources resources, String lbArn) {
    return resources.targetGroups().stream().filter(g -> g.targetType() == TargetType.ALB
        && g.targets().stream().anyMatch(t -> t.id().equals(lbArn))).map(TargetGroup::name).toList();
  }
}
