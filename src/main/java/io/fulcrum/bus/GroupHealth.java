package io.fulcrum.bus;

import io.fulcrum.model.TargetHealth;
import java.util.Map;

/**
 * The health of every target of one target group, whole (never a delta): a consumer that missed
 * one message is repaired by the next. Published by the health checker on every change.
 *
 * @param groupArn the target group
 * @param version  increases with every message about this group
 * @param targets  health by target key ({@code id:port})
 * @param decidedAt when the health checker decided this state (epoch millis): transitions such as
 *                  the start of slow start date from it, not from when a consumer reads it
 */
public record GroupHealth(String groupArn, long version, Map<String, TargetHealth> targets, long decidedAt) {

  public GroupHealth {
    targets = Map.copyOf(targets);
  }
}
