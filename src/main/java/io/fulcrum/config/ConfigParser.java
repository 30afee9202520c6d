package io.fulcrum.config;

import io.fulcrum.config.FulcrumConfig.Control;
import io.fulcrum.config.FulcrumConfig.DemoTarget;
import io.fulcrum.config.FulcrumConfig.Reload;
import io.fulcrum.config.FulcrumConfig.ResourceSource;
import io.fulcrum.model.AlbTargets;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Certificate;
import io.fulcrum.model.Cidr;
import io.fulcrum.model.Environment;
import io.fulcrum.model.FunctionDefinition;
import io.fulcrum.model.Instance;
import io.fulcrum.model.IpAddresses;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Node;
import io.fulcrum.model.Problems;
import io.fulcrum.model.ReservedSocket;
import io.fulcrum.model.ResourceRules;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TrustStore;
import io.fulcrum.tls.ClientCertificateVerifier;
import io.fulcrum.tls.FileDigest;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Turns the config file (as JSON, after environment overrides) into a {@link FulcrumConfig}.
 * Every problem is collected with its key path; the result is used only when there are none.
 *
 * <p>This class reads the top-level settings, the nodes, instances and demo targets, and the
 * certificates the API may name; the functions, target groups and load balancers are read by
 * {@link FunctionRegistryParser}, {@link TargetGroupParser} and {@link LoadBalancerParser}.
 */
public final class ConfigParser {

  /** A region name as AWS spells them: us-east-1, eu-central-2, ... */
  static final Pattern REGION = Pattern.compile("[a-z]{2}(-[a-z]+)+-\\d+");
  private static final Pattern ACCOUNT = Pattern.compile("\\d{12}");
  /** A cluster member: a host name or IPv4 address, or an IPv6 one in brackets, and maybe a port. */
  private static final Pattern MEMBER = Pattern.compile("([A-Za-z0-9.-]+|\\[[0-9A-Fa-f:.]+\\])(:[0-9]{1,5})?");
  private static final Pattern DOMAIN = Pattern.compile("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*");
  private static final Pattern ZONE = Pattern.compile("[a-z0-9][a-z0-9-]{0,62}");

  private ConfigParser() {
  }

