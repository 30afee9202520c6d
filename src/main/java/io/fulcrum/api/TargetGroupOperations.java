package io.fulcrum.api;

/**
 * Target group operations: CreateTargetGroup, DescribeTargetGroups, ModifyTargetGroup,
 * DeleteTargetGroup ({@link TargetGroupLifecycle}), DescribeTargetGroupAttributes,
 * ModifyTargetGroupAttributes ({@link TargetGroupAttributeOperations}), RegisterTargets,
 * DeregisterTargets ({@link TargetRegistrationOperations}), DescribeTargetHealth
 * ({@link TargetHealthOperation}); and the tag operations AddTags, RemoveTags, DescribeTags
 * ({@link TagOperations}). Every change goes through {@link ApiContext#mutate}.
 */
public final class TargetGroupOperations {

  private TargetGroupOperations() {
  }

  public static void register(ElbApi api) {
    TargetGroupLifecycle.register(api);
    TargetGroupAttributeOperations.register(api);
    TargetRegistrationOperations.register(api);
    TargetHealthOperation.register(api);
    TagOperations.register(api);
  }
}
