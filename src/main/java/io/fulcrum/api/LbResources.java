package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Environment;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Rule;
import io.fulcrum.model.TargetGroup;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finding and replacing load balancers, listeners and rules in an immutable {@link Resources}.
 * Lookups fail with {@link InvalidModelException} carrying AWS's not-found codes, so they may run
 * inside a change given to {@link ApiContext#mutate} as well as in a read.
 */
final class LbResources {

  private static final SecureRandom RANDOM = new SecureRandom();

  private LbResources() {
  }

  /** A listener and the load balancer it belongs to. */
  record ListenerRef(LoadBalancer lb, Listener listener) {
  }

  /** A rule, its listener and load balancer; {@code rule} is null for a listener's default rule. */
  record RuleRef(LoadBalancer lb, Listener listener, Rule rule, String arn) {
    boolean isDefault() {
      return rule == null;
    }
  }

  /** A refusal with one AWS error code, for use inside a change. */
  static InvalidModelException refusal(String code, String message) {
    return new InvalidModelException(List.of(new Problem("", code, message)));
  }

  static LoadBalancer loadBalancer(Resources r, String arn) {
    return r.loadBalancer(arn).orElseThrow(() -> refusal("LoadBalancerNotFound", "One or more load balancers not found"));
  }

  static Optional<LoadBalancer> byName(Resources r, String name) {
    return r.loadBalancers().stream().filter(lb -> lb.name().equals(name)).findFirst();
  }

  static ListenerRef listener(Resources r, String arn) {
    for (LoadBalancer lb : r.loadBalancers()) {
      for (Listener l : lb.listeners()) {
        if (l.arn().equals(arn)) {
          return new ListenerRef(lb, l);
        }
      }
    }
    throw refusal("ListenerNotFound", "One or more listeners not found");
  }

  /** A rule by ARN, the default rules of listeners included. */
  static RuleRef rule(Resources r, Environment env, String arn) {
    for (LoadBalancer lb : r.loadBalancers()) {
      for (Listener l : lb.listeners()) {
        for (Rule rule : l.rules()) {
          if (rule.arn().equals(arn)) {
            return new RuleRef(lb, l, rule, arn);
          }
        }
        if (defaultRuleArn(env, lb, l).equals(arn)) {
          return new RuleRef(lb, l, null, arn);
        }
      }
    }
    throw refusal("RuleNotFound", "One or more rules not found");
  }

  /**
   * The ARN of a listener's default rule. The model keeps a listener's default actions on the
   * listener, so this ARN is derived from the listener's: the same on every call and every start.
   */
  static String defaultRuleArn(Environment env, LoadBalancer lb, Listener l) {
    Arns arns = env.arns();
    return arns.rule(lb.type(), lb.name(), Arns.idOf(lb.arn()), Arns.idOf(l.arn()),
        arns.stableId("default-rule", l.arn()));
  }

  /** The resources with {@code lb} in place of the load balancer with its ARN. */
  static Resources replace(Resources r, LoadBalancer lb) {
    List<LoadBalancer> lbs = new ArrayList<>();
    for (LoadBalancer old : r.loadBalancers()) {
      lbs.add(old.arn().equals(lb.arn()) ? lb : old);
    }
    return new Resources(lbs, r.targetGroups(), r.tags());
  }

  /** The resources with {@code listener} in place of the listener with its ARN. */
  static Resources replace(Resources r, LoadBalancer lb, Listener listener) {
    List<Listener> listeners = new ArrayList<>();
    for (Listener old : lb.listeners()) {
      listeners.add(old.arn().equals(listener.arn()) ? listener : old);
    }
    return replace(r, lb.withListeners(listeners));
  }

  static Resources withTags(Resources r, String arn, Map<String, String> tags) {
    if (tags.isEmpty()) {
      return r;
    }
    Map<String, Map<String, String>> all = new LinkedHashMap<>(r.tags());
    all.put(arn, tags);
    return new Resources(r.loadBalancers(), r.targetGroups(), all);
  }

  static Resources withoutTags(Resources r, Collection<String> arns) {
    Map<String, Map<String, String>> all = new LinkedHashMap<>(r.tags());
    all.keySet().removeAll(arns);
    return new Resources(r.loadBalancers(), r.targetGroups(), all);
  }

  /** The ARNs of a listener and of its rules, whose tags go with it. */
  static List<String> arnsOf(Listener l) {
    List<String> out = new ArrayList<>();
    out.add(l.arn());
    l.rules().forEach(rule -> out.add(rule.arn()));
    return out;
  }

  /** A random id of 16 hex digits that no resource uses yet. */
  static String newId(Resources r) {
    Set<String> taken = new HashSet<>();
    r.targetGroups().forEach(g -> taken.add(Arns.idOf(g.arn())));
    for (LoadBalancer lb : r.loadBalancers()) {
      taken.add(Arns.idOf(lb.arn()));
      for (Listener l : lb.listeners()) {
        taken.add(Arns.idOf(l.arn()));
        l.rules().forEach(rule -> taken.add(Arns.idOf(rule.arn())));
      }
    }
    while (true) {
      byte[] b = new byte[8];
      RANDOM.nextBytes(b);
      String id = HexFormat.of().formatHex(b);
      if (taken.add(id)) {
        return id;
      }
    }
  }

  /**
   * Completes forward actions parsed from a request with the names of their target groups, or
   * refuses with {@code TargetGroupNotFound}.
   */
  static List<Action> resolve(Resources r, List<Action> actions) {
    List<Action> out = new ArrayList<>();
    for (Action a : actions) {
      if (a instanceof Action.Forward f) {
        List<Action.WeightedTargetGroup> groups = new ArrayList<>();
        for (Action.WeightedTargetGroup w : f.targetGroups()) {
          TargetGroup g = r.targetGroup(w.arn()).orElseThrow(() -> refusal("TargetGroupNotFound",
              "Target group '" + w.arn() + "' not found"));
          groups.add(new Action.WeightedTargetGroup(g.arn(), g.name(), w.weight()));
        }
        out.add(new Action.Forward(groups, f.stickinessEnabled(), f.stickinessDurationSeconds()));
      } else {
        out.add(a);
      }
    }
    return out;
  }
}