  /**
   * Parses and validates a whole configuration.
   *
   * @param json       the merged config document
   * @param problems   where every problem goes
   * @param defaultDataDir the data dir when the file sets none
   * @return the configuration; meaningful only when {@code problems} is empty
   */
  public static FulcrumConfig parse(JsonObject json, Problems problems, Path defaultDataDir) {
    ConfigNode root = new ConfigNode(json, problems);

    String region = root.string("region", Environment.DEFAULT_REGION);
    if (!REGION.matcher(region).matches()) {
      root.at("region").add("'" + region + "' is not a region name (expected e.g. us-east-1)");
    }
    String account = root.string("account", Environment.DEFAULT_ACCOUNT);
    if (json != null && (json.getValue("account") instanceof Integer || json.getValue("account") instanceof Long)) {
      account = unquotedAccount(((Number) json.getValue("account")).longValue());
    }
    if (!ACCOUNT.matcher(account).matches()) {
      root.at("account").add("'" + account + "' is not an account id (expected 12 digits)");
    }

    List<Node> nodes = parseNodes(root);
    List<Cidr> vpcCidrs = parseCidrs(root, "vpc-cidrs", List.of("127.0.0.0/8", "::1/128"));
    Map<String, Instance> instances = parseInstances(root, nodes);
    Map<String, FunctionDefinition> functions = FunctionRegistryParser.parse(root);
    Map<String, TrustStore> trustStores = TrustStoreParser.parse(root, new Arns(region, account));
    Map<String, TrustStore> trustStoresByArn = new LinkedHashMap<>();
    trustStores.values().stream().filter(Objects::nonNull).forEach(t -> trustStoresByArn.put(t.arn(), t));
    Environment env = new Environment(region, account, nodes, vpcCidrs, instances, functions, trustStoresByArn);

    ConfigNode controlNode = root.object("control");
    String controlAddress = controlNode.string("address", "127.0.0.1");
    if (!IpAddresses.isLiteral(controlAddress)) {
      controlNode.at("address").add("'" + controlAddress + "' is not an IP address");
    }
    int controlPort = controlNode.integer("port", FulcrumConfig.DEFAULT_CONTROL_PORT);
    controlNode.at("port").checkRange(controlPort, 0, 65535);
    controlNode.finish();

    ConfigNode dnsNode = root.object("dns");
    boolean dnsEnabled = dnsNode.bool("enabled", true);
    String dnsAddress = dnsNode.string("address", controlAddress);
    if (dnsNode.has("address") && !IpAddresses.isLiteral(dnsAddress)) {
      dnsNode.at("address").add("'" + dnsAddress + "' is not an IP address");
    }
    int dnsPort = dnsNode.integer("port", FulcrumConfig.Dns.DEFAULT_PORT);
    dnsNode.at("port").checkRange(dnsPort, 0, 65535);
    String dnsDomain = dnsNode.string("domain", Arns.DEFAULT_DNS_DOMAIN).toLowerCase(java.util.Locale.ROOT);
    if (!DOMAIN.matcher(dnsDomain).matches()) {
      dnsNode.at("domain").add("'" + dnsDomain + "' is not a domain name (expected e.g. elb.localhost)");
    }
    dnsNode.finish();
    FulcrumConfig.Dns dns = new FulcrumConfig.Dns(dnsEnabled, dnsAddress, dnsPort, dnsDomain);

    FulcrumConfig.Credentials credentials = null;
    if (root.has("credentials")) {
      ConfigNode cred = root.object("credentials");
      String id = cred.string("access-key-id", null);
      String secret = cred.string("secret-access-key", null);
      if (id == null || !id.matches("[A-Za-z0-9]{1,128}")) {
        cred.at("access-key-id").add("an access key id of 1-128 letters and digits is required");
      }
      if (secret == null || secret.isEmpty()) {
        cred.at("secret-access-key").add("a secret access key is required");
      }
      cred.finish();
      credentials = new FulcrumConfig.Credentials(id, secret);
    }

    ConfigNode resourcesNode = root.object("resources");
    String sourceText = resourcesNode.string("source", "config");
    ResourceSource source = ResourceSource.CONFIG;
    if (sourceText.equals("api")) {
      source = ResourceSource.API;
    } else if (!sourceText.equals("config")) {
      resourcesNode.at("source").add("'" + sourceText + "' is not one of: config, api");
    }
    resourcesNode.finish();

    String dataDir = root.string("data-dir", defaultDataDir.toString());

    ConfigNode reloadNode = root.object("reload");
    boolean reloadEnabled = reloadNode.bool("enabled", true);
    long scan = reloadNode.longValue("scan-period-ms", FulcrumConfig.DEFAULT_SCAN_PERIOD_MS);
    reloadNode.at("scan-period-ms").checkRange(scan, FulcrumConfig.MIN_SCAN_PERIOD_MS, 3_600_000);
    reloadNode.finish();

    ConfigNode shutdownNode = root.object("shutdown");
    int shutdownTimeout = shutdownNode.integer("timeout-seconds", FulcrumConfig.DEFAULT_SHUTDOWN_TIMEOUT);
    shutdownNode.at("timeout-seconds").checkRange(shutdownTimeout, 0, 3600);
    shutdownNode.finish();

    Long seed = root.longValue("random-seed", null);

    FulcrumConfig.Cluster cluster = cluster(root, source);

    String jwksCas = caBundle(root, "jwks");
    String oidcCas = caBundle(root, "oidc");

    List<DemoTarget> demo = parseDemo(root, env);
    env = env.withReserved(reservedSockets(controlAddress, controlPort, dns, demo, cluster));

    Map<String, String> tgArns = new LinkedHashMap<>();
    List<TargetGroup> groups = TargetGroupParser.parse(root, env, tgArns);
    List<LoadBalancer> lbs = LoadBalancerParser.parse(root, env, tgArns, dnsDomain, trustStores);
    Resources resources = new Resources(lbs, groups);
    List<Certificate> certificates = parseCertificates(root, env.arns(), lbs);
    env = env.withCertificateDigests(digests(certificates));
    if (problems.isEmpty()) {
      ResourceRules.check(env, resources, problems);
    }
    if (problems.isEmpty()) {
      AlbTargets.checkListeners(resources, problems); // the API checks it as a target is registered
    }
    root.finish();
    return new FulcrumConfig(env, resources, source, new Control(controlAddress, controlPort), dns, credentials,
        Path.of(dataDir), new Reload(reloadEnabled, scan), shutdownTimeout,
        seed == null ? OptionalLong.empty() : OptionalLong.of(seed), demo, certificates,
        new FulcrumConfig.Jwks(jwksCas), new FulcrumConfig.Oidc(oidcCas), cluster);
  }

