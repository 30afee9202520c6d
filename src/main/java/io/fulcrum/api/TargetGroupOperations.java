package io.fulcrum.api;

/**
 * Target group operations: CreateTargetGroup, DescribeTargetGroups, ModifyTargetGroup,
 * DeleteTargetGroup, DescribeTargetGroupAttributes, ModifyTargetGroupAttributes, RegisterTargets,
 * DeregisterTargets, DescribeTargetHealth; and the tag operations AddTags, RemoveTags,
 * DescribeTags.
 */
public final class TargetGroupOperations {

  private TargetGroupOperations() {
  }

  public static void register(ElbApi api) {
  }
}
