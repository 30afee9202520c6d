package io.fulcrum.api;

/**
 * Load balancer, listener and rule operations: CreateLoadBalancer, DescribeLoadBalancers,
 * DeleteLoadBalancer, DescribeLoadBalancerAttributes, ModifyLoadBalancerAttributes,
 * CreateListener, DescribeListeners, ModifyListener, DeleteListener, CreateRule, DescribeRules,
 * ModifyRule, DeleteRule, SetRulePriorities.
 */
public final class LoadBalancerOperations {

  private LoadBalancerOperations() {
  }

  public static void register(ElbApi api) {
  }
}
