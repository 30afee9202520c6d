package io.fulcrum.bootstrap;

import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.Action;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Node;
import io.fulcrum.model.Resources;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.registry.StateStore;
import java.util.ArrayList;
import java.util.List;

/** The start-up banner: every URL a user can reach, and something to paste. */
final class Banner {

  /** The demo's key pair (conf/fulcrum.yaml, README): its secret is no secret, so the banner shows it. */
  static final String DEMO_ACCESS_KEY_ID = "AKIAFULCRUMDEMO00001";

  private Banner() {
  }

  /**
   * @param dnsPort the DNS responder's bound port, or -1 when it is disabled
   */
  static String render(FulcrumConfig config, int controlPort, int dnsPort, int instances, String configFile) {
    return render(config, config.resources(), controlPort, dnsPort, instances, configFile);
  }

  /**
   * @param resources what runs now: the config file's, or the persisted state when the API owns them
   */
  static String render(FulcrumConfig config, Resources resources, int controlPort, int dnsPort, int instances,
      String configFile) {
    StringBuilder b = new StringBuilder();
    b.append("\nFulcrum is ready (").append(instances).append(" listener instance").append(instances == 1 ? "" : "s")
        .append(", config ").append(configFile).append(")\n");
    List<String> firstUrls = new ArrayList<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      b.append("\n  load balancer ").append(lb.name()).append("  ").append(lb.dnsName()).append('\n');
      // As DescribeLoadBalancers lists AvailabilityZones: each zone with its node addresses.
      b.append("    zones:");
      for (String zone : lb.zones()) {
        List<String> addresses = config.environment().nodes().stream().filter(n -> n.zone().equals(zone))
            .map(Node::address).toList();
        b.append("  ").append(zone).append(" (").append(addresses.isEmpty() ? "no node" : String.join(", ", addresses))
            .append(')');
      }
      b.append('\n');
      for (Listener l : lb.listeners()) {
        b.append("    ").append(l.protocol().wire()).append(' ').append(l.port()).append(':');
        for (Node n : config.environment().nodes()) {
          if (lb.zones().contains(n.zone())) {
            if (l.protocol().isNetworkFamily()) {
              // A network listener (TCP, TLS, UDP): an address to connect or send to, not a URL to fetch.
              b.append("  ").append(host(n.address())).append(':').append(l.port()).append(" (").append(n.zone())
                  .append(')');
              continue;
            }
            String url = l.protocol().wire().toLowerCase() + "://" + host(n.address()) + ":" + l.port() + "/";
            b.append("  ").append(url).append(" (").append(n.zone()).append(')');
            if (l.mutualAuthentication().mode() != MutualAuthentication.Mode.VERIFY
                && !wantsCredentials(l.defaultActions().get(0))) {
              // A verify listener answers no curl without a client certificate, nor a default action that
              // wants a token or a signed-in session without one: not a first try.
              firstUrls.add(url);
            }
          }
        }
        MutualAuthentication mtls = l.mutualAuthentication();
        if (mtls.on()) {
          b.append("  [mutual TLS: ").append(mtls.mode().wire())
              .append(mtls.trustStore() == null ? "" : ", trust store " + mtls.trustStore().name()).append(']');
        }
        markCheck(b, l, JwtValidation.TYPE);
        markCheck(b, l, AuthenticateOidc.TYPE);
        b.append('\n');
      }
    }
    if (!resources.targetGroups().isEmpty()) {
      b.append("\n  target groups\n");
      for (TargetGroup g : resources.targetGroups()) {
        b.append("    ").append(String.format("%-16s", g.name())).append(' ').append(g.targets().size())
            .append(g.targets().size() == 1 ? " target   " : " targets  ").append(g.arn()).append('\n');
      }
    }
    String control = "http://" + host(config.control().address()) + ":" + controlPort;
    b.append("\n  control plane  ").append(control).append("/health/ready\n");
    b.append("  metrics        ").append(control).append("/metrics  (Prometheus, under CloudWatch's names)\n");
    b.append("  dashboard      ").append(control).append("/ui\n");
    b.append("  elbv2 api      ").append(control).append("  (");
    if (config.source() == FulcrumConfig.ResourceSource.API) {
      b.append("owns the resources: kept in ").append(config.dataDir().resolve(StateStore.FILE))
          .append("; delete it to seed them again from ").append(configFile);
    } else {
      b.append("read-only: ").append(configFile).append(" owns the resources");
    }
    b.append(")\n");
    FulcrumConfig.Cluster cluster = config.cluster();
    if (cluster.enabled()) {
      b.append("  cluster        ").append(cluster.name()).append(" on ").append(host(cluster.host())).append(':')
          .append(cluster.port()).append("  (shares the API's resources with ")
          .append(cluster.members().isEmpty() ? "members that join it" : String.join(", ", cluster.members()))
          .append(")\n");
    }
    if (dnsPort >= 0) {
      String address = config.dns().address();
      b.append("  dns            udp://").append(host(address)).append(':').append(dnsPort);
      if (!resources.loadBalancers().isEmpty()) {
        b.append("  (try: dig @").append(address).append(" -p ").append(dnsPort).append(' ')
            .append(resources.loadBalancers().get(0).dnsName()).append(" +short)");
      }
      b.append('\n');
    }
    if (!config.demoTargets().isEmpty()) {
      b.append("  demo targets   ").append(config.demoTargets().size()).append(" embedded backends\n");
    }
    if (!firstUrls.isEmpty()) {
      // Over HTTPS, -k: the certificate is the self-signed one, or one for a name rather than this address.
      String url = firstUrls.get(0);
      b.append("\nTry:\n  curl -s").append(url.startsWith("https:") ? "k " : " ").append(url).append('\n');
    }
    FulcrumConfig.Credentials c = config.credentials();
    if (c != null && !resources.targetGroups().isEmpty()) {
      b.append(firstUrls.isEmpty() ? "\nTry:\n" : "").append("  export AWS_ACCESS_KEY_ID=").append(c.accessKeyId())
          .append(" AWS_SECRET_ACCESS_KEY=")
          .append(DEMO_ACCESS_KEY_ID.equals(c.accessKeyId()) ? c.secretAccessKey() : "<the configured secret>")
          .append(" AWS_DEFAULT_REGION=").append(config.environment().region()).append('\n')
          .append("  aws --endpoint-url ").append(control).append(" elbv2 describe-target-health --target-group-arn ")
          .append(resources.targetGroups().get(0).arn()).append('\n');
    }
    return b.toString();
  }


  /**
   * Whether a request without credentials gets no plain answer from this first action: a
   * jwt-validation wants a token; an authenticate-oidc one that does not {@code allow} such requests
   * sends them to sign in, or refuses them.
   */
  private static boolean wantsCredentials(Action first) {
    return first instanceof JwtValidation
        || first instanceof AuthenticateOidc o && o.onUnauthenticated() != AuthenticateOidc.OnUnauthenticated.ALLOW;
  }

  /** {@code  [jwt-validation: 2 rules, the default action]}: where the listener's actions begin with the check. */
  private static void markCheck(StringBuilder b, Listener l, String type) {
    long rules = l.rules().stream().filter(r -> r.actions().get(0).type().equals(type)).count();
    boolean byDefault = l.defaultActions().get(0).type().equals(type);
    if (rules > 0 || byDefault) {
      b.append("  [").append(type).append(": ").append(rules > 0 ? rules + (rules == 1 ? " rule" : " rules") : "")
          .append(rules > 0 && byDefault ? ", " : "").append(byDefault ? "the default action" : "").append(']');
    }
  }

  static String host(String address) {
    return address.indexOf(':') >= 0 ? "[" + address + "]" : address;
  }
}
