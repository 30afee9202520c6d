package io.fulcrum.balancer;

import io.fulcrum.model.Protocol;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A target group as one snapshot of the data plane sees it: which targets new requests may go to,
 * decided before any selection (DESIGN §4.4), and how to reach them. Immutable and shared by every
 * event loop.
 *
 * <p>Eligibility (SPEC §2.5): the healthy targets of the load balancer's enabled zones. When none
 * is healthy the group fails open: requests go to the healthy and unhealthy targets, and to those
 * still in their initial checks; never to draining or unused ones. Targets whose health checks are
 * disabled ({@code unavailable}) take traffic like healthy ones.
 */
public final class TargetGroupPlan {

  private final String arn;
  private final String name;
  private final boolean tls;
  private final Upstream[] registered;
  private final Upstream[] eligible;
  private final boolean failOpen;
  private final Set<String> kept;

  private TargetGroupPlan(String arn, String name, boolean tls, Upstream[] registered, Upstream[] eligible,
      boolean failOpen, Set<String> kept) {
    this.arn = arn;
    this.name = name;
    this.tls = tls;
    this.registered = registered;
    this.eligible = eligible;
    this.failOpen = failOpen;
    this.kept = kept;
  }

  /** A plan without health information: every registered target counts as initial. */
  public static TargetGroupPlan of(TargetGroup group, List<String> zones) {
    return of(group, zones, Map.of(), List.of());
  }

  /**
   * Builds the plan of a group for a load balancer whose enabled zones are {@code zones}.
   *
   * @param health   the latest health by target key (a target without an entry is initial)
   * @param draining deregistered targets whose delay still runs: no new requests, but their
   *                 requests in flight are not cut
   */
  public static TargetGroupPlan of(TargetGroup group, List<String> zones, Map<String, TargetHealth> health,
      Collection<Target> draining) {
    List<Upstream> all = new ArrayList<>();
    List<Upstream> healthy = new ArrayList<>();
    List<Upstream> open = new ArrayList<>();
    for (Target t : group.targets()) {
      if (!Target.ALL_ZONES.equals(t.zone()) && !zones.contains(t.zone())) {
        continue;
      }
      Upstream u = new Upstream(t.key(), t.id(), t.address(), t.port(), t.zone());
      all.add(u);
      TargetHealth h = health.getOrDefault(t.key(), TargetHealth.REGISTRATION_IN_PROGRESS);
      TargetState s = h.state();
      if (s == TargetState.HEALTHY || s == TargetState.UNAVAILABLE) {
        healthy.add(u);
        open.add(u);
      } else if (s == TargetState.UNHEALTHY || s == TargetState.INITIAL) {
        open.add(u);
      }
    }
    Set<String> kept = new HashSet<>();
    draining.forEach(t -> kept.add(t.key()));
    all.forEach(u -> kept.add(u.key()));
    boolean failOpen = healthy.isEmpty() && !open.isEmpty();
    List<Upstream> eligible = failOpen ? open : healthy;
    return new TargetGroupPlan(group.arn(), group.name(), group.protocol() == Protocol.HTTPS,
        all.toArray(Upstream[]::new), eligible.toArray(Upstream[]::new), failOpen, Set.copyOf(kept));
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

  /** Whether the group has any registered target in an enabled zone (else: 503). */
  public boolean hasRegisteredTargets() {
    return registered.length > 0;
  }

  /** Whether no target is healthy and requests go to every registered target (fail-open). */
  public boolean failOpen() {
    return failOpen;
  }

  /**
   * Whether requests in flight to the target may go on: it is registered, or deregistered with its
   * delay still running. Requests to any other target of this group are cut.
   */
  public boolean keepsInFlight(String key) {
    return kept.contains(key);
  }

  /** The targets a selector may choose from; shared, callers must not modify it. */
  Upstream[] eligible() {
    return eligible;
  }

  public int eligibleCount() {
    return eligible.length;
  }

  /** The eligible targets' keys, in order (tests, explain). */
  public List<String> eligibleKeys() {
    List<String> keys = new ArrayList<>();
    for (Upstream u : eligible) {
      keys.add(u.key());
    }
    return keys;
  }
}
