package io.fulcrum.model;

import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rules that span resources: which load balancer uses which target group, protocol
 * compatibility, quotas (SPEC §8.5), and attribute rules that depend on the actions using a
 * group (SPEC §3.2). Problems are recorded at config paths ({@code load-balancers[0]...}).
 */
public final class ResourceRules {

  /** Application load balancers, and network load balancers, each (SPEC §8.5). */
  public static final int MAX_LOAD_BALANCERS = 50;
  public static final int MAX_TARGET_GROUPS = 3000;

  private ResourceRules() {
  }

  public static void check(Environment env, Resources resources, Problems problems) {
    Map<String, TargetGroup> groups = new HashMap<>();
    resources.targetGroups().forEach(g -> groups.put(g.arn(), g));
    if (resources.targetGroups().size() > MAX_TARGET_GROUPS) {
      problems.at("target-groups").add("TooManyTargetGroups",
          resources.targetGroups().size() + " target groups is above the maximum " + MAX_TARGET_GROUPS);
    }
    for (LoadBalancerType type : LoadBalancerType.values()) {
      long count = resources.loadBalancers().stream().filter(lb -> lb.type() == type).count();
      if (count > MAX_LOAD_BALANCERS) {
        problems.at("load-balancers").add("TooManyLoadBalancers", count + " " + type.wire()
            + " load balancers is above the maximum " + MAX_LOAD_BALANCERS);
      }
    }

    Map<String, String> owner = new HashMap<>();
    Map<String, String> boundBy = new HashMap<>();
    for (int i = 0; i < resources.loadBalancers().size(); i++) {
      LoadBalancer lb = resources.loadBalancers().get(i);
      Problems p = problems.at("load-balancers").at(i);
      if (lb.listeners().size() > LoadBalancer.MAX_LISTENERS) {
        p.at("listeners").add("TooManyListeners",
            lb.listeners().size() + " listeners is above the maximum " + LoadBalancer.MAX_LISTENERS);
      }
      Set<String> used = new LinkedHashSet<>();
      int rules = 0;
      for (int j = 0; j < lb.listeners().size(); j++) {
        Listener l = lb.listeners().get(j);
        Problems lp = p.at("listeners").at(j);
        rules += l.rules().size();
        for (Node node : env.nodes()) {
          if (!lb.zones().contains(node.zone())) {
            continue;
          }
          for (ReservedSocket r : env.reserved()) {
            if (r.clashes(node.address(), l.port(), l.protocol() != Protocol.UDP,
                l.protocol() == Protocol.UDP || l.protocol() == Protocol.TCP_UDP)) {
              lp.at("port").add("DuplicateListener", "port " + l.port() + " on node " + node.address() + " is "
                  + r.what() + "; a listener needs a port of its own");
            }
          }
          String bind = node.address() + ":" + l.port();
          String other = boundBy.putIfAbsent(bind, lb.name());
          if (other != null && !other.equals(lb.name())) {
            // Both named: an API call changing either one is refused with this message.
            lp.at("port").add("DuplicateListener", "port " + l.port() + " on node " + node.address()
                + " would be used by load balancers '" + other + "' and '" + lb.name() + "'; a node's port serves one");
          }
        }
        if (lb.type() == LoadBalancerType.NETWORK) {
          checkNetworkListener(l, groups, lp);
        } else if (!l.protocol().isHttpFamily()) {
          lp.at("protocol").add("UnsupportedProtocol", "an application load balancer's listeners are HTTP or HTTPS, not "
              + l.protocol().wire() + " (TCP, TLS, UDP and TCP_UDP listeners belong to network load balancers)");
        }
        checkActions(l, l.defaultActions(), groups, lp.at("default-actions"), used);
        checkAddressTypes(lb, l, l.defaultActions(), groups, lp.at("default-actions"));
        for (int k = 0; k < l.rules().size(); k++) {
          checkActions(l, l.rules().get(k).actions(), groups, lp.at("rules").at(k).at("actions"), used);
          checkAddressTypes(lb, l, l.rules().get(k).actions(), groups, lp.at("rules").at(k).at("actions"));
        }
      }
      if (rules > LoadBalancer.MAX_RULES) {
        p.at("listeners").add("TooManyRules", rules + " rules is above the maximum " + LoadBalancer.MAX_RULES
            + " per load balancer");
      }
      if (used.size() > LoadBalancer.MAX_TARGET_GROUPS) {
        p.add("TooManyUniqueTargetGroupsPerLoadBalancer", used.size() + " target groups is above the maximum "
            + LoadBalancer.MAX_TARGET_GROUPS + " per load balancer");
      }
      int targets = 0;
      for (String arn : used) {
        String previous = owner.putIfAbsent(arn, lb.name());
        if (previous != null && !previous.equals(lb.name())) {
          p.add("TargetGroupAssociationLimit", "target group '" + groups.get(arn).name()
              + "' would be used by load balancers '" + previous + "' and '" + lb.name()
              + "'; a target group can serve only one load balancer");
        }
        targets += groups.get(arn).targets().size();
      }
      int maxTargets = lb.type() == LoadBalancerType.NETWORK ? LoadBalancer.MAX_NETWORK_TARGETS : LoadBalancer.MAX_TARGETS;
      if (targets > maxTargets) {
        p.add("TooManyTargets", targets + " targets is above the maximum " + maxTargets + " per "
            + lb.type().wire() + " load balancer");
      }
    }

    AlbTargets.check(resources, problems);
    for (int i = 0; i < resources.targetGroups().size(); i++) {
      TargetGroup g = resources.targetGroups().get(i);
      if ("false".equals(g.attributes().crossZone()) && g.kind() != TargetGroupKind.NLB) {
        for (int t = 0; t < g.targets().size(); t++) {
          if (Target.ALL_ZONES.equals(g.targets().get(t).zone())) {
            problems.at("target-groups").at(i).at("targets").at(t).at("zone").add(Problem.INVALID_CONFIGURATION,
                "a target in zone 'all' cannot be registered while " + TargetGroupAttributes.CROSS_ZONE
                    + " is false (expected one of: " + String.join(", ", env.zones()) + ")");
          }
        }
      }
    }
  }