  /** The {@code cluster} object: which processes share the API's resources with this one. */
  private static FulcrumConfig.Cluster cluster(ConfigNode root, ResourceSource source) {
    FulcrumConfig.Cluster d = FulcrumConfig.Cluster.DISABLED;
    ConfigNode node = root.object("cluster");
    boolean enabled = node.bool("enabled", false);
    String name = node.string("name", d.name());
    if (!name.matches("[A-Za-z0-9._-]{1,64}")) {
      node.at("name").add("'" + name + "' is not a cluster name (1-64 letters, digits, '.', '_', '-')");
    }
    String host = node.string("host", d.host());
    if (!IpAddresses.isLiteral(host)) {
      node.at("host").add("'" + host + "' is not an IP address");
    }
    int port = node.integer("port", d.port());
    node.at("port").checkRange(port, 1, 65535);
    int eventBusPort = node.integer("event-bus-port", d.eventBusPort());
    node.at("event-bus-port").checkRange(eventBusPort, 0, 65535);
    List<String> given = node.strings("members");
    List<String> members = given == null ? List.of() : given;
    for (String member : members) {
      if (!MEMBER.matcher(member).matches()) {
        node.at("members").add("'" + member + "' is not host or host:port (an IPv6 address in brackets)");
      }
    }
    if (enabled && source != ResourceSource.API) {
      node.at("enabled").add("a cluster shares the resources the API owns: set resources.source: api (with"
          + " resources.source: config every process reads its own config file)");
    }
    node.finish();
    return new FulcrumConfig.Cluster(enabled, name, host, port, eventBusPort, members);
  }

  /** The {@code ca-certificates} PEM file of the object {@code key} (jwks, oidc), checked, or null. */
  private static String caBundle(ConfigNode root, String key) {
    ConfigNode node = root.object(key);
    String cas = node.string("ca-certificates", null);
    if (cas != null) {
      try {
        ClientCertificateVerifier.readAuthorities(cas);
      } catch (IllegalArgumentException e) {
        node.at("ca-certificates").add(e.getMessage());
      }
    }
    node.finish();
    return cas;
  }

  /**
   * The certificates HTTPS listeners created through the API may name by ARN (there is no ACM here):
   * the self-signed one, those listed under {@code certificates}, and those of the file's listeners.
   */
  private static List<Certificate> parseCertificates(ConfigNode root, Arns arns, List<LoadBalancer> lbs) {
    Map<String, Certificate> byArn = new LinkedHashMap<>();
    Certificate self = Certificate.selfSigned(arns.selfSignedCertificate());
    byArn.put(self.arn(), self);
    for (ConfigNode c : root.objects("certificates")) {
      Certificate cert = LoadBalancerParser.parseCertificate(c, arns);
      c.finish();
      if (cert != null) {
        byArn.putIfAbsent(cert.arn(), cert);
      }
    }
    for (LoadBalancer lb : lbs) {
      lb.listeners().forEach(l -> l.certificates().forEach(cert -> byArn.putIfAbsent(cert.arn(), cert)));
    }
    return List.copyOf(byArn.values());
  }

  /** The digests of the certificates' files as they are now, by certificate ARN (the self-signed one has none). */
  private static Map<String, String> digests(List<Certificate> certificates) {
    Map<String, String> out = new HashMap<>();
    for (Certificate c : certificates) {
      if (!c.selfSigned()) {
        out.put(c.arn(), FileDigest.of(c.files()));
      }
    }
    return out;
  }

  /**
   * The account id a user wrote unquoted, from the number YAML made of it. YAML 1.1 reads a 12-digit
   * id without a leading zero as a decimal number, and one with a leading zero and only the digits
   * 0-7 as an octal number ({@code 000000000010} is 8); an id with a leading zero and an 8 or 9
   * stays a string. So a value below 10^11 was written in octal digits.
   */
  private static String unquotedAccount(long value) {
    if (value < 0) {
      return Long.toString(value);
    }
    String digits = value >= 100_000_000_000L ? Long.toString(value) : Long.toOctalString(value);
    return "0".repeat(Math.max(0, 12 - digits.length())) + digits;
  }

  private static List<Node> parseNodes(ConfigNode root) {
    List<Node> nodes = new ArrayList<>();
    if (!root.has("nodes")) {
      nodes.add(new Node("zone-a", "127.0.0.1"));
      root.objects("nodes");
      return nodes;
    }
    List<ConfigNode> list = root.objects("nodes");
    if (list.isEmpty()) {
      root.at("nodes").add("at least one node is required (expected e.g. [{zone: zone-a, address: 127.0.0.1}])");
    }
    Set<String> addresses = new HashSet<>();
    for (ConfigNode n : list) {
      String zone = n.string("zone", null);
      String address = n.string("address", null);
      if (zone == null) {
        n.at("zone").add("a zone is required (e.g. zone-a)");
      } else if (!ZONE.matcher(zone).matches() || zone.equals(Target.ALL_ZONES)) {
        n.at("zone").add("'" + zone + "' is not a zone name (expected lower-case letters, digits and hyphens, not 'all')");
      }
      if (address == null) {
        n.at("address").add("an address is required (e.g. 127.0.0.1)");
      } else if (!IpAddresses.isLiteral(address)) {
        n.at("address").add("'" + address + "' is not an IP address");
      } else if (!addresses.add(IpAddresses.canonical(IpAddresses.parse(address)))) {
        n.at("address").add("'" + address + "' is used by another node");
      }
      n.finish();
      if (zone != null && address != null) {
        nodes.add(new Node(zone, address));
      }
    }
    return nodes;
  }

