package io.fulcrum.bus;

import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroupKind;
import io.fulcrum.observe.LogDestination;
import java.util.List;

/**
 * What the health checker must watch, as of one version of the resources: every target group with
 * its health check settings and every target with the reason it is (or is not) checked. Published
 * by the registry on every change; immutable.
 */
public record Registrations(long version, List<Group> groups) {

  public Registrations {
    groups = List.copyOf(groups);
  }

  /** Why a registered target is, or is not, health checked. */
  public enum Status {
    /** Checked: the group is used by a listener rule and the target's zone is enabled. */
    ACTIVE,
    /** Not checked: no listener rule uses the group ({@code unused}, {@code Target.NotInUse}). */
    GROUP_NOT_IN_USE,
    /** Not checked: the load balancer has not enabled the target's zone ({@code unused}). */
    ZONE_NOT_ENABLED,
    /**
     * Not checked nor routed to: the target is a load balancer's own listening socket
     * ({@code unused}, {@code Target.IpUnusable}).
     */
    IP_UNUSABLE,
    /** Deregistered, deregistration delay still running ({@code draining}). */
    DRAINING
  }

  /** A registered (or draining) target and its status. */
  public record Entry(Target target, Status status) {
  }

  /**
   * A target group as the health checker sees it.
   *
   * @param unhealthyDrainingSeconds how long a target that fails its checks stays
   *                                 {@code unhealthy.draining} before {@code unhealthy}: a network
   *                                 load balancer's group that does not end an unhealthy target's
   *                                 connections at once (SPEC §2.1, §3); 0 for every other group
   * @param proxyProtocol            a network load balancer's group with {@code proxy_protocol_v2.enabled}:
   *                                 its checks start with a PROXY protocol header too (SPEC §1.5)
   * @param healthCheckLog           where each check's result is logged: its application load
   *                                 balancer's {@code health_check_logs.s3}; null while that is off
   */
  public record Group(String arn, String name, TargetGroupKind kind, HealthCheck healthCheck, List<Entry> targets,
      int unhealthyDrainingSeconds, boolean proxyProtocol, LogDestination healthCheckLog) {
    public Group {
      targets = List.copyOf(targets);
    }
  }
}
