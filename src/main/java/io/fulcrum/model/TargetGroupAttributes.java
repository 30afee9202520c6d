package io.fulcrum.model;

import static io.fulcrum.model.AttributeSpec.bool;
import static io.fulcrum.model.AttributeSpec.offOrRange;
import static io.fulcrum.model.AttributeSpec.oneOf;
import static io.fulcrum.model.AttributeSpec.range;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A target group's attributes (SPEC §3): the complete set for its kind, defaults included, with
 * typed accessors for the values the data plane uses. Immutable.
 */
public final class TargetGroupAttributes {

  public static final String DEREGISTRATION_DELAY = "deregistration_delay.timeout_seconds";
  public static final String STICKINESS_ENABLED = "stickiness.enabled";
  public static final String STICKINESS_TYPE = "stickiness.type";
  public static final String APP_COOKIE_NAME = "stickiness.app_cookie.cookie_name";
  public static final String APP_COOKIE_DURATION = "stickiness.app_cookie.duration_seconds";
  public static final String LB_COOKIE_DURATION = "stickiness.lb_cookie.duration_seconds";
  public static final String SLOW_START = "slow_start.duration_seconds";
  public static final String ALGORITHM = "load_balancing.algorithm.type";
  public static final String ANOMALY_MITIGATION = "load_balancing.algorithm.anomaly_mitigation";
  public static final String CROSS_ZONE = "load_balancing.cross_zone.enabled";
  public static final String DNS_FAILOVER_COUNT = "target_group_health.dns_failover.minimum_healthy_targets.count";
  public static final String DNS_FAILOVER_PERCENTAGE = "target_group_health.dns_failover.minimum_healthy_targets.percentage";
  public static final String ROUTING_FAILOVER_COUNT = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.count";
  public static final String ROUTING_FAILOVER_PERCENTAGE = "target_group_health.unhealthy_state_routing.minimum_healthy_targets.percentage";
  public static final String MULTI_VALUE_HEADERS = "lambda.multi_value_headers.enabled";
  public static final String CONNECTION_TERMINATION = "deregistration_delay.connection_termination.enabled";
  public static final String PRESERVE_CLIENT_IP = "preserve_client_ip.enabled";
  public static final String PROXY_PROTOCOL_V2 = "proxy_protocol_v2.enabled";
  public static final String UNHEALTHY_CONNECTION_TERMINATION = "target_health_state.unhealthy.connection_termination.enabled";
  public static final String UNHEALTHY_DRAINING_INTERVAL = "target_health_state.unhealthy.draining_interval_seconds";
  public static final String FAILOVER_ON_DEREGISTRATION = "target_failover.on_deregistration";
  public static final String FAILOVER_ON_UNHEALTHY = "target_failover.on_unhealthy";

  /** Fulcrum's own: how long a request waits for a target optimizer credit (SPEC, Fulcrum's decisions). */
  public static final String OPTIMIZER_QUEUE_TIMEOUT = "fulcrum.target_optimizer.queue_timeout_ms";
  public static final int MAX_OPTIMIZER_QUEUE_MILLIS = 60_000;

  public static final int MAX_TARGETS = 1000;
  static final String OWNER = "Target group";

  private static final List<String> ALGORITHMS = List.of("round_robin", "least_outstanding_requests", "weighted_random");
  private static final List<String> CROSS_ZONE_VALUES = List.of("true", "false", "use_load_balancer_configuration");
  /** Every stickiness type of any load balancer type; each kind of target group accepts some of them. */
  private static final List<String> STICKINESS_TYPES =
      List.of("lb_cookie", "app_cookie", "source_ip", "source_ip_dest_ip", "source_ip_dest_ip_proto");

  /** The keys of each kind, in the order AWS lists them. */
  static List<AttributeSpec> specs(TargetGroupKind kind, TargetType type, Protocol protocol) {
    return specs(kind, type, protocol, false);
  }

