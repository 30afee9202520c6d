package io.fulcrum.balancer;

import io.fulcrum.model.Protocol;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import java.util.ArrayList;
import java.util.List;

/**
 * A target group as one snapshot of the data plane sees it: the targets requests may go to,
 * decided before any selection, and how to reach them. Immutable and shared by every event loop.
 */
public final class TargetGroupPlan {

  private final String arn;
  private final String name;
  private final boolean tls;
  private final Upstream[] registered;
  private final Upstream[] eligible;

  private TargetGroupPlan(String arn, String name, boolean tls, Upstream[] registered, Upstream[] eligible) {
    this.arn = arn;
    this.name = name;
    this.tls = tls;
    this.registered = registered;
    this.eligible = eligible;
  }

  /**
   * Builds the plan of a group for a load balancer whose enabled zones are {@code zones}: targets
   * in other zones are not used (state {@code unused}, reason {@code Target.NotInUse}).
   */
  public static TargetGroupPlan of(TargetGroup group, List<String> zones) {
    List<Upstream> all = new ArrayList<>();
    List<Upstream> eligible = new ArrayList<>();
    for (Target t : group.targets()) {
      Upstream u = new Upstream(t.key(), t.id(), t.address(), t.port(), t.zone());
      all.add(u);
      if (Target.ALL_ZONES.equals(t.zone()) || zones.contains(t.zone())) {
        eligible.add(u);
      }
    }
    return new TargetGroupPlan(group.arn(), group.name(), group.protocol() == Protocol.HTTPS,
        all.toArray(Upstream[]::new), eligible.toArray(Upstream[]::new));
  }

  public String arn() {
    return arn;
  }

  public String name() {
    return name;
  }

  /** Whether targets are reached over TLS (target group protocol HTTPS). */
  public boolean tls() {
    return tls;
  }

  /** Whether the group has any registered target (else: 503, no registered targets). */
  public boolean hasRegisteredTargets() {
    return registered.length > 0;
  }

  /** The targets a selector may choose from; shared, callers must not modify it. */
  Upstream[] eligible() {
    return eligible;
  }

  public int eligibleCount() {
    return eligible.length;
  }
}
