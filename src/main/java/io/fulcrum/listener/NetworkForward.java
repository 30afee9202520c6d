package io.fulcrum.listener;

import io.fulcrum.balancer.FlowChoice;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.routing.ForwardRoute;
import io.fulcrum.routing.RouteAction;
import java.util.Map;

/**
 * Which target group a network load balancer's new flow goes to: its listener's one group, or one
 * of its weighted groups (NLB's weighted target groups), chosen in proportion to their weights by a
 * hash of the flow, so that the choice costs no random draw and a flow's group is its own; by a
 * hash of the client's address instead when a group has {@code source_ip} stickiness, so that a
 * client keeps its group as it keeps its target. Stateless.
 */
final class NetworkForward {

  private NetworkForward() {
  }

  /** The forward action of a network listener's plan, or null when it has none. */
  static ForwardRoute of(ListenerPlan plan) {
    ForwardRoute forward = null;
    for (RouteAction a : plan.routes().actions()) {
      if (a instanceof ForwardRoute f && f.groupCount() > 0) {
        forward = f;
      }
    }
    return forward;
  }

  /**
   * The plan of the group a new flow goes to; null when there is none (no forward, every weight 0,
   * or a group not in the snapshot).
   *
   * @param flowHash   the flow's hash ({@link FlowChoice#flowHash})
   * @param sourceHash the client address's ({@link FlowChoice#addressHash})
   */
  static TargetGroupPlan group(ForwardRoute forward, Map<String, TargetGroupPlan> plans, long flowHash,
      long sourceHash) {
    if (forward == null) {
      return null;
    }
    if (forward.groupCount() == 1) {
      return plans.get(forward.arnAt(0));
    }
    boolean bySource = false;
    for (int i = 0; i < forward.groupCount(); i++) {
      TargetGroupPlan p = plans.get(forward.arnAt(i));
      bySource |= p != null && p.flows() != null && p.flows().sourceIp();
    }
    String arn = forward.chooseBy(FlowChoice.groupHash(bySource ? sourceHash : flowHash));
    return arn == null ? null : plans.get(arn);
  }
}
