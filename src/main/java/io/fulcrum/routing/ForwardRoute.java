package io.fulcrum.routing;

import io.fulcrum.model.Action;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * Forward to one target group, or to one of several chosen in proportion to their weights.
 * Immutable; {@link #choose(RandomGenerator)} allocates nothing.
 */
public final class ForwardRoute implements RouteAction {

  private final int priority;
  private final String[] arns;
  private final int[] cumulative;
  private final int total;
  private final boolean stickiness;
  private final int stickinessSeconds;
  private final Rewrites rewrites;

  ForwardRoute(int priority, Action.Forward forward, Rewrites rewrites) {
    this.priority = priority;
    this.rewrites = rewrites;
    List<Action.WeightedTargetGroup> groups = forward.targetGroups();
    this.arns = new String[groups.size()];
    this.cumulative = new int[groups.size()];
    int sum = 0;
    for (int i = 0; i < groups.size(); i++) {
      arns[i] = groups.get(i).arn();
      // A single target group always receives the traffic, whatever its weight.
      sum += groups.size() == 1 ? 1 : groups.get(i).weight();
      cumulative[i] = sum;
    }
    this.total = sum;
    this.stickiness = forward.stickinessEnabled();
    this.stickinessSeconds = forward.stickinessDurationSeconds();
    String[] ids = new String[arns.length];
    for (int i = 0; i < arns.length; i++) {
      ids[i] = arns[i].substring(arns[i].lastIndexOf('/') + 1);
    }
    java.util.Arrays.sort(ids);
    this.groupsKey = Integer.toHexString(String.join(",", ids).hashCode());
  }

  private final String groupsKey;

  /**
   * What tells this action's target-group stickiness entries from another's in one
   * {@code AWSALBTG}: derived from the set of groups it forwards to (not their order or weights),
   * so that it holds across edits of the weights, and two actions sharing a group keep their own
   * choices.
   */
  public String groupsKey() {
    return groupsKey;
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public String executed() {
    return "forward";
  }

  /** The rule's transforms, which rewrite the request before it goes on; null when it has none. */
  public Rewrites rewrites() {
    return rewrites;
  }

  /** The chosen target group's ARN, or {@code null} when every weight is 0. */
  public String choose(RandomGenerator random) {
    if (arns.length == 1) {
      return arns[0];
    }
    return total == 0 ? null : at(random.nextInt(total));
  }

  /**
   * Like {@link #choose(RandomGenerator)}, by a hash (uniform over its 64 bits) in place of a random
   * draw: the same hash, the same group.
   */
  public String chooseBy(long hash) {
    if (arns.length == 1) {
      return arns[0];
    }
    return total == 0 ? null : at((int) Long.remainderUnsigned(hash, total));
  }

  /** The group whose share of the weights holds {@code r} (0 to the total, exclusive). */
  private String at(int r) {
    for (int i = 0; i < cumulative.length; i++) {
      if (r < cumulative[i]) {
        return arns[i];
      }
    }
    return arns[arns.length - 1];
  }

  /** Every target group this action may forward to. */
  public List<String> targetGroupArns() {
    return List.of(arns);
  }

  /** How many target groups the action names. */
  public int groupCount() {
    return arns.length;
  }

  /** The ARN of the action's {@code i}-th target group. */
  public String arnAt(int i) {
    return arns[i];
  }

  /** The weight of the {@code i}-th target group (a single group always takes the traffic: 1). */
  public int weightAt(int i) {
    return cumulative[i] - (i == 0 ? 0 : cumulative[i - 1]);
  }

  public boolean weighted() {
    return arns.length > 1;
  }

  public boolean stickiness() {
    return stickiness;
  }

  public int stickinessSeconds() {
    return stickinessSeconds;
  }
}
