package io.fulcrum.model;

import java.util.List;

/**
 * A listener of a load balancer: protocol and port, its default actions and its rules (sorted
 * by priority). Immutable.
 */
public record Listener(String arn, Protocol protocol, int port, List<Action> defaultActions, List<Rule> rules) {

  public Listener {
    defaultActions = List.copyOf(defaultActions);
    rules = rules.stream().sorted((a, b) -> Integer.compare(a.priority(), b.priority())).toList();
  }

  public Listener withRules(List<Rule> newRules) {
    return new Listener(arn, protocol, port, defaultActions, newRules);
  }
}
