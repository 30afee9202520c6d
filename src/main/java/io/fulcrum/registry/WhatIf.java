package io.fulcrum.registry;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import java.util.List;
import java.util.Set;

/**
 * A what-if's answer ({@link RegistryVerticle#whatIf}): the group's plan and the load balancers'
 * DNS zones now ({@code now}, {@code dnsNow}) and if {@code failing} failed ({@code then},
 * {@code dnsThen}). Immutable.
 *
 * @param zones the zones the group is used in
 */
public record WhatIf(TargetGroup group, List<String> zones, Set<String> failing, TargetGroupPlan now,
    TargetGroupPlan then, ZoneStatus dnsNow, ZoneStatus dnsThen) {

  /** The health a what-if gives the targets it assumes failing. */
  static final TargetHealth ASSUMED_FAILING = new TargetHealth(TargetState.UNHEALTHY, "WhatIf.AssumedFailing",
      "Assumed failing by a what-if");
}