  /**
   * A network load balancer's listener (SPEC §7): TCP, TLS, UDP or TCP_UDP, no rules, and one
   * default action that forwards to target groups of its family (a TCP listener to TCP or TCP_UDP
   * groups, a TLS listener to TCP or TLS groups, a UDP listener to UDP or TCP_UDP groups, a TCP_UDP
   * listener to TCP_UDP groups; only a TCP listener to an {@code alb} group): one, or up to five
   * by weight (NLB's weighted target groups), without target group stickiness (a cookie, which a
   * network load balancer cannot set). (A TLS group refuses stickiness itself, see
   * TargetGroupAttributes.)
   */
  private static void checkNetworkListener(Listener l, Map<String, TargetGroup> groups, Problems lp) {
    if (!l.protocol().isNetworkFamily() || !l.protocol().served()) {
      lp.at("protocol").add("UnsupportedProtocol", "a network load balancer's listeners are TCP, TLS, UDP or TCP_UDP,"
          + " not " + l.protocol().wire() + " (HTTP and HTTPS listeners belong to application load balancers)");
      return;
    }
    if (!l.rules().isEmpty()) {
      lp.at("rules").add(Problem.INVALID_CONFIGURATION, "a network load balancer's listeners have no rules:"
          + " each forwards every connection with its default action");
    }
    if (l.defaultActions().size() != 1 || !(l.defaultActions().get(0) instanceof Action.Forward f)) {
      lp.at("default-actions").add(Problem.INVALID_CONFIGURATION, "a network load balancer's listener has one"
          + " default action, a forward to its target groups");
      return;
    }
    if (f.stickinessEnabled()) {
      lp.at("default-actions").at(0).at("stickiness").add(Problem.INVALID_CONFIGURATION, "target group stickiness"
          + " is for application load balancers (a cookie): a network load balancer's flows each stay on the group"
          + " they were given, and source_ip stickiness on the groups keeps a client's address on one");
    }
    List<Protocol> fitting = groupProtocolsFor(l.protocol());
    for (Action.WeightedTargetGroup w : f.targetGroups()) {
      TargetGroup g = groups.get(w.arn());
      if (g != null && !fitting.contains(g.protocol())) {
        lp.at("default-actions").at(0).add("IncompatibleProtocols", "listener protocol " + l.protocol().wire()
            + " cannot forward to target group '" + g.name() + "' with protocol "
            + (g.protocol() == null ? "none (lambda)" : g.protocol().wire()) + " (expected: "
            + String.join(" or ", fitting.stream().map(Protocol::wire).toList()) + ")");
      } else if (g != null && g.targetType() == TargetType.ALB && l.protocol() != Protocol.TCP) {
        lp.at("default-actions").at(0).add("IncompatibleProtocols", "listener protocol " + l.protocol().wire()
            + " cannot forward to target group '" + g.name() + "' of type alb: only TCP listeners forward to an"
            + " application load balancer (its HTTPS listeners end TLS)");
      }
    }
  }