  /** The keys of each kind; {@code optimizer}: the group has a target control port (Fulcrum's key last). */
  static List<AttributeSpec> specs(TargetGroupKind kind, TargetType type, Protocol protocol, boolean optimizer) {
    List<AttributeSpec> s = new ArrayList<>();
    switch (kind) {
      case ALB -> {
        s.add(bool(STICKINESS_ENABLED, false));
        s.add(range(DEREGISTRATION_DELAY, 300, 0, 3600));
        s.add(new AttributeSpec(APP_COOKIE_NAME, "", TargetGroupAttributes::checkAppCookieName));
        s.add(oneOf(STICKINESS_TYPE, "lb_cookie", List.of("lb_cookie", "app_cookie")));
        s.add(range(LB_COOKIE_DURATION, 86400, 1, 604800));
        s.add(new AttributeSpec(SLOW_START, "0",
            v -> v.equals("0") || AttributeSpec.checkRange(v, 30, 900) == null ? null : "expected 0 (off) or 30-900"));
        s.add(range(APP_COOKIE_DURATION, 86400, 1, 604800));
        s.add(oneOf(ALGORITHM, "round_robin", ALGORITHMS));
        s.add(oneOf(ANOMALY_MITIGATION, "off", List.of("on", "off")));
        s.add(oneOf(CROSS_ZONE, "use_load_balancer_configuration", CROSS_ZONE_VALUES));
        addTargetGroupHealth(s);
        if (optimizer) {
          s.add(range(OPTIMIZER_QUEUE_TIMEOUT, 0, 0, MAX_OPTIMIZER_QUEUE_MILLIS)); // Fulcrum's keys after AWS's
        }
      }
      case ALB_LAMBDA -> {
        s.add(bool(STICKINESS_ENABLED, false));
        s.add(oneOf(STICKINESS_TYPE, "lb_cookie", List.of("lb_cookie")));
        s.add(range(LB_COOKIE_DURATION, 86400, 1, 604800));
        s.add(bool(MULTI_VALUE_HEADERS, false));
      }
      case NLB -> {
        boolean udp = protocol != null && protocol.carriesUdp();
        s.add(range(DEREGISTRATION_DELAY, 300, 0, 3600));
        s.add(bool(CONNECTION_TERMINATION, udp));
        s.add(bool(STICKINESS_ENABLED, false));
        s.add(oneOf(STICKINESS_TYPE, "source_ip", List.of("source_ip")));
        s.add(bool(PROXY_PROTOCOL_V2, false));
        s.add(bool(PRESERVE_CLIENT_IP, !(type == TargetType.IP && (protocol == Protocol.TCP || protocol == Protocol.TLS))));
        s.add(oneOf(CROSS_ZONE, "use_load_balancer_configuration", CROSS_ZONE_VALUES));
        addTargetGroupHealth(s);
        s.add(bool(UNHEALTHY_CONNECTION_TERMINATION, !udp));
        s.add(range(UNHEALTHY_DRAINING_INTERVAL, 0, 0, 360000));
      }
      case GWLB -> {
        s.add(range(DEREGISTRATION_DELAY, 300, 0, 3600));
        s.add(bool(STICKINESS_ENABLED, false));
        s.add(oneOf(STICKINESS_TYPE, "source_ip_dest_ip_proto", List.of("source_ip_dest_ip", "source_ip_dest_ip_proto")));
        s.add(oneOf(FAILOVER_ON_DEREGISTRATION, "no_rebalance", List.of("rebalance", "no_rebalance")));
        s.add(oneOf(FAILOVER_ON_UNHEALTHY, "no_rebalance", List.of("rebalance", "no_rebalance")));
      }
      default -> throw new IllegalStateException(kind.name());
    }
    return s;
  }

  private static void addTargetGroupHealth(List<AttributeSpec> s) {
    s.add(offOrRange(DNS_FAILOVER_COUNT, "1", 1, MAX_TARGETS));
    s.add(offOrRange(DNS_FAILOVER_PERCENTAGE, "off", 1, 100));
    s.add(range(ROUTING_FAILOVER_COUNT, 1, 1, MAX_TARGETS));
    s.add(offOrRange(ROUTING_FAILOVER_PERCENTAGE, "off", 1, 100));
  }

