package io.fulcrum.model;

import java.util.List;

/**
 * A listener rule: a priority (1-50000, lower first), conditions that must all match, and the
 * action. Immutable.
 */
public record Rule(String arn, int priority, List<RuleCondition> conditions, List<Action> actions) {

  public static final int MIN_PRIORITY = 1;
  public static final int MAX_PRIORITY = 50_000;
  public static final int MAX_CONDITION_VALUES = 5;
  public static final int MAX_WILDCARDS = 5;

  public Rule {
    conditions = List.copyOf(conditions);
    actions = List.copyOf(actions);
  }
}