  /** The protocols of the target groups a network listener of {@code listener}'s protocol can forward to. */
  private static List<Protocol> groupProtocolsFor(Protocol listener) {
    return switch (listener) {
      case TCP -> List.of(Protocol.TCP, Protocol.TCP_UDP);
      case TLS -> List.of(Protocol.TCP, Protocol.TLS);
      case UDP -> List.of(Protocol.UDP, Protocol.TCP_UDP);
      case TCP_UDP -> List.of(Protocol.TCP_UDP);
      default -> List.of();
    };
  }

  /**
   * IPv6 target groups (SPEC §8.2): only a dualstack load balancer forwards to them, and of a network
   * load balancer's listeners only TCP and TLS ones. (A load balancer set back to ipv4 while it
   * forwards to one is refused the same way.)
   */
  private static void checkAddressTypes(LoadBalancer lb, Listener l, List<Action> actions,
      Map<String, TargetGroup> groups, Problems p) {
    for (int i = 0; i < actions.size(); i++) {
      if (!(actions.get(i) instanceof Action.Forward f)) {
        continue;
      }
      for (Action.WeightedTargetGroup w : f.targetGroups()) {
        TargetGroup g = groups.get(w.arn());
        if (g == null || g.ipAddressType() != IpAddressType.IPV6) {
          continue;
        }
        if (lb.ipAddressType() == LoadBalancerIpAddressType.IPV4) {
          p.at(i).add(Problem.INVALID_CONFIGURATION, "target group '" + g.name() + "' has IP address type ipv6:"
              + " only a dualstack load balancer forwards to it (load balancer '" + lb.name() + "' is ipv4)");
        } else if (lb.type() == LoadBalancerType.NETWORK && l.protocol() != Protocol.TCP && l.protocol() != Protocol.TLS) {
          p.at(i).add(Problem.INVALID_CONFIGURATION, "target group '" + g.name() + "' has IP address type ipv6:"
              + " of a network load balancer's listeners, only TCP and TLS ones forward to it (this one is "
              + l.protocol().wire() + ")");
        }
      }
    }
  }

  private static void checkActions(Listener l, List<Action> actions, Map<String, TargetGroup> groups, Problems p,
      Set<String> used) {
    Action.checkSequence(actions, p);
    for (int i = 0; i < actions.size(); i++) {
      if (!actions.get(i).routing() && l.protocol() != Protocol.HTTPS) {
        p.at(i).add("InvalidLoadBalancerAction", actions.get(i).described() + " needs an HTTPS listener"
            + " (this one is " + l.protocol().wire() + ")");
      }
      if (!(actions.get(i) instanceof Action.Forward f)) {
        continue;
      }
      Problems ap = p.at(i);
      boolean anySticky = false;
      for (Action.WeightedTargetGroup w : f.targetGroups()) {
        TargetGroup g = groups.get(w.arn());
        if (g == null) {
          continue;
        }
        used.add(g.arn());
        if (l.protocol().isHttpFamily() && g.protocol() != null && !g.protocol().isHttpFamily()) {
          ap.add("IncompatibleProtocols", "listener protocol " + l.protocol().wire() + " cannot forward to target group '"
              + g.name() + "' with protocol " + g.protocol().wire());
        }
        if (g.protocolVersion() != null && g.protocolVersion() != ProtocolVersion.HTTP1 && l.protocol() == Protocol.HTTP
            && !l.h2c()) {
          ap.add(Problem.INVALID_CONFIGURATION, "target group '" + g.name() + "' has protocol version "
              + g.protocolVersion().wire() + ": it needs an HTTPS listener, or an HTTP listener with h2c");
        }
        anySticky |= g.attributes().stickinessEnabled();
      }
      if (f.targetGroups().size() > 1 && anySticky && !f.stickinessEnabled()) {
        ap.at("stickiness").add(Problem.INVALID_CONFIGURATION,
            "a forward action to several target groups where one has stickiness must enable target group stickiness");
      }
    }
  }
}
