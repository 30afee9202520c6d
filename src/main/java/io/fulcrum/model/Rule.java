package io.fulcrum.model;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A listener rule: a priority (1-50000, lower first), conditions that must all match, the action,
 * and the transforms that rewrite a request it forwards. Immutable.
 */
public record Rule(String arn, int priority, List<RuleCondition> conditions, List<Action> actions,
    List<RuleTransform> transforms) {

  public static final int MIN_PRIORITY = 1;
  public static final int MAX_PRIORITY = 50_000;
  public static final int MAX_CONDITION_VALUES = 5;
  public static final int MAX_WILDCARDS = 5;

  public Rule {
    conditions = List.copyOf(conditions);
    actions = List.copyOf(actions);
    transforms = List.copyOf(transforms);
  }

  /** A rule without transforms. */
  public Rule(String arn, int priority, List<RuleCondition> conditions, List<Action> actions) {
    this(arn, priority, conditions, actions, List.of());
  }

  public Rule withPriority(int newPriority) {
    return new Rule(arn, newPriority, conditions, actions, transforms);
  }

  /**
   * Checks AWS's per-rule limits on a rule's conditions (SPEC §8.5): at least one condition, at most
   * one of each field but {@code http-header} and {@code query-string} (at {@code [i].field}), at most
   * {@value #MAX_CONDITION_VALUES} values ({@code TooManyConditionValues}) and {@value #MAX_WILDCARDS}
   * wildcards in all. Each condition's own values are checked by {@link RuleCondition#validate}.
   *
   * @param conditions the conditions in the order given; {@code null} for one that could not be read
   */
  public static void checkConditions(List<RuleCondition> conditions, Problems p) {
    if (conditions.isEmpty()) {
      p.add("a rule needs at least one condition");
    }
    Set<String> singles = new HashSet<>();
    int values = 0;
    int wildcards = 0;
    for (int i = 0; i < conditions.size(); i++) {
      RuleCondition c = conditions.get(i);
      if (c == null) {
        continue;
      }
      if (!c.field().equals("http-header") && !c.field().equals("query-string") && !singles.add(c.field())) {
        p.at(i).at("field").add("a rule can have only one " + c.field() + " condition");
      }
      values += c.valueCount();
      wildcards += c.wildcardCount();
    }
    if (values > MAX_CONDITION_VALUES) {
      p.add("TooManyConditionValues", values + " condition values is above the maximum " + MAX_CONDITION_VALUES
          + " per rule (match evaluations included)");
    }
    if (wildcards > MAX_WILDCARDS) {
      p.add(wildcards + " wildcards is above the maximum " + MAX_WILDCARDS + " per rule");
    }
  }
}
