package io.fulcrum.config;

import io.fulcrum.model.Action;
import io.fulcrum.model.AlpnPolicy;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Certificate;
import io.fulcrum.model.Environment;
import io.fulcrum.model.Listener;
import io.fulcrum.model.ListenerAttributes;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerAttributes;
import io.fulcrum.model.LoadBalancerIpAddressType;
import io.fulcrum.model.LoadBalancerType;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import io.fulcrum.model.RuleTransform;
import io.fulcrum.model.SecurityPolicy;
import io.fulcrum.model.TrustStore;
import io.fulcrum.tls.ServerCertificateFiles;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads the load balancers, {@code load-balancers:}: each one's name, type, {@code zones},
 * {@code ip-address-type} and {@code attributes}, and its {@code listeners} with their protocol, port, {@code default-actions},
 * {@code rules} (conditions and actions through {@link RuleParser}), {@code h2c}, {@code ssl-policy},
 * {@code certificates}, {@code alpn-policy}, {@code mutual-authentication} and {@code attributes}, with
 * their key paths.
 *
 * <p>Forward actions find the target groups they name in the name-to-ARN map that
 * {@link TargetGroupParser} fills, so the target groups are read first. Only load balancers without
 * problems, their listeners' included, are returned.
 */
final class LoadBalancerParser {

  private LoadBalancerParser() {
  }

  static List<LoadBalancer> parse(ConfigNode root, Environment env, Map<String, String> tgArns, String dnsDomain,
      Map<String, TrustStore> trustStores) {
    List<LoadBalancer> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    Arns arns = env.arns();
    for (ConfigNode n : root.objects("load-balancers")) {
      int before = n.problems().size();
      String name = n.string("name", null);
      // Letter case aside: the DNS names of two that differ only in it would be the same.
      if (LoadBalancer.checkName(name, n.at("name")) && !names.add(name.toLowerCase(Locale.ROOT))) {
        n.at("name").add("a load balancer named '" + name + "' is already defined (letter case aside: the DNS name"
            + " is the name in lower case)");
      }
      LoadBalancerType type = n.enumValue("type", LoadBalancerType.class, LoadBalancerType.APPLICATION);
      LoadBalancerIpAddressType ipAddressType = n.enumValue("ip-address-type", LoadBalancerIpAddressType.class,
          LoadBalancerIpAddressType.IPV4);
      List<String> zones = n.strings("zones");
      if (zones == null) {
        zones = env.zones();
      } else {
        for (int i = 0; i < zones.size(); i++) {
          if (!env.zones().contains(zones.get(i))) {
            n.at("zones").at(i).add("'" + zones.get(i) + "' has no node (expected one of: " + String.join(", ", env.zones()) + ")");
          }
        }
        if (zones.isEmpty()) {
          n.at("zones").add("at least one zone is required");
        }
      }
      Map<String, String> givenAttributes = n.stringMap("attributes");
      LoadBalancerAttributes attrs = type == null ? null
          : LoadBalancerAttributes.resolve(type, null, givenAttributes, n.at("attributes"));
      String lbId = name == null ? "0000000000000000" : arns.stableId("loadbalancer", name);
      String lbArn = type == null || name == null ? null : arns.loadBalancer(type, name, lbId);

      List<Listener> listeners = new ArrayList<>();
      Set<Integer> ports = new HashSet<>();
      for (ConfigNode l : n.objects("listeners")) {
        Listener listener = parseListener(l, type, name, lbId, arns, tgArns, trustStores);
        l.finish();
        if (listener != null) {
          if (!ports.add(listener.port())) {
            l.at("port").add("another listener of this load balancer uses port " + listener.port());
          }
          listeners.add(listener);
        }
      }
      n.finish();
      if (n.problems().size() == before && type != null) {
        out.add(new LoadBalancer(lbArn, name, type, arns.dnsName(name, dnsDomain), zones, attrs, listeners)
            .withIpAddressType(ipAddressType));
      }
    }
    return out;
  }