  private static String checkAppCookieName(String v) {
    if (v.isEmpty()) {
      return null;
    }
    if (v.startsWith("AWSALB")) {
      return "an application cookie name cannot start with AWSALB, AWSALBAPP or AWSALBTG";
    }
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c <= ' ' || c >= 0x7f || "()<>@,;:\\\"/[]?={}".indexOf(c) >= 0) {
        return "a cookie name may only hold visible ASCII characters other than separators";
      }
    }
    return null;
  }

  private final Attributes all;
  private final TargetGroupKind kind;

  private TargetGroupAttributes(Attributes all, TargetGroupKind kind) {
    this.all = all;
    this.kind = kind;
  }

  /** The defaults of a target group of this kind. */
  public static TargetGroupAttributes defaults(TargetType type, Protocol protocol) {
    return defaults(type, protocol, false);
  }

  /** The defaults of a target group of this kind, with a target control port or without. */
  public static TargetGroupAttributes defaults(TargetType type, Protocol protocol, boolean optimizer) {
    Problems none = new Problems();
    return resolve(type, protocol, optimizer, null, Map.of(), none);
  }

  /**
   * Applies {@code given} over {@code base} (or the defaults) and checks values (ValidationError)
   * and the constraints between attributes of SPEC §3.2 (InvalidConfigurationRequest).
   *
   * @return the attributes, or {@code null} when a problem was recorded
   */
  public static TargetGroupAttributes resolve(TargetType type, Protocol protocol, TargetGroupAttributes base,
      Map<String, String> given, Problems problems) {
    return resolve(type, protocol, base != null && base.all.get(OPTIMIZER_QUEUE_TIMEOUT) != null, base, given,
        problems);
  }

  /**
   * Like {@link #resolve(TargetType, Protocol, TargetGroupAttributes, Map, Problems)} for a group
   * with a target control port ({@code optimizer}) or without; the optimizer's key is refused
   * without one.
   */
  public static TargetGroupAttributes resolve(TargetType type, Protocol protocol, boolean optimizer,
      TargetGroupAttributes base, Map<String, String> given, Problems problems) {
    int before = problems.size();
    if (!optimizer && given.containsKey(OPTIMIZER_QUEUE_TIMEOUT)) {
      problems.at(OPTIMIZER_QUEUE_TIMEOUT).add(Problem.INVALID_CONFIGURATION,
          OPTIMIZER_QUEUE_TIMEOUT + " applies only to target groups with a target control port (the target optimizer)");
      given = new java.util.LinkedHashMap<>(given);
      given.remove(OPTIMIZER_QUEUE_TIMEOUT);
    }
    TargetGroupKind kind = TargetGroupKind.of(type, protocol);
    if (kind == TargetGroupKind.ALB_LAMBDA && given.containsKey(DEREGISTRATION_DELAY)) {
      // AWS's own wording for this case says more than "not recognized".
      problems.at(DEREGISTRATION_DELAY).add(Problem.INVALID_CONFIGURATION,
          "A target group with target type 'lambda' does not support the attribute " + DEREGISTRATION_DELAY);
      given = new java.util.LinkedHashMap<>(given);
      given.remove(DEREGISTRATION_DELAY);
    }
    if (kind == TargetGroupKind.ALB_LAMBDA) {
      List<String> health = given.keySet().stream().filter(k -> k.startsWith("target_group_health.")).toList();
      if (!health.isEmpty()) {
        // SPEC §3.2: more helpful than "not recognized".
        health.forEach(k -> problems.at(k).add(Problem.INVALID_CONFIGURATION,
            "Target group health settings are not supported for target groups with target type 'lambda'"));
        given = new java.util.LinkedHashMap<>(given);
        given.keySet().removeAll(health);
      }
    }
    List<AttributeSpec> specs = specs(kind, type, protocol, optimizer);
    if (type == TargetType.ALB) {
      given = albKeepsDefaults(specs, given, problems);
    }
    String stickinessType = given.get(STICKINESS_TYPE);
    if (protocol != null && stickinessType != null && STICKINESS_TYPES.contains(stickinessType)
        && specs.stream().anyMatch(s -> s.key().equals(STICKINESS_TYPE) && s.check().apply(stickinessType) != null)) {
      // A stickiness type of another load balancer type: AWS says which protocol does not support it.
      problems.at(STICKINESS_TYPE).add(Problem.INVALID_CONFIGURATION, "Stickiness type '" + stickinessType
          + "' is not supported for target groups with the " + protocol.wire() + " protocol");
      given = new java.util.LinkedHashMap<>(given);
      given.remove(STICKINESS_TYPE);
    }
    Attributes a = Attributes.resolve(specs, base == null ? null : base.all, given, OWNER, problems);
    if (problems.size() > before) {
      return null;
    }
    TargetGroupAttributes t = new TargetGroupAttributes(a, kind);
    t.checkConstraints(protocol, problems);
    return problems.size() > before ? null : t;
  }

  /**
   * A target group of type alb keeps every attribute at its default (AWS: they cannot be modified):
   * {@code given} without the keys that would change one, each recorded as a problem. A default
   * given again is harmless; an unknown key is left for the usual check.
   */
  private static Map<String, String> albKeepsDefaults(List<AttributeSpec> specs, Map<String, String> given,
      Problems problems) {
    Map<String, String> kept = new java.util.LinkedHashMap<>(given);
    for (AttributeSpec spec : specs) {
      String v = given.get(spec.key());
      if (v != null && !v.equals(spec.defaultValue())) {
        problems.at(spec.key()).add(Problem.INVALID_CONFIGURATION, "The attributes of target groups with target type"
            + " 'alb' cannot be modified: " + spec.key() + " stays " + spec.defaultValue());
        kept.remove(spec.key());
      }
    }
    return kept;
  }

  /**
   * What a UDP or TCP_UDP group cannot have (SPEC §3.2): the client's address not kept, flows to
   * unhealthy targets ended, now or after an unhealthy draining interval (NLB keeps UDP flows on a
   * target whatever its health), a PROXY protocol header (a datagram has no stream to put it in
   * front of).
   */
  private void checkUdp(Protocol protocol, Problems problems) {
    String ic = Problem.INVALID_CONFIGURATION;
    if (!all.getBoolean(PRESERVE_CLIENT_IP)) {
      problems.at(PRESERVE_CLIENT_IP).add(ic, "Client IP preservation cannot be disabled for target groups with the "
          + protocol.wire() + " protocol");
    }
    if (all.getBoolean(UNHEALTHY_CONNECTION_TERMINATION)) {
      problems.at(UNHEALTHY_CONNECTION_TERMINATION).add(ic, "Unhealthy target connection termination cannot be enabled"
          + " for target groups with the " + protocol.wire() + " protocol");
    }
    if (all.getBoolean(PROXY_PROTOCOL_V2)) {
      problems.at(PROXY_PROTOCOL_V2).add(ic, "Proxy protocol v2 cannot be enabled for target groups with the "
          + protocol.wire() + " protocol");
    }
    if (all.getInt(UNHEALTHY_DRAINING_INTERVAL) > 0) {
      problems.at(UNHEALTHY_DRAINING_INTERVAL).add(ic, "An unhealthy draining interval cannot be set for target"
          + " groups with the " + protocol.wire() + " protocol");
    }
  }

  private void checkConstraints(Protocol protocol, Problems problems) {
    String ic = Problem.INVALID_CONFIGURATION;
    if (kind == TargetGroupKind.ALB) {
      String algo = algorithm();
      if (anomalyMitigation() && !algo.equals("weighted_random")) {
        problems.at(ANOMALY_MITIGATION).add(ic,
            "Anomaly mitigation is supported only with the weighted_random load balancing algorithm");
      }
      if (slowStartSeconds() > 0 && !algo.equals("round_robin")) {
        problems.at(SLOW_START).add(ic, algo.equals("weighted_random")
            ? "The weighted random routing algorithm can not be used with slow start mode"
            : "Slow start mode is not supported with the least outstanding requests algorithm");
      }
      if (stickinessEnabled() && stickinessType().equals("app_cookie") && appCookieName().isEmpty()) {
        problems.at(APP_COOKIE_NAME).add(ic,
            "You must set an application cookie name to enable stickiness of type 'app_cookie'");
      }
    }
    if (kind == TargetGroupKind.NLB) {
      if (stickinessEnabled() && protocol == Protocol.TLS) {
        problems.at(STICKINESS_ENABLED).add(ic, "You cannot enable stickiness on target groups with the TLS protocol");
      }
      if (protocol != null && protocol.carriesUdp()) {
        checkUdp(protocol, problems);
      }
      if (all.getInt(UNHEALTHY_DRAINING_INTERVAL) > 0 && all.getBoolean(UNHEALTHY_CONNECTION_TERMINATION)) {
        problems.at(UNHEALTHY_DRAINING_INTERVAL).add(ic,
            "an unhealthy draining interval can only be set when " + UNHEALTHY_CONNECTION_TERMINATION + " is false");
      }
    }
    if (kind == TargetGroupKind.GWLB && !all.get(FAILOVER_ON_DEREGISTRATION).equals(all.get(FAILOVER_ON_UNHEALTHY))) {
      problems.at(FAILOVER_ON_UNHEALTHY).add(ic, FAILOVER_ON_UNHEALTHY + " must equal " + FAILOVER_ON_DEREGISTRATION);
    }
    if (kind == TargetGroupKind.ALB || kind == TargetGroupKind.NLB) {
      int dnsCount = dnsFailoverCount();
      int routingCount = routingFailoverCount();
      if (dnsCount > 0 && dnsCount < routingCount) {
        problems.at(DNS_FAILOVER_COUNT).add(ic,
            "the DNS failover threshold (" + dnsCount + ") must be greater than or equal to the routing failover threshold ("
                + routingCount + ")");
      }
      int dnsPct = dnsFailoverPercentage();
      int routingPct = routingFailoverPercentage();
      if (dnsPct > 0 && routingPct > 0 && dnsPct < routingPct) {
        problems.at(DNS_FAILOVER_PERCENTAGE).add(ic,
            "the DNS failover threshold (" + dnsPct + "%) must be greater than or equal to the routing failover threshold ("
                + routingPct + "%)");
      }
    }
  }

  public TargetGroupKind kind() {
    return kind;
  }

  /** Every attribute, defaults included, in AWS's order. */
  public Map<String, String> asMap() {
    return all.asMap();
  }

  public String get(String key) {
    return all.get(key);
  }

  public int deregistrationDelaySeconds() {
    String v = all.get(DEREGISTRATION_DELAY);
    return v == null ? 0 : Integer.parseInt(v);
  }

  public boolean stickinessEnabled() {
    return all.getBoolean(STICKINESS_ENABLED);
  }

  public String stickinessType() {
    return all.get(STICKINESS_TYPE);
  }

  public String appCookieName() {
    String v = all.get(APP_COOKIE_NAME);
    return v == null ? "" : v;
  }

  public int appCookieDurationSeconds() {
    String v = all.get(APP_COOKIE_DURATION);
    return v == null ? 86400 : Integer.parseInt(v);
  }

  public int lbCookieDurationSeconds() {
    String v = all.get(LB_COOKIE_DURATION);
    return v == null ? 86400 : Integer.parseInt(v);
  }

  public int slowStartSeconds() {
    String v = all.get(SLOW_START);
    return v == null ? 0 : Integer.parseInt(v);
  }

  /** {@code round_robin}, {@code least_outstanding_requests} or {@code weighted_random}. */
  public String algorithm() {
    String v = all.get(ALGORITHM);
    return v == null ? "round_robin" : v;
  }

  public boolean anomalyMitigation() {
    return "on".equals(all.get(ANOMALY_MITIGATION));
  }

  /** {@code true}, {@code false} or {@code use_load_balancer_configuration}; null where it does not apply. */
  public String crossZone() {
    return all.get(CROSS_ZONE);
  }

  /** 0 when off. */
  public int dnsFailoverCount() {
    return all.getOffOrInt(DNS_FAILOVER_COUNT);
  }

  public int dnsFailoverPercentage() {
    return all.getOffOrInt(DNS_FAILOVER_PERCENTAGE);
  }

  public int routingFailoverCount() {
    String v = all.get(ROUTING_FAILOVER_COUNT);
    return v == null ? 1 : Integer.parseInt(v);
  }

  public int routingFailoverPercentage() {
    return all.getOffOrInt(ROUTING_FAILOVER_PERCENTAGE);
  }

  /** {@link #OPTIMIZER_QUEUE_TIMEOUT}; 0 for kinds without it. */
  public long optimizerQueueMillis() {
    String v = all.get(OPTIMIZER_QUEUE_TIMEOUT);
    return v == null ? 0 : Long.parseLong(v);
  }

  public boolean multiValueHeaders() {
    return "true".equals(all.get(MULTI_VALUE_HEADERS));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TargetGroupAttributes t && t.all.equals(all);
  }

  @Override
  public int hashCode() {
    return all.hashCode();
  }

  @Override
  public String toString() {
    return all.toString();
  }
}
