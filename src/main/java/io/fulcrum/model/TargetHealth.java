package io.fulcrum.model;

/**
 * A target's health as DescribeTargetHealth reports it: state, reason code and description, with
 * the exact texts of SPEC §2.2. {@code reason} and {@code description} are {@code null} for
 * {@code healthy}. Immutable.
 */
public record TargetHealth(TargetState state, String reason, String description) {

  public static final TargetHealth HEALTHY = new TargetHealth(TargetState.HEALTHY, null, null);
  public static final TargetHealth REGISTRATION_IN_PROGRESS =
      new TargetHealth(TargetState.INITIAL, "Elb.RegistrationInProgress", "Target registration is in progress");
  public static final TargetHealth INITIAL_HEALTH_CHECKING =
      new TargetHealth(TargetState.INITIAL, "Elb.InitialHealthChecking", "Initial health checks in progress");
  public static final TargetHealth TIMEOUT = new TargetHealth(TargetState.UNHEALTHY, "Target.Timeout", "Request timed out");
  public static final TargetHealth FAILED =
      new TargetHealth(TargetState.UNHEALTHY, "Target.FailedHealthChecks", "Health checks failed");
  public static final TargetHealth DRAINING =
      new TargetHealth(TargetState.DRAINING, "Target.DeregistrationInProgress", "Target deregistration is in progress");
  public static final TargetHealth NOT_REGISTERED =
      new TargetHealth(TargetState.UNUSED, "Target.NotRegistered", "Target is not registered to the target group");
  public static final TargetHealth NOT_IN_USE = new TargetHealth(TargetState.UNUSED, "Target.NotInUse",
      "Target group is not configured to receive traffic from the load balancer");
  public static final TargetHealth ZONE_NOT_ENABLED = new TargetHealth(TargetState.UNUSED, "Target.NotInUse",
      "Target is in an Availability Zone that is not enabled for the load balancer");
  public static final TargetHealth IP_UNUSABLE = new TargetHealth(TargetState.UNUSED, "Target.IpUnusable",
      "The IP address cannot be used as a target, as it is in use by a load balancer");
  public static final TargetHealth CHECKS_DISABLED =
      new TargetHealth(TargetState.UNAVAILABLE, "Target.HealthCheckDisabled", "Health checks are disabled");
  public static final TargetHealth INTERNAL_ERROR = new TargetHealth(TargetState.UNHEALTHY, "Elb.InternalError",
      "Health checks failed due to an internal error");

  /** {@code Target.ResponseCodeMismatch} with the code in brackets, as AWS writes it. */
  public static TargetHealth responseCodeMismatch(int code) {
    return new TargetHealth(TargetState.UNHEALTHY, "Target.ResponseCodeMismatch",
        "Health checks failed with these codes: [" + code + "]");
  }

  /**
   * This health once the target's group is in use: {@link #NOT_IN_USE}, reported while no rule
   * used the group and still in force until the health checker hears of the rule, reads as
   * {@link #REGISTRATION_IN_PROGRESS} (a target of a group just attached is starting); anything
   * else stays as it is.
   */
  public TargetHealth inUse() {
    return equals(NOT_IN_USE) ? REGISTRATION_IN_PROGRESS : this;
  }

  /**
   * This failure as {@code unhealthy.draining} (SPEC §2.1): a network load balancer's target that
   * failed its checks keeps its connections for the group's draining interval.
   */
  public TargetHealth draining() {
    return new TargetHealth(TargetState.UNHEALTHY_DRAINING, reason, description);
  }

  /** This {@code unhealthy.draining} health as plain {@code unhealthy}, once the interval is over. */
  public TargetHealth drained() {
    return state == TargetState.UNHEALTHY_DRAINING ? new TargetHealth(TargetState.UNHEALTHY, reason, description) : this;
  }

  /** Whether new requests may be sent to the target without failing open. */
  public boolean healthy() {
    return state == TargetState.HEALTHY;
  }
}