  private static Listener parseListener(ConfigNode l, LoadBalancerType lbType, String lbName, String lbId, Arns arns,
      Map<String, String> tgArns, Map<String, TrustStore> trustStores) {
    int before = l.problems().size();
    Protocol protocol = l.enumValue("protocol", Protocol.class, null);
    if (protocol == null && !l.has("protocol")) {
      l.at("protocol").add("a protocol is required (expected: " + Protocol.SERVED + ")");
    } else if (protocol != null && !protocol.served()) {
      l.at("protocol").add("'" + protocol.wire() + "' listeners are not available yet (expected: " + Protocol.SERVED
          + ")");
    }
    Integer port = l.integer("port", null);
    if (port == null) {
      if (!l.has("port")) {
        l.at("port").add("a port is required");
      }
    } else {
      l.at("port").checkRange(port, 1, 65535);
    }
    String listenerId = arns.stableId("listener", lbName == null ? "" : lbName, String.valueOf(port));
    String listenerArn = lbType == null || lbName == null ? null : arns.listener(lbType, lbName, lbId, listenerId);

    int beforeActions = l.problems().size();
    List<Action> defaults = RuleParser.actions(l, "default-actions", tgArns);
    if (defaults.isEmpty() && l.problems().size() == beforeActions) {
      l.at("default-actions").add("a listener needs a default action (e.g. [{type: forward, target-group: web}])");
    }
    List<Rule> rules = new ArrayList<>();
    Set<Integer> priorities = new HashSet<>();
    for (ConfigNode r : l.objects("rules")) {
      Integer priority = r.integer("priority", null);
      if (priority == null) {
        r.at("priority").add("a priority is required (" + Rule.MIN_PRIORITY + "-" + Rule.MAX_PRIORITY + ")");
      } else if (r.at("priority").checkRange(priority, Rule.MIN_PRIORITY, Rule.MAX_PRIORITY) && !priorities.add(priority)) {
        r.at("priority").add("PriorityInUse", "another rule of this listener has priority " + priority);
      }
      List<RuleCondition> conditions = RuleParser.conditions(r);
      List<Action> actions = RuleParser.actions(r, "actions", tgArns);
      List<RuleTransform> transforms = RuleParser.transforms(r);
      r.finish();
      if (priority != null) {
        String ruleArn = listenerArn == null ? null
            : arns.rule(lbType, lbName, lbId, listenerId, arns.stableId("rule", lbName, String.valueOf(port), priority.toString()));
        rules.add(new Rule(ruleArn, priority, conditions, actions, transforms));
      }
    }
    boolean h2c = l.bool("h2c", false);
    if (h2c && protocol != null && protocol != Protocol.HTTP) {
      l.at("h2c").add("h2c is only for HTTP listeners");
    }
    String sslPolicy = l.string("ssl-policy", null);
    List<Certificate> certificates = new ArrayList<>();
    List<ConfigNode> certNodes = l.objects("certificates");
    if (protocol != null && protocol.isTls()) {
      if (sslPolicy == null) {
        sslPolicy = Listener.DEFAULT_SSL_POLICY;
      } else if (SecurityPolicy.named(sslPolicy) == null) {
        l.at("ssl-policy").add("'" + sslPolicy + "' is not a security policy (expected one of: "
            + String.join(", ", SecurityPolicy.names()) + ")");
      }
      for (ConfigNode c : certNodes) {
        Certificate cert = parseCertificate(c, arns);
        c.finish();
        if (cert != null) {
          certificates.add(cert);
        }
      }
      if (certNodes.isEmpty()) {
        certificates.add(Certificate.selfSigned(arns.selfSignedCertificate()));
      }
      if (certificates.size() > LoadBalancer.MAX_CERTIFICATES + 1) {
        l.at("certificates").add("TooManyCertificates", certificates.size() + " certificates is above the maximum "
            + (LoadBalancer.MAX_CERTIFICATES + 1) + " per listener");
      }
    } else {
      if (sslPolicy != null) {
        l.at("ssl-policy").add("a security policy is only for HTTPS and TLS listeners");
      }
      if (!certNodes.isEmpty()) {
        l.at("certificates").add("certificates are only for HTTPS and TLS listeners");
      }
    }
    String alpnName = l.string("alpn-policy", null);
    AlpnPolicy alpnPolicy = alpnName == null ? null : AlpnPolicy.named(alpnName);
    if (alpnName != null && protocol != null && protocol != Protocol.TLS) {
      l.at("alpn-policy").add("an ALPN policy is only for TLS listeners");
    } else if (alpnName != null && alpnPolicy == null) {
      l.at("alpn-policy").add("ALPNPolicyNotFound", AlpnPolicy.unknown(alpnName));
    }
    MutualAuthentication mtls = null;
    if (l.has("mutual-authentication")) {
      if (protocol != null && protocol != Protocol.HTTPS) {
        l.at("mutual-authentication").add("mutual authentication is only for HTTPS listeners");
        l.object("mutual-authentication");
      } else {
        ConfigNode m = l.object("mutual-authentication");
        mtls = TrustStoreParser.mutualAuthentication(m, trustStores);
        m.finish();
      }
    }
    Map<String, String> givenAttributes = l.stringMap("attributes");
    ListenerAttributes attributes = protocol == null ? null
        : ListenerAttributes.resolve(protocol, null, givenAttributes, l.at("attributes"));
    if (l.problems().size() > before) {
      return null;
    }
    return new Listener(listenerArn, protocol, port, defaults, rules, certificates, sslPolicy, h2c, attributes,
        alpnPolicy, mtls);
  }

  /**
   * A certificate, of a listener or of the top-level {@code certificates} list: PEM files
   * ({@code certificate}, {@code private-key}) or a PKCS#12 keystore.
   */
  static Certificate parseCertificate(ConfigNode c, Arns arns) {
    String cert = c.string("certificate", null);
    String key = c.string("private-key", null);
    String p12 = c.string("pkcs12", null);
    String password = c.string("password", null);
    if (cert != null || key != null) {
      if (cert == null || key == null || p12 != null) {
        c.problems().add("give certificate and private-key (PEM files), or pkcs12 (and password)");
        return null;
      }
      boolean ok = readable(c.at("certificate"), cert) & readable(c.at("private-key"), key);
      return ok ? servable(c, new Certificate(arns.certificate(cert), cert, key, null, null)) : null;
    }
    if (p12 == null) {
      c.problems().add("give certificate and private-key (PEM files), or pkcs12 (and password)");
      return null;
    }
    return readable(c.at("pkcs12"), p12) ? servable(c, new Certificate(arns.certificate(p12), null, null, p12, password))
        : null;
  }

  /** {@code cert}, when a listener can serve its files; null, with the problem under the key naming the file, when not. */
  private static Certificate servable(ConfigNode c, Certificate cert) {
    ServerCertificateFiles.Problem problem = ServerCertificateFiles.check(cert);
    if (problem == null) {
      return cert;
    }
    c.at(problem.key()).add(problem.message());
    return null;
  }

  private static boolean readable(Problems p, String file) {
    if (!java.nio.file.Files.isReadable(Path.of(file))) {
      p.add("'" + file + "' cannot be read (paths are relative to the working directory)");
      return false;
    }
    return true;
  }
}