  /** The process's sockets besides its listeners', which no listener may share (ports picked at start aside). */
  private static List<ReservedSocket> reservedSockets(String controlAddress, int controlPort, FulcrumConfig.Dns dns,
      List<DemoTarget> demo, FulcrumConfig.Cluster cluster) {
    List<ReservedSocket> out = new ArrayList<>();
    if (controlPort > 0) {
      out.add(new ReservedSocket(controlAddress, controlPort, true, false, "the control port (control.port)"));
    }
    if (dns.enabled() && dns.port() > 0) {
      out.add(new ReservedSocket(dns.address(), dns.port(), true, true, "the DNS responder's (dns.port)"));
    }
    for (DemoTarget t : demo) {
      out.add(new ReservedSocket(t.address(), t.port(), true, false, "demo target " + t.id() + "'s"));
    }
    if (cluster.enabled()) {
      out.add(new ReservedSocket(cluster.host(), cluster.port(), true, false, "the cluster's member port (cluster.port)"));
      if (cluster.eventBusPort() > 0) {
        out.add(new ReservedSocket(cluster.host(), cluster.eventBusPort(), true, false,
            "the cluster's event bus port (cluster.event-bus-port)"));
      }
    }
    return out;
  }

  static List<Cidr> parseCidrs(ConfigNode node, String key, List<String> defaults) {
    List<String> values = node.strings(key);
    List<Cidr> out = new ArrayList<>();
    List<String> texts = values == null ? defaults : values;
    for (int i = 0; i < texts.size(); i++) {
      try {
        out.add(Cidr.parse(texts.get(i)));
      } catch (IllegalArgumentException e) {
        node.at(key).at(i).add(e.getMessage());
      }
    }
    return out;
  }

  private static Map<String, Instance> parseInstances(ConfigNode root, List<Node> nodes) {
    Map<String, Instance> out = new LinkedHashMap<>();
    Set<String> zones = new HashSet<>();
    nodes.forEach(n -> zones.add(n.zone()));
    for (Map.Entry<String, ConfigNode> e : root.objectMap("instances").entrySet()) {
      ConfigNode n = e.getValue();
      String id = e.getKey();
      if (!id.matches("i-[0-9a-f]{8}([0-9a-f]{9})?")) {
        n.problems().add("'" + id + "' is not an instance id (expected i- and 8 or 17 hex digits)");
      }
      String address = n.string("address", null);
      if (address == null || !IpAddresses.isLiteral(address)) {
        n.at("address").add("an IP address is required");
      }
      String zone = n.string("zone", null);
      if (zone == null || !zones.contains(zone)) {
        n.at("zone").add("expected one of the nodes' zones: " + String.join(", ", zones));
      }
      String state = n.string("state", Instance.RUNNING);
      if (!List.of("running", "stopped", "terminated").contains(state)) {
        n.at("state").add("'" + state + "' is not one of: running, stopped, terminated");
      }
      n.finish();
      out.put(id, new Instance(id, address, zone, state));
    }
    return out;
  }

  private static List<DemoTarget> parseDemo(ConfigNode root, Environment env) {
    ConfigNode demo = root.object("demo");
    List<DemoTarget> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (ConfigNode n : demo.objects("targets")) {
      String id = n.string("id", null);
      String address = n.string("address", "127.0.0.1");
      Integer port = n.integer("port", null);
      String zone = n.string("zone", env.zones().isEmpty() ? "zone-a" : env.zones().get(0));
      if (id == null || id.isBlank()) {
        n.at("id").add("an id is required (the demo target answers with it)");
      }
      if (!IpAddresses.isLiteral(address)) {
        n.at("address").add("'" + address + "' is not an IP address");
      }
      if (port == null) {
        if (!n.has("port")) {
          n.at("port").add("a port is required");
        }
      } else if (n.at("port").checkRange(port, 1, 65535) && !seen.add(address + ":" + port)) {
        n.at("port").add(address + ":" + port + " is used by another demo target");
      }
      n.finish();
      if (id != null && port != null) {
        out.add(new DemoTarget(id, address, port, zone));
      }
    }
    demo.finish();
    return out;
  }
}
