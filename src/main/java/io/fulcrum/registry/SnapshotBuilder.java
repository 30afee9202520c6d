package io.fulcrum.registry;

import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.bus.ListenerTls;
import io.fulcrum.bus.Registrations;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.model.AnomalyDetection;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Certificate;
import io.fulcrum.model.Environment;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerType;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Node;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Rule;
import io.fulcrum.model.SecurityPolicy;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetGroupKind;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.fulcrum.model.TrustStore;
import io.fulcrum.observe.GroupGauges;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.routing.RouteTable;
import io.fulcrum.tls.SelfSignedCertificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/** Compiles validated resources (and health) into what the data plane and the health checker run. */
final class SnapshotBuilder {

  private SnapshotBuilder() {
  }

  /**
   * Every listener with its compiled rules, bound on the nodes of its load balancer's zones.
   *
   * @param checks what jwt-validation and authenticate-oidc actions use
   */
  static List<ListenerPlan> listeners(Environment env, Resources resources, SelfSignedCertificate.PemFiles selfSigned,
      RouteTable.Checks checks) {
    List<ListenerPlan> listeners = new ArrayList<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      List<Node> nodes = env.nodes().stream().filter(n -> lb.zones().contains(n.zone())).toList();
      ProxySettings proxy = ProxySettings.of(lb);
      for (Listener l : lb.listeners()) {
        listeners.add(new ListenerPlan(lb.name(), l.arn(), l.protocol(), l.port(), nodes, RouteTable.compile(l, lb.arn(), checks),
            proxy, tls(l, env, selfSigned), lb.attributes().http2Enabled(), l.protocol() == Protocol.HTTP && l.h2c(),
            l.attributes()));
      }
    }
    return listeners;
  }

  /** The TLS side of an HTTPS or TLS listener: its certificates, or the self-signed one when it has none. */
  private static ListenerTls tls(Listener l, Environment env, SelfSignedCertificate.PemFiles selfSigned) {
    if (!l.protocol().isTls()) {
      return null;
    }
    SecurityPolicy policy = SecurityPolicy.named(l.sslPolicy() == null ? Listener.DEFAULT_SSL_POLICY : l.sslPolicy());
    List<String> alpn = l.alpnPolicy() == null ? List.of() : l.alpnPolicy().protocols();
    List<String> certs = new ArrayList<>();
    List<String> keys = new ArrayList<>();
    List<String> arns = new ArrayList<>();
    for (Certificate c : l.certificates()) {
      if (arns.contains(c.arn())) {
        continue; // the default certificate, in the certificate list too
      }
      if (c.selfSigned()) {
        if (selfSigned == null) {
          throw new IllegalStateException("an HTTPS listener using the self-signed certificate needs it generated");
        }
        certs.add(selfSigned.certificate().toString());
        keys.add(selfSigned.privateKey().toString());
      } else if (c.pem()) {
        certs.add(c.certificateFile());
        keys.add(c.privateKeyFile());
      } else {
        return new ListenerTls(List.of(), List.of(), c.pkcs12File(), c.password(), List.of(c.arn()), policy, alpn,
            mutualAuthentication(l, env), env.certificateDigests().get(c.arn()));
      }
      arns.add(c.arn());
    }
    if (certs.isEmpty()) {
      if (selfSigned == null) {
        throw new IllegalStateException("an HTTPS listener without a certificate needs the self-signed one");
      }
      certs.add(selfSigned.certificate().toString());
      keys.add(selfSigned.privateKey().toString());
      arns.add(env.arns().selfSignedCertificate());
    }
    StringBuilder digests = new StringBuilder();
    for (String arn : arns) {
      digests.append(env.certificateDigests().getOrDefault(arn, "-")).append(' ');
    }
    return new ListenerTls(certs, keys, null, null, arns, policy, alpn, mutualAuthentication(l, env),
        digests.toString().strip());
  }

  /**
   * A listener's mutual TLS with its trust store as the deployment has it now (its files, and what
   * they held when last read): a trust store pointed at other files, or whose files changed, is
   * taken up by every listener using it. One the deployment no longer has stays as the listener has it.
   */
  private static MutualAuthentication mutualAuthentication(Listener l, Environment env) {
    MutualAuthentication m = l.mutualAuthentication();
    TrustStore current = m.trustStore() == null ? null : env.trustStores().get(m.trustStore().arn());
    return current == null || current.equals(m.trustStore()) ? m
        : new MutualAuthentication(m.mode(), current, m.ignoreClientCertificateExpiry(), m.advertiseTrustStoreCaNames());
  }

  /** The JWKS endpoints that jwt-validation actions name. */
  static Set<String> jwksEndpoints(Resources resources) {
    Set<String> out = new HashSet<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      for (Listener l : lb.listeners()) {
        Stream.concat(Stream.of(l.defaultActions()), l.rules().stream().map(Rule::actions))
            .flatMap(List::stream)
            .forEach(a -> {
              if (a instanceof JwtValidation j) {
                out.add(j.jwksEndpoint());
              }
            });
      }
    }
    return out;
  }

  /**
   * The target groups that listener rules use, each with the enabled zones of the load balancer
   * using it (a target group serves one load balancer).
   */
  static Map<String, List<String>> groupsInUse(Resources resources) {
    Map<String, List<String>> inUse = new LinkedHashMap<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      lb.targetGroupArns().forEach(arn -> inUse.putIfAbsent(arn, lb.zones()));
    }
    return inUse;
  }

  /**
   * For each group in use, whether its load balancer balances across zones: always for an
   * application load balancer, as {@code load_balancing.cross_zone.enabled} says for a network one.
   */
  static Map<String, Boolean> loadBalancerCrossZone(Resources resources) {
    Map<String, Boolean> out = new LinkedHashMap<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      boolean crossZone = lb.type() != LoadBalancerType.NETWORK || lb.attributes().crossZone();
      lb.targetGroupArns().forEach(arn -> out.putIfAbsent(arn, crossZone));
    }
    return out;
  }

  /** Each load balancer's zones and whether each meets the DNS-failover threshold of every group it uses. */
  static ZoneStatus zones(long version, Environment env, Resources resources, Map<String, TargetGroupPlan> plans) {
    List<ZoneStatus.LoadBalancerZones> out = new ArrayList<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      Set<String> arns = lb.targetGroupArns();
      List<ZoneStatus.Zone> zones = new ArrayList<>();
      for (String zone : lb.zones()) {
        List<String> failing = new ArrayList<>();
        for (String arn : arns) {
          TargetGroupPlan plan = plans.get(arn);
          Scope scope = plan == null ? null : plan.scope(zone);
          if (scope != null && scope.dnsBreached()) {
            failing.add(plan.name());
          }
        }
        List<String> addresses = env.nodes().stream().filter(n -> n.zone().equals(zone)).map(Node::address).toList();
        zones.add(new ZoneStatus.Zone(zone, addresses, failing.isEmpty(), failing));
      }
      out.add(new ZoneStatus.LoadBalancerZones(lb.name(), lb.dnsName(), zones));
    }
    return new ZoneStatus(version, out);
  }

  /**
   * The state of every target group each load balancer forwards to, in each of its zones, for the
   * metrics (SPEC §10).
   *
   * @param health    the latest health by group and target key (absent: initial)
   * @param anomalies anomaly detection's results by group and target key (absent: normal)
   */
  static List<GroupGauges> gauges(Resources resources, Map<String, TargetGroupPlan> plans,
      Map<String, Map<String, TargetHealth>> health, Map<String, Map<String, AnomalyDetection>> anomalies) {
    List<GroupGauges> out = new ArrayList<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      String lbDimension = Arns.loadBalancerDimension(lb.arn());
      for (String arn : lb.targetGroupArns()) {
        TargetGroupPlan plan = plans.get(arn);
        TargetGroup group = resources.targetGroup(arn).orElse(null);
        if (plan == null || group == null) {
          continue;
        }
        Map<String, TargetHealth> h = health.getOrDefault(arn, Map.of());
        Map<String, AnomalyDetection> a = anomalies.getOrDefault(arn, Map.of());
        for (String zone : lb.zones()) {
          int healthy = 0;
          int unhealthy = 0;
          int anomalous = 0;
          int mitigated = 0;
          for (Target t : group.targets()) {
            if (!t.zone().equals(zone) && !Target.ALL_ZONES.equals(t.zone())) {
              continue;
            }
            TargetState state = h.getOrDefault(t.key(), TargetHealth.REGISTRATION_IN_PROGRESS).state();
            if (state == TargetState.HEALTHY) {
              healthy++;
            } else if (state == TargetState.UNHEALTHY || state == TargetState.UNHEALTHY_DRAINING) {
              unhealthy++;
            }
            AnomalyDetection d = a.getOrDefault(t.key(), AnomalyDetection.NORMAL);
            anomalous += d.anomalous() ? 1 : 0;
            mitigated += d.mitigationInEffect() ? 1 : 0;
          }
          Scope scope = plan.scope(zone);
          out.add(new GroupGauges(lbDimension, Arns.targetGroupDimension(arn), zone, group.healthCheck().enabled(),
              healthy, unhealthy, scope == null || !scope.unhealthyRouting(), scope == null || !scope.dnsBreached(),
              anomalous, mitigated));
        }
      }
    }
    return out;
  }

  /** {@code unhealthy.draining}'s interval for the group: set, and only used, with unhealthy connection termination off. */
  private static int unhealthyDrainingSeconds(TargetGroup g) {
    if (g.kind() != TargetGroupKind.NLB
        || !"false".equals(g.attributes().get(TargetGroupAttributes.UNHEALTHY_CONNECTION_TERMINATION))) {
      return 0;
    }
    return Integer.parseInt(g.attributes().get(TargetGroupAttributes.UNHEALTHY_DRAINING_INTERVAL));
  }

  /**
   * What the health checker watches: every group, each target with why it is or is not checked,
   * and where its checks are logged (the health check log of the application load balancer using
   * it, written as its first zone's node: the checks are made once for every node).
   */
  static Registrations registrations(long version, Environment environment, Resources resources,
      Map<String, List<String>> inUse, Map<String, List<Target>> draining, ListenerSockets sockets) {
    Map<String, LogDestination> logs = new HashMap<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      String bucket = lb.type() == LoadBalancerType.APPLICATION ? lb.attributes().healthCheckLogBucket() : null;
      String node = environment.nodes().stream().filter(n -> n.zone().equals(lb.zones().get(0))).map(Node::address)
          .findFirst().orElse(null);
      if (bucket != null && node != null) {
        LogDestination log = LogDestination.healthChecks(bucket, lb.attributes().healthCheckLogPrefix(), lb.arn(), node);
        lb.targetGroupArns().forEach(arn -> logs.putIfAbsent(arn, log));
      }
    }
    List<Registrations.Group> groups = new ArrayList<>();
    for (TargetGroup g : resources.targetGroups()) {
      List<String> zones = inUse.get(g.arn());
      List<Registrations.Entry> entries = new ArrayList<>();
      for (Target t : g.targets()) {
        Registrations.Status status;
        if (zones == null) {
          status = Registrations.Status.GROUP_NOT_IN_USE;
        } else if (!Target.ALL_ZONES.equals(t.zone()) && !zones.contains(t.zone())) {
          status = Registrations.Status.ZONE_NOT_ENABLED;
        } else if (sockets.holds(g, t)) {
          status = Registrations.Status.IP_UNUSABLE;
        } else {
          status = Registrations.Status.ACTIVE;
        }
        entries.add(new Registrations.Entry(t, status));
      }
      for (Target t : draining.getOrDefault(g.arn(), List.of())) {
        entries.add(new Registrations.Entry(t, Registrations.Status.DRAINING));
      }
      groups.add(new Registrations.Group(g.arn(), g.name(), g.kind(), g.healthCheck(), entries,
          unhealthyDrainingSeconds(g), g.kind() == TargetGroupKind.NLB
              && "true".equals(g.attributes().get(TargetGroupAttributes.PROXY_PROTOCOL_V2)), logs.get(g.arn())));
    }
    return new Registrations(version, groups);
  }
}
