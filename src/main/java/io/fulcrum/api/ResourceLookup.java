package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Rule;
import io.fulcrum.model.TargetGroup;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Finds resources by ARN in an immutable {@link Resources} and answers with the error AWS gives
 * for a missing one ({@code TargetGroupNotFound}, {@code LoadBalancerNotFound},
 * {@code ListenerNotFound}, {@code RuleNotFound}). Safe from any thread.
 */
final class ResourceLookup {

  static final String TARGET_GROUP_NOT_FOUND = "One or more target groups not found";

  private ResourceLookup() {
  }

  static ApiError targetGroupNotFound() {
    return ApiError.sender("TargetGroupNotFound", TARGET_GROUP_NOT_FOUND);
  }

  static ApiError loadBalancerNotFound() {
    return ApiError.sender("LoadBalancerNotFound", "The specified load balancer does not exist.");
  }

  static TargetGroup targetGroup(Resources r, String arn) {
    return r.targetGroup(arn).orElseThrow(ResourceLookup::targetGroupNotFound);
  }

  /** Every action of a listener: its default actions and those of its rules. */
  static List<Action> actions(Listener l) {
    List<Action> out = new ArrayList<>(l.defaultActions());
    l.rules().forEach(rule -> out.addAll(rule.actions()));
    return out;
  }

  /** The load balancer whose listeners or rules forward to each target group (a group serves one). */
  static Map<String, String> loadBalancerOfGroups(Resources r) {
    Map<String, String> out = new LinkedHashMap<>();
    for (LoadBalancer lb : r.loadBalancers()) {
      for (Listener l : lb.listeners()) {
        for (Action a : actions(l)) {
          if (a instanceof Action.Forward f) {
            f.targetGroups().forEach(w -> out.putIfAbsent(w.arn(), lb.arn()));
          }
        }
      }
    }
    return out;
  }

  /** Whether a listener or a rule forwards to the group. */
  static boolean inUse(Resources r, String groupArn) {
    return loadBalancerOfGroups(r).containsKey(groupArn);
  }

  /** The kinds of resource that carry tags, told apart by their ARN. */
  enum Kind {
    TARGET_GROUP(":targetgroup/", "TargetGroupNotFound", TARGET_GROUP_NOT_FOUND, "target group"),
    LOAD_BALANCER(":loadbalancer/", "LoadBalancerNotFound", "The specified load balancer does not exist.",
        "load balancer"),
    LISTENER(":listener/", "ListenerNotFound", "The specified listener does not exist.", "listener"),
    RULE(":listener-rule/", "RuleNotFound", "One or more rules not found", "rule");

    final String marker;
    final String notFoundCode;
    final String notFoundMessage;
    final String noun;

    Kind(String marker, String notFoundCode, String notFoundMessage, String noun) {
      this.marker = marker;
      this.notFoundCode = notFoundCode;
      this.notFoundMessage = notFoundMessage;
      this.noun = noun;
    }
  }

  /** The kind of resource an ARN names; a {@code ValidationError} when it names none Fulcrum has. */
  static Kind kind(String arn) {
    if (arn.startsWith("arn:aws:elasticloadbalancing:")) {
      for (Kind k : Kind.values()) {
        if (arn.contains(k.marker)) {
          return k;
        }
      }
    }
    throw ApiError.validation("'" + arn + "' is not a valid load balancer, listener, rule or target group ARN");
  }

  /** Checks that a taggable resource exists; fails with its kind's NotFound error. */
  static Kind requireTaggable(Resources r, String arn) {
    Kind k = kind(arn);
    boolean found = switch (k) {
      case TARGET_GROUP -> r.targetGroup(arn).isPresent();
      case LOAD_BALANCER -> r.loadBalancer(arn).isPresent();
      case LISTENER -> r.loadBalancers().stream().flatMap(lb -> lb.listeners().stream())
          .anyMatch(l -> l.arn().equals(arn));
      case RULE -> r.loadBalancers().stream().flatMap(lb -> lb.listeners().stream())
          .flatMap(l -> l.rules().stream()).map(Rule::arn).anyMatch(arn::equals);
    };
    if (!found) {
      throw ApiError.sender(k.notFoundCode, k.notFoundMessage);
    }
    return k;
  }
}
