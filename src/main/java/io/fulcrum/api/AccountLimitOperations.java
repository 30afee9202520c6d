package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.ResourceRules;
import io.fulcrum.model.Rule;
import io.vertx.core.Future;
import java.util.List;

/**
 * DescribeAccountLimits: the quotas Fulcrum enforces (SPEC §8.5), under AWS's limit names and at
 * the values it enforces them, so that what the call says is what a create or register call is
 * refused beyond. Gateway load balancers' quotas are not listed (Fulcrum has none), nor the
 * per-zone target quota of network load balancers (not counted).
 */
final class AccountLimitOperations {

  /** One limit: AWS's name, and the most Fulcrum takes. */
  record Limit(String name, int max) {
  }

  static final List<Limit> LIMITS = List.of(
      new Limit("application-load-balancers", ResourceRules.MAX_LOAD_BALANCERS),
      new Limit("condition-values-per-alb-rule", Rule.MAX_CONDITION_VALUES),
      new Limit("condition-wildcards-per-alb-rule", Rule.MAX_WILDCARDS),
      new Limit("listeners-per-application-load-balancer", LoadBalancer.MAX_LISTENERS),
      new Limit("listeners-per-network-load-balancer", LoadBalancer.MAX_LISTENERS),
      new Limit("network-load-balancers", ResourceRules.MAX_LOAD_BALANCERS),
      new Limit("rules-per-application-load-balancer", LoadBalancer.MAX_RULES),
      new Limit("target-groups", ResourceRules.MAX_TARGET_GROUPS),
      new Limit("target-groups-per-action-on-application-load-balancer", Action.Forward.MAX_TARGET_GROUPS),
      new Limit("target-groups-per-action-on-network-load-balancer", Action.Forward.MAX_TARGET_GROUPS),
      new Limit("target-groups-per-application-load-balancer", LoadBalancer.MAX_TARGET_GROUPS),
      new Limit("targets-per-application-load-balancer", LoadBalancer.MAX_TARGETS),
      new Limit("targets-per-network-load-balancer", LoadBalancer.MAX_NETWORK_TARGETS));

  private AccountLimitOperations() {
  }

  static void register(ElbApi api) {
    api.register("DescribeAccountLimits", AccountLimitOperations::describe);
  }

  /** Every limit, in the order of their names; paged. */
  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    MarkerPaging.Page<Limit> page = MarkerPaging.page(LIMITS, p);
    return Future.succeededFuture(List.of(
        Xml.list("Limits", page.items(), l -> Xml.el("member").add("Name", l.name()).add("Max", Integer.toString(l.max()))),
        Xml.text("NextMarker", page.nextMarker())));
  }
}
