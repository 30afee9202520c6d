package io.fulcrum.balancer;

import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.fulcrum.model.TargetType;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * A target group as one snapshot of the data plane sees it: for the nodes of each zone, the
 * {@link Scope} of targets new requests may go to, decided before any selection (DESIGN §4.4), and
 * how to choose among them. Immutable and shared by every event loop.
 *
 * <p>Scopes (SPEC §10): with cross-zone load balancing on, one scope of every target in the load
 * balancer's enabled zones; with it off, one scope per zone, so that a node routes only to its own
 * zone's targets and thresholds are checked per zone. In each scope the eligible targets are the
 * healthy ones (and those whose checks are disabled); when the routing threshold
 * ({@code target_group_health.unhealthy_state_routing.*}, by default "fewer than 1 healthy") is
 * breached, the unhealthy ones too, and, when none is healthy, those still in their initial checks
 * (SPEC §2.5 and Fulcrum's decisions). Never draining or unused targets.
 */
public final class TargetGroupPlan {

  /**
   * What a plan is built from.
   *
   * @param group          the target group (its registered targets and attributes)
   * @param zones          the enabled zones of the load balancer using it
   * @param health         the latest health by target key (a target without an entry is initial)
   * @param draining       deregistered targets whose delay still runs
   * @param slowStartSince when each target in slow start entered it (epoch millis)
   * @param anomalyWeights mitigation weights by target key (absent: 1)
   * @param upstreams      the registry's stable {@link Upstream} for a target
   * @param loadBalancerCrossZone the load balancer's {@code load_balancing.cross_zone.enabled}, which a
   *                       group set to {@code use_load_balancer_configuration} follows (always on
   *                       for an application load balancer)
   */
  public record Inputs(
      TargetGroup group,
      List<String> zones,
      Map<String, TargetHealth> health,
      Collection<Target> draining,
      Map<String, Long> slowStartSince,
      Map<String, Double> anomalyWeights,
      Function<Target, Upstream> upstreams,
      boolean loadBalancerCrossZone) {

    /** Inputs of a group of an application load balancer (cross-zone on at the load balancer level). */
    public Inputs(TargetGroup group, List<String> zones, Map<String, TargetHealth> health, Collection<Target> draining,
        Map<String, Long> slowStartSince, Map<String, Double> anomalyWeights, Function<Target, Upstream> upstreams) {
      this(group, zones, health, draining, slowStartSince, anomalyWeights, upstreams, true);
    }
  }

  /**
   * How a network load balancer's group treats the connections (flows) it carries (SPEC §2.4,
   * §2.5, §3): which target a new one goes to, what it is told first, and which open ones end.
   *
   * @param proxyProtocol      {@code proxy_protocol_v2.enabled}: each connection to a target starts
   *                           with a PROXY protocol v2 header naming the client
   * @param sourceIp           stickiness of type {@code source_ip}: a client address keeps its target
   *                           while the eligible targets stay the same
   * @param endDeregistered    {@code deregistration_delay.connection_termination.enabled}: flows to a
   *                           target whose deregistration delay is over are closed (else they go on
   *                           until either side closes)
   * @param cut                targets whose open flows are reset now: unhealthy ones, unless
   *                           {@code target_health_state.unhealthy.connection_termination.enabled} is
   *                           off (they are kept while {@code unhealthy.draining}) or their scope
   *                           failed open
   */
  public record Flows(boolean proxyProtocol, boolean sourceIp, boolean endDeregistered, Set<String> cut) {
    public Flows {
      cut = Set.copyOf(cut);
    }
  }

  /** Stickiness as the target group's attributes set it (SPEC §5). */
  public record Stickiness(boolean enabled, String type, int lbCookieSeconds, String appCookieName,
      int appCookieSeconds) {
    public boolean lbCookie() {
      return enabled && "lb_cookie".equals(type);
    }

    public boolean appCookie() {
      return enabled && "app_cookie".equals(type);
    }
  }

  /**
   * How requests reach the group's Lambda function (SPEC §6): its targets' ids are function names
   * or ARNs, and they have no address or port.
   *
   * @param multiValueHeaders {@code lambda.multi_value_headers.enabled}
   */
  public record Lambda(boolean multiValueHeaders) {
  }

  /**
   * The target optimizer (SPEC §9): the group has a {@code TargetControlPort}, so a target takes a
   * request only with a credit its agent granted.
   *
   * @param controlPort the agents' control port on each target
   * @param queueMillis how long a request waits for a credit when no target has one
   *                    ({@code fulcrum.target_optimizer.queue_timeout_ms}; 0: 503 at once)
   * @param targets     every registered target in an enabled zone: the agents to hold a channel with
   */
  public record Optimizer(int controlPort, long queueMillis, List<Upstream> targets) {
    public Optimizer {
      targets = List.copyOf(targets);
    }
  }

  private final String arn;
  private final String name;
  private final boolean tls;
  private final Lambda lambda;
  private final Algorithm algorithm;
  private final ProtocolVersion protocolVersion;
  private final Stickiness stickiness;
  private final boolean crossZone;
  private final Scope all;
  private final Map<String, Scope> byZone;
  private final boolean registered;
  private final Set<String> kept;
  private final Optimizer optimizer;
  private final Flows flows;

  private TargetGroupPlan(String arn, String name, boolean tls, Lambda lambda, Algorithm algorithm,
      ProtocolVersion protocolVersion, Stickiness stickiness, boolean crossZone, Scope all, Map<String, Scope> byZone,
      boolean registered, Set<String> kept, Optimizer optimizer, Flows flows) {
    this.arn = arn;
    this.name = name;
    this.tls = tls;
    this.lambda = lambda;
    this.algorithm = algorithm;
    this.protocolVersion = protocolVersion;
    this.stickiness = stickiness;
    this.crossZone = crossZone;
    this.all = all;
    this.byZone = byZone;
    this.registered = registered;
    this.kept = kept;
    this.optimizer = optimizer;
    this.flows = flows;
  }

  /** A plan without health information: every registered target counts as initial. */
  public static TargetGroupPlan of(TargetGroup group, List<String> zones) {
    return build(new Inputs(group, zones, Map.of(), List.of(), Map.of(), Map.of(),
        t -> new Upstream(t.key(), t.id(), t.address(), t.port(), t.zone())));
  }

  /** Whether cross-zone load balancing is on for a group of an application load balancer (unless the group turns it off). */
  public static boolean crossZone(TargetGroup group) {
    return crossZone(group, true);
  }

  /**
   * Whether cross-zone load balancing is on for the group: its own setting, or with
   * {@code use_load_balancer_configuration} its load balancer's ({@code loadBalancerCrossZone}).
   */
  public static boolean crossZone(TargetGroup group, boolean loadBalancerCrossZone) {
    String own = group.attributes().crossZone();
    return own == null || "use_load_balancer_configuration".equals(own) ? loadBalancerCrossZone : "true".equals(own);
  }

  public static TargetGroupPlan build(Inputs in) {
    TargetGroup group = in.group();
    TargetGroupAttributes attrs = group.attributes();
    boolean crossZone = crossZone(group, in.loadBalancerCrossZone());
    Thresholds routing = new Thresholds(attrs.routingFailoverCount(), attrs.routingFailoverPercentage());
    Thresholds dns = new Thresholds(attrs.dnsFailoverCount(), attrs.dnsFailoverPercentage());
    long slowStartMillis = attrs.slowStartSeconds() * 1000L;

    List<Target> inZones = new ArrayList<>();
    for (Target t : group.targets()) {
      // An unused target (one of a load balancer's own sockets: Target.IpUnusable) is left out as one in a
      // zone not enabled is: not routed to, and not counted against the group's thresholds.
      if ((Target.ALL_ZONES.equals(t.zone()) || in.zones().contains(t.zone()))
          && in.health().getOrDefault(t.key(), TargetHealth.REGISTRATION_IN_PROGRESS).state() != TargetState.UNUSED) {
        inZones.add(t);
      }
    }
    Scope all = null;
    Map<String, Scope> byZone = new LinkedHashMap<>();
    if (crossZone) {
      all = scope(inZones, in, routing, dns, slowStartMillis);
    } else {
      for (String zone : in.zones()) {
        // A target in zone "all" (an address outside the deployment's zones) takes every zone's share.
        List<Target> local = inZones.stream().filter(t -> t.zone().equals(zone) || Target.ALL_ZONES.equals(t.zone()))
            .toList();
        byZone.put(zone, scope(local, in, routing, dns, slowStartMillis));
      }
    }
    Set<String> kept = new HashSet<>();
    inZones.forEach(t -> kept.add(t.key()));
    in.draining().forEach(t -> kept.add(t.key()));
    Stickiness stickiness = new Stickiness(attrs.stickinessEnabled(), attrs.stickinessType(),
        attrs.lbCookieDurationSeconds(), attrs.appCookieName(), attrs.appCookieDurationSeconds());
    Lambda lambda = group.targetType() == TargetType.LAMBDA ? new Lambda(attrs.multiValueHeaders()) : null;
    Optimizer optimizer = null;
    if (group.targetControlPort() != null && lambda == null) {
      optimizer = new Optimizer(group.targetControlPort(), attrs.optimizerQueueMillis(),
          inZones.stream().map(in.upstreams()).toList());
    }
    Flows flows = null;
    if (group.protocol() != null && group.protocol().isNetworkFamily()) {
      flows = flows(inZones, in, crossZone ? Map.of("*", all) : byZone, crossZone);
    }
    return new TargetGroupPlan(group.arn(), group.name(), group.protocol() != null && group.protocol().isTls(), lambda,
        Algorithm.of(attrs.algorithm()), group.protocolVersion() == null ? ProtocolVersion.HTTP1 : group.protocolVersion(),
        stickiness, crossZone, all, byZone, !inZones.isEmpty(), Set.copyOf(kept), optimizer, flows);
  }

  /** What a network load balancer's group does with connections, from its attributes and its targets' health. */
  private static Flows flows(List<Target> inZones, Inputs in, Map<String, Scope> scopes, boolean crossZone) {
    TargetGroupAttributes attrs = in.group().attributes();
    boolean terminate = "true".equals(attrs.get(TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION));
    int drainSeconds = Integer.parseInt(attrs.get(TargetGroupAttributes.UNHEALTHY_DRAINING_INTERVAL));
    Set<String> cut = new HashSet<>();
    for (Target t : inZones) {
      TargetState s = in.health().getOrDefault(t.key(), TargetHealth.REGISTRATION_IN_PROGRESS).state();
      // Unhealthy after its draining interval (unhealthy.draining before it) or at once with termination
      // on; a scope that failed open routes to it and keeps its connections (a target of zone "all" is
      // in every zone's scope).
      boolean failedOpen;
      if (crossZone || !Target.ALL_ZONES.equals(t.zone())) {
        Scope scope = scopes.get(crossZone ? "*" : t.zone());
        failedOpen = scope != null && scope.unhealthyRouting();
      } else {
        failedOpen = scopes.values().stream().anyMatch(Scope::unhealthyRouting);
      }
      if (s == TargetState.UNHEALTHY && !failedOpen && (terminate || drainSeconds > 0)) {
        cut.add(t.key());
      }
    }
    return new Flows("true".equals(attrs.get(TargetGroupAttributes.PROXY_PROTOCOL_V2)),
        attrs.stickinessEnabled() && "source_ip".equals(attrs.stickinessType()),
        "true".equals(attrs.get(TargetGroupAttributes.CONNECTION_TERMINATION)), cut);
  }

  private static Scope scope(List<Target> targets, Inputs in, Thresholds routing, Thresholds dns, long slowStartMillis) {
    List<Target> healthy = new ArrayList<>();
    List<Target> unhealthy = new ArrayList<>();
    List<Target> initial = new ArrayList<>();
    for (Target t : targets) {
      TargetState s = in.health().getOrDefault(t.key(), TargetHealth.REGISTRATION_IN_PROGRESS).state();
      if (s == TargetState.HEALTHY || s == TargetState.UNAVAILABLE) {
        healthy.add(t);
      } else if (s == TargetState.UNHEALTHY) {
        unhealthy.add(t);
      } else if (s == TargetState.INITIAL) {
        initial.add(t);
      }
    }
    boolean breached = routing.breached(healthy.size(), targets.size());
    List<Target> chosen = new ArrayList<>(healthy);
    if (breached) {
      // Keep registration order, so that round robin's sequence does not depend on health.
      Set<Target> open = new HashSet<>(healthy);
      open.addAll(unhealthy);
      if (healthy.isEmpty()) {
        open.addAll(initial);
      }
      chosen = targets.stream().filter(open::contains).toList();
    }
    List<Upstream> eligible = new ArrayList<>();
    long[] since = null;
    double[] weights = null;
    for (int i = 0; i < chosen.size(); i++) {
      Target t = chosen.get(i);
      eligible.add(in.upstreams().apply(t));
      Long s = in.slowStartSince().get(t.key());
      if (s != null && slowStartMillis > 0) {
        if (since == null) {
          since = new long[chosen.size()];
        }
        since[i] = s;
      }
      Double w = in.anomalyWeights().get(t.key());
      if (w != null && w < 1) {
        if (weights == null) {
          weights = new double[chosen.size()];
          java.util.Arrays.fill(weights, 1);
        }
        weights[i] = w;
      }
    }
    return new Scope(eligible, since, slowStartMillis, weights, breached && !targets.isEmpty(),
        dns.breached(healthy.size(), targets.size()), targets.size(), healthy.size());
  }

  public String arn() {
    return arn;
  }

  public String name() {
    return name;
  }

  /** Whether targets are reached over TLS (target group protocol HTTPS or TLS). */
  public boolean tls() {
    return tls;
  }

  /** How to invoke the group's Lambda function, or {@code null} for instance and ip groups. */
  public Lambda lambda() {
    return lambda;
  }

  public Algorithm algorithm() {
    return algorithm;
  }

  /** HTTP1 (targets reached over HTTP/1.1), HTTP2 or GRPC (over HTTP/2). */
  public ProtocolVersion protocolVersion() {
    return protocolVersion;
  }

  public Stickiness stickiness() {
    return stickiness;
  }

  public boolean crossZone() {
    return crossZone;
  }

  /** How a network load balancer's group treats connections; null for other groups. */
  public Flows flows() {
    return flows;
  }

  /** The target optimizer, or null when the group has no {@code TargetControlPort}. */
  public Optimizer optimizer() {
    return optimizer;
  }

  /** Whether the group has any registered target in an enabled zone (else: 503, no registered targets). */
  public boolean hasRegisteredTargets() {
    return registered;
  }

  /**
   * The scope for requests arriving on a node of {@code zone}: every zone's targets with
   * cross-zone on, the zone's own with it off; null when the zone is not enabled.
   */
  public Scope scope(String zone) {
    return crossZone ? all : byZone.get(zone);
  }

  /** Every scope: one with cross-zone on, one per enabled zone with it off. */
  public Map<String, Scope> scopes() {
    return crossZone ? Map.of("*", all) : byZone;
  }

  /**
   * Whether requests in flight to the target may go on: it is registered, or deregistered with its
   * delay still running. Requests to any other target of this group are cut.
   */
  public boolean keepsInFlight(String key) {
    return kept.contains(key);
  }

  /**
   * Whether a network load balancer's open flows to the target {@code key} end now: the target is
   * cut (unhealthy, with connection termination), or deregistered with its delay over while
   * {@code deregistration_delay.connection_termination.enabled} ends its flows. False for a group
   * without flows.
   */
  public boolean endsFlowsTo(String key) {
    return flows != null && (flows.cut().contains(key) || !keepsInFlight(key) && flows.endDeregistered());
  }
}
