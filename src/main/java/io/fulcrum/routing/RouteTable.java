package io.fulcrum.routing;

import io.fulcrum.model.Action;
import io.fulcrum.model.Listener;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import java.util.ArrayList;
import java.util.List;

/**
 * A listener's rules compiled for matching: evaluated in priority order, the first rule whose
 * conditions all match decides; otherwise the default action does. Immutable and shared by every
 * event loop; {@link #match(RequestFacts)} allocates nothing of its own.
 */
public final class RouteTable {

  private final ConditionMatcher[][] conditions;
  private final RouteAction[] actions;
  private final RouteAction defaultAction;

  private RouteTable(ConditionMatcher[][] conditions, RouteAction[] actions, RouteAction defaultAction) {
    this.conditions = conditions;
    this.actions = actions;
    this.defaultAction = defaultAction;
  }

  /** Compiles a validated listener (rules are already sorted by priority). */
  public static RouteTable compile(Listener listener) {
    List<Rule> rules = listener.rules();
    ConditionMatcher[][] conditions = new ConditionMatcher[rules.size()][];
    RouteAction[] actions = new RouteAction[rules.size()];
    for (int i = 0; i < rules.size(); i++) {
      Rule rule = rules.get(i);
      List<ConditionMatcher> ms = new ArrayList<>();
      for (RuleCondition c : rule.conditions()) {
        ms.add(ConditionMatcher.compile(c));
      }
      conditions[i] = ms.toArray(ConditionMatcher[]::new);
      actions[i] = compile(rule.priority(), rule.actions().get(0));
    }
    return new RouteTable(conditions, actions, compile(0, listener.defaultActions().get(0)));
  }

  static RouteAction compile(int priority, Action action) {
    if (action instanceof Action.Forward f) {
      return new ForwardRoute(priority, f);
    }
    if (action instanceof Action.FixedResponse f) {
      return new FixedRoute(priority, f.statusCode(), f.contentType(), f.messageBody());
    }
    if (action instanceof Action.Redirect r) {
      return new RedirectRoute(priority, r);
    }
    throw new IllegalArgumentException("unknown action " + action);
  }

  public RouteAction match(RequestFacts request) {
    rules:
    for (int i = 0; i < conditions.length; i++) {
      for (ConditionMatcher m : conditions[i]) {
        if (!m.matches(request)) {
          continue rules;
        }
      }
      return actions[i];
    }
    return defaultAction;
  }

  /** Every action of the table, default last (to find which target groups a listener uses). */
  public List<RouteAction> actions() {
    List<RouteAction> all = new ArrayList<>(List.of(actions));
    all.add(defaultAction);
    return all;
  }
}
