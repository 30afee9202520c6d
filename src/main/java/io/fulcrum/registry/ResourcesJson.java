package io.fulcrum.registry;

import io.fulcrum.model.Action;
import io.fulcrum.model.AlpnPolicy;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.Cidr;
import io.fulcrum.model.Environment;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.IpAddressType;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Certificate;
import io.fulcrum.model.Listener;
import io.fulcrum.model.ListenerAttributes;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerAttributes;
import io.fulcrum.model.LoadBalancerIpAddressType;
import io.fulcrum.model.LoadBalancerScheme;
import io.fulcrum.model.LoadBalancerType;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import io.fulcrum.model.RuleTransform;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetDescription;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetType;
import io.fulcrum.model.Targets;
import io.fulcrum.model.TrustStore;
import io.fulcrum.model.WireEnum;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The persisted form of {@link Resources}: what a user set (ARNs, names, health-check inputs,
 * attributes, registrations as given, tags), never what is derived. Reading it back goes through
 * the same validation as the config file, so a state file cannot smuggle in what the API would
 * refuse.
 */
public final class ResourcesJson {

  static final int FORMAT = 1;

  private ResourcesJson() {
  }

  static JsonObject encode(Resources r) {
    JsonArray lbs = new JsonArray();
    for (LoadBalancer lb : r.loadBalancers()) {
      JsonArray listeners = new JsonArray();
      for (Listener l : lb.listeners()) {
        JsonArray rules = new JsonArray();
        for (Rule rule : l.rules()) {
          JsonObject o = new JsonObject().put("arn", rule.arn()).put("priority", rule.priority())
              .put("conditions", conditions(rule.conditions())).put("actions", actions(rule.actions(), true));
          if (!rule.transforms().isEmpty()) {
            o.put("transforms", transforms(rule.transforms()));
          }
          rules.add(o);
        }
        JsonObject listener = new JsonObject().put("arn", l.arn()).put("protocol", l.protocol().wire())
            .put("port", l.port()).put("defaultActions", actions(l.defaultActions(), true)).put("rules", rules);
        if (l.h2c()) {
          listener.put("h2c", true);
        }
        if (l.sslPolicy() != null) {
          listener.put("sslPolicy", l.sslPolicy());
        }
        if (l.alpnPolicy() != null) {
          listener.put("alpnPolicy", l.alpnPolicy().wire());
        }
        if (!l.certificates().isEmpty()) {
          JsonArray certificates = new JsonArray();
          l.certificates().forEach(c -> certificates.add(new JsonObject().put("arn", c.arn())
              .put("certificateFile", c.certificateFile()).put("privateKeyFile", c.privateKeyFile())
              .put("pkcs12File", c.pkcs12File()).put("password", c.password())));
          listener.put("certificates", certificates);
        }
        if (l.mutualAuthentication().on()) {
          listener.put("mutualAuthentication", mutualAuthentication(l.mutualAuthentication()));
        }
        listener.put("attributes", new JsonObject(new LinkedHashMap<>(l.attributes().asMap())));
        listeners.add(listener);
      }
      lbs.add(new JsonObject().put("arn", lb.arn()).put("name", lb.name()).put("type", lb.type().wire())
          .put("dnsName", lb.dnsName()).put("zones", new JsonArray(new ArrayList<>(lb.zones())))
          .put("scheme", lb.scheme().wire()).put("ipAddressType", lb.ipAddressType().wire())
          .put("securityGroups", new JsonArray(new ArrayList<>(lb.securityGroups())))
          .put("createdTime", lb.createdTime() == null ? null : lb.createdTime().toString())
          .put("attributes", new JsonObject(new LinkedHashMap<>(lb.attributes().asMap()))).put("listeners", listeners));
    }
    JsonArray tgs = new JsonArray();
    for (TargetGroup g : r.targetGroups()) {
      HealthCheck.Input hc = g.healthCheck().toInput();
      JsonArray targets = new JsonArray();
      for (Target t : g.targets()) {
        JsonObject o = new JsonObject().put("id", t.id());
        // A lambda group has no port and its function none either (port 0 would not load back).
        if (g.port() == null ? t.port() != 0 : t.port() != g.port()) {
          o.put("port", t.port());
        }
        if (t.zoneGiven()) {
          o.put("zone", t.zone());
        }
        targets.add(o);
      }
      tgs.add(new JsonObject().put("arn", g.arn()).put("name", g.name()).put("targetType", g.targetType().wire())
          .put("protocol", g.protocol() == null ? null : g.protocol().wire()).put("port", g.port())
          .put("protocolVersion", g.protocolVersion() == null ? null : g.protocolVersion().wire())
          .put("ipAddressType", g.ipAddressType().wire())
          .put("healthCheck", new JsonObject().put("enabled", hc.enabled()).put("protocol", hc.protocol())
              .put("port", hc.port()).put("path", hc.path()).put("intervalSeconds", hc.intervalSeconds())
              .put("timeoutSeconds", hc.timeoutSeconds()).put("healthyThreshold", hc.healthyThreshold())
              .put("unhealthyThreshold", hc.unhealthyThreshold()).put("httpCode", hc.httpCode())
              .put("grpcCode", hc.grpcCode()))
          .put("attributes", new JsonObject(new LinkedHashMap<>(g.attributes().asMap()))).put("targets", targets)
          .put("targetControlPort", g.targetControlPort()));
    }
    JsonObject tags = new JsonObject();
    r.tags().forEach((arn, t) -> tags.put(arn, new JsonObject(new LinkedHashMap<>(t))));
    return new JsonObject().put("format", FORMAT).put("loadBalancers", lbs).put("targetGroups", tgs).put("tags", tags);
  }

  /** Rule conditions as the state file writes them (and the dashboard shows them). */
  public static JsonArray conditions(List<RuleCondition> conditions) {
    JsonArray out = new JsonArray();
    for (RuleCondition c : conditions) {
      JsonObject o = new JsonObject().put("field", c.field());
      if (c instanceof RuleCondition.PathPattern p) {
        o.put("values", new JsonArray(new ArrayList<>(p.values())));
      } else if (c instanceof RuleCondition.HostHeader h) {
        o.put("values", new JsonArray(new ArrayList<>(h.values())));
      } else if (c instanceof RuleCondition.HttpHeader h) {
        o.put("name", h.name()).put("values", new JsonArray(new ArrayList<>(h.values())));
      } else if (c instanceof RuleCondition.Regex r) {
        if (r.headerName() != null) {
          o.put("name", r.headerName());
        }
        o.put("regexValues", new JsonArray(new ArrayList<>(r.values())));
      } else if (c instanceof RuleCondition.HttpRequestMethod m) {
        o.put("values", new JsonArray(new ArrayList<>(m.values())));
      } else if (c instanceof RuleCondition.QueryString q) {
        JsonArray kvs = new JsonArray();
        q.values().forEach(kv -> kvs.add(new JsonObject().put("key", kv.key()).put("value", kv.value())));
        o.put("values", kvs);
      } else if (c instanceof RuleCondition.SourceIp s) {
        JsonArray cidrs = new JsonArray();
        s.values().forEach(cidr -> cidrs.add(cidr.toString()));
        o.put("values", cidrs);
      }
      out.add(o);
    }
    return out;
  }

  /**
   * Actions as the dashboard shows them: as the state file writes them, but without the client
   * secret of an authenticate-oidc action.
   */
  public static JsonArray actions(List<Action> actions) {
    return actions(actions, false);
  }

  /**
   * Actions as the state file writes them; {@code withSecrets} only there (the file is readable by
   * its owner only, and the process needs the secret back after a restart).
   */
  private static JsonArray actions(List<Action> actions, boolean withSecrets) {
    JsonArray out = new JsonArray();
    for (Action a : actions) {
      JsonObject o = new JsonObject().put("type", a.type());
      if (a instanceof Action.Forward f) {
        JsonArray groups = new JsonArray();
        f.targetGroups().forEach(w -> groups.add(new JsonObject().put("arn", w.arn()).put("name", w.name())
            .put("weight", w.weight())));
        o.put("targetGroups", groups).put("stickinessEnabled", f.stickinessEnabled())
            .put("stickinessDurationSeconds", f.stickinessDurationSeconds());
      } else if (a instanceof Action.FixedResponse f) {
        o.put("statusCode", f.statusCode()).put("contentType", f.contentType()).put("messageBody", f.messageBody());
      } else if (a instanceof Action.Redirect r) {
        o.put("protocol", r.protocol()).put("port", r.port()).put("host", r.host()).put("path", r.path())
            .put("query", r.query()).put("statusCode", r.statusCode());
      } else if (a instanceof JwtValidation j) {
        JsonArray claims = new JsonArray();
        j.additionalClaims().forEach(c -> claims.add(new JsonObject().put("name", c.name())
            .put("format", c.format().wire()).put("values", new JsonArray(c.values()))));
        o.put("jwksEndpoint", j.jwksEndpoint()).put("issuer", j.issuer()).put("additionalClaims", claims);
      } else if (a instanceof AuthenticateOidc oidc) {
        JsonObject extra = new JsonObject();
        oidc.extraParams().forEach(extra::put);
        o.put("issuer", oidc.issuer()).put("authorizationEndpoint", oidc.authorizationEndpoint())
            .put("tokenEndpoint", oidc.tokenEndpoint()).put("userInfoEndpoint", oidc.userInfoEndpoint())
            .put("clientId", oidc.clientId());
        if (withSecrets) {
          o.put("clientSecret", oidc.clientSecret());
        }
        o.put("sessionCookieName", oidc.sessionCookieName()).put("scope", oidc.scope())
            .put("sessionTimeoutSeconds", oidc.sessionTimeoutSeconds()).put("extraParams", extra)
            .put("onUnauthenticatedRequest", oidc.onUnauthenticated().wire());
      }
      out.add(o);
    }
    return out;
  }

  /**
   * Reads resources back, validating them as the API would.
   *
   * @throws InvalidModelException listing what is wrong (paths are JSON paths in the state file)
   * @throws IllegalArgumentException when the document is not a state file of a known format
   */
  static Resources decode(JsonObject json, Environment env) {
    Integer format = json.getInteger("format");
    if (format == null || format != FORMAT) {
      throw new IllegalArgumentException("unknown state file format " + format + " (expected " + FORMAT + ")");
    }
    Problems problems = new Problems();
    List<TargetGroup> groups = new ArrayList<>();
    JsonArray tgs = json.getJsonArray("targetGroups", new JsonArray());
    for (int i = 0; i < tgs.size(); i++) {
      TargetGroup g = targetGroup(tgs.getJsonObject(i), env, problems.at("targetGroups").at(i));
      if (g != null) {
        groups.add(g);
      }
    }
    List<LoadBalancer> lbs = new ArrayList<>();
    JsonArray lbArray = json.getJsonArray("loadBalancers", new JsonArray());
    for (int i = 0; i < lbArray.size(); i++) {
      LoadBalancer lb = loadBalancer(lbArray.getJsonObject(i), problems.at("loadBalancers").at(i));
      if (lb != null) {
        lbs.add(lb);
      }
    }
    Map<String, Map<String, String>> tags = new LinkedHashMap<>();
    JsonObject t = json.getJsonObject("tags", new JsonObject());
    for (String arn : t.fieldNames()) {
      Map<String, String> m = new LinkedHashMap<>();
      t.getJsonObject(arn).forEach(e -> m.put(e.getKey(), String.valueOf(e.getValue())));
      tags.put(arn, m);
    }
    if (!problems.isEmpty()) {
      throw new InvalidModelException(problems.list());
    }
    return new Resources(lbs, groups, tags);
  }

  private static TargetGroup targetGroup(JsonObject o, Environment env, Problems p) {
    int before = p.size();
    TargetType type = WireEnum.parse(TargetType.class, o.getString("targetType"), p.at("targetType"));
    Protocol protocol = o.getString("protocol") == null ? null
        : WireEnum.parse(Protocol.class, o.getString("protocol"), p.at("protocol"));
    ProtocolVersion version = o.getString("protocolVersion") == null ? null
        : WireEnum.parse(ProtocolVersion.class, o.getString("protocolVersion"), p.at("protocolVersion"));
    IpAddressType ipType = WireEnum.parse(IpAddressType.class, o.getString("ipAddressType", "ipv4"), p.at("ipAddressType"));
    Integer port = o.getInteger("port");
    JsonObject h = o.getJsonObject("healthCheck", new JsonObject());
    if (p.size() > before) {
      return null;
    }
    HealthCheck hc = HealthCheck.resolve(new HealthCheck.Input(h.getBoolean("enabled"), h.getString("protocol"),
        h.getString("port"), h.getString("path"), h.getInteger("intervalSeconds"), h.getInteger("timeoutSeconds"),
        h.getInteger("healthyThreshold"), h.getInteger("unhealthyThreshold"), h.getString("httpCode"),
        h.getString("grpcCode")), type, protocol, version, p.at("healthCheck"));
    Map<String, String> attrs = new LinkedHashMap<>();
    o.getJsonObject("attributes", new JsonObject()).forEach(e -> attrs.put(e.getKey(), String.valueOf(e.getValue())));
    TargetGroupAttributes attributes = TargetGroupAttributes.resolve(type, protocol,
        o.getInteger("targetControlPort") != null, null, attrs, p.at("attributes"));
    List<Target> targets = new ArrayList<>();
    JsonArray ts = o.getJsonArray("targets", new JsonArray());
    for (int i = 0; i < ts.size(); i++) {
      JsonObject t = ts.getJsonObject(i);
      Target target = Targets.resolve(new TargetDescription(t.getString("id"), t.getInteger("port"), t.getString("zone")),
          type, port, ipType, env, p.at("targets").at(i));
      if (target != null) {
        targets.add(target);
      }
    }
    if (p.size() > before) {
      return null;
    }
    return new TargetGroup(o.getString("arn"), o.getString("name"), type, protocol, port, version, ipType, hc, attributes,
        targets, o.getInteger("targetControlPort"));
  }

  /** A rule's transforms, as the state file and the dashboard show them. */
  public static JsonArray transforms(List<RuleTransform> transforms) {
    JsonArray out = new JsonArray();
    transforms.forEach(t -> out.add(new JsonObject().put("type", t.type().wire()).put("regex", t.regex())
        .put("replace", t.replace())));
    return out;
  }

  private static List<RuleTransform> transforms(JsonArray a, Problems p) {
    List<RuleTransform> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      JsonObject t = a.getJsonObject(i);
      RuleTransform.Type type = WireEnum.parse(RuleTransform.Type.class, t.getString("type"), p.at(i).at("type"));
      if (type != null) {
        out.add(new RuleTransform(type, t.getString("regex", ""), t.getString("replace", "")));
      }
    }
    RuleTransform.validate(out, p);
    return out;
  }

  /** A listener's mutual TLS, its trust store's files with it (as a listener's certificates are kept). */
  private static JsonObject mutualAuthentication(MutualAuthentication m) {
    JsonObject o = new JsonObject().put("mode", m.mode().wire());
    if (m.trustStore() != null) {
      TrustStore t = m.trustStore();
      o.put("trustStore", new JsonObject().put("arn", t.arn()).put("name", t.name())
          .put("caCertificates", t.caCertificates()).put("revocations", new JsonArray(new ArrayList<>(t.revocationFiles())))
          .put("caCount", t.caCount()).put("revokedPerList", new JsonArray(new ArrayList<>(t.revokedPerList())))
          .put("digest", t.digest()));
    }
    if (m.ignoreClientCertificateExpiry()) {
      o.put("ignoreClientCertificateExpiry", true);
    }
    if (m.advertiseTrustStoreCaNames()) {
      o.put("advertiseTrustStoreCaNames", true);
    }
    return o;
  }

  private static MutualAuthentication mutualAuthentication(JsonObject o, Problems p) {
    if (o == null) {
      return null;
    }
    MutualAuthentication.Mode mode = MutualAuthentication.Mode.named(o.getString("mode"));
    if (mode == null) {
      p.at("mode").add(MutualAuthentication.Mode.unknown(String.valueOf(o.getString("mode"))));
      return null;
    }
    JsonObject t = o.getJsonObject("trustStore");
    TrustStore store = t == null ? null : new TrustStore(t.getString("arn"), t.getString("name"),
        t.getString("caCertificates"), strings(t.getJsonArray("revocations", new JsonArray())), t.getInteger("caCount", 0),
        integers(t.getJsonArray("revokedPerList", new JsonArray())), t.getString("digest"));
    boolean ignore = o.getBoolean("ignoreClientCertificateExpiry", false);
    boolean advertise = o.getBoolean("advertiseTrustStoreCaNames", false);
    String problem = MutualAuthentication.problem(mode, store != null, ignore, advertise ? "on" : "off");
    if (problem != null) {
      p.add(problem);
      return null;
    }
    return new MutualAuthentication(mode, store, ignore, advertise);
  }

  private static AlpnPolicy alpnPolicy(String name, Problems p) {
    AlpnPolicy policy = name == null ? null : AlpnPolicy.named(name);
    if (name != null && policy == null) {
      p.add(AlpnPolicy.unknown(name));
    }
    return policy;
  }

  private static LoadBalancer loadBalancer(JsonObject o, Problems p) {
    int before = p.size();
    LoadBalancerType type = WireEnum.parse(LoadBalancerType.class, o.getString("type"), p.at("type"));
    // Files written before these fields existed hold config-file load balancers: internet-facing, ipv4.
    LoadBalancerScheme scheme = WireEnum.parse(LoadBalancerScheme.class,
        o.getString("scheme", LoadBalancerScheme.INTERNET_FACING.wire()), p.at("scheme"));
    LoadBalancerIpAddressType ipType = WireEnum.parse(LoadBalancerIpAddressType.class,
        o.getString("ipAddressType", LoadBalancerIpAddressType.IPV4.wire()), p.at("ipAddressType"));
    Instant created = null;
    if (o.getString("createdTime") != null) {
      try {
        created = Instant.parse(o.getString("createdTime"));
      } catch (DateTimeParseException e) {
        p.at("createdTime").add("'" + o.getString("createdTime") + "' is not an ISO-8601 instant");
      }
    }
    Map<String, String> attrs = new LinkedHashMap<>();
    o.getJsonObject("attributes", new JsonObject()).forEach(e -> attrs.put(e.getKey(), String.valueOf(e.getValue())));
    LoadBalancerAttributes attributes = type == null ? null : LoadBalancerAttributes.resolve(type, null, attrs,
        p.at("attributes"));
    List<Listener> listeners = new ArrayList<>();
    JsonArray ls = o.getJsonArray("listeners", new JsonArray());
    for (int i = 0; i < ls.size(); i++) {
      JsonObject l = ls.getJsonObject(i);
      Protocol protocol = WireEnum.parse(Protocol.class, l.getString("protocol"), p.at("listeners").at(i).at("protocol"));
      List<Rule> rules = new ArrayList<>();
      JsonArray rs = l.getJsonArray("rules", new JsonArray());
      for (int j = 0; j < rs.size(); j++) {
        JsonObject r = rs.getJsonObject(j);
        rules.add(new Rule(r.getString("arn"), r.getInteger("priority"), conditions(r.getJsonArray("conditions")),
            actions(r.getJsonArray("actions")), transforms(r.getJsonArray("transforms", new JsonArray()),
                p.at("listeners").at(i).at("rules").at(j).at("transforms"))));
      }
      List<Certificate> certificates = new ArrayList<>();
      JsonArray cs = l.getJsonArray("certificates", new JsonArray());
      for (int j = 0; j < cs.size(); j++) {
        JsonObject c = cs.getJsonObject(j);
        certificates.add(new Certificate(c.getString("arn"), c.getString("certificateFile"),
            c.getString("privateKeyFile"), c.getString("pkcs12File"), c.getString("password")));
      }
      Map<String, String> given = new LinkedHashMap<>();
      l.getJsonObject("attributes", new JsonObject()).forEach(e -> given.put(e.getKey(), String.valueOf(e.getValue())));
      ListenerAttributes listenerAttributes = protocol == null ? null
          : ListenerAttributes.resolve(protocol, null, given, p.at("listeners").at(i).at("attributes"));
      listeners.add(new Listener(l.getString("arn"), protocol, l.getInteger("port"), actions(l.getJsonArray("defaultActions")),
          rules, certificates, l.getString("sslPolicy"), l.getBoolean("h2c", false), listenerAttributes,
          alpnPolicy(l.getString("alpnPolicy"), p.at("listeners").at(i).at("alpnPolicy")),
          mutualAuthentication(l.getJsonObject("mutualAuthentication"), p.at("listeners").at(i).at("mutualAuthentication"))));
    }
    if (p.size() > before) {
      return null;
    }
    List<String> zones = new ArrayList<>();
    o.getJsonArray("zones", new JsonArray()).forEach(z -> zones.add(String.valueOf(z)));
    return new LoadBalancer(o.getString("arn"), o.getString("name"), type, o.getString("dnsName"), zones, attributes,
        listeners, scheme, ipType, strings(o.getJsonArray("securityGroups", new JsonArray())), created);
  }

  private static List<RuleCondition> conditions(JsonArray a) {
    List<RuleCondition> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      JsonObject c = a.getJsonObject(i);
      JsonArray v = c.getJsonArray("values", new JsonArray());
      if (c.containsKey("regexValues")) {
        out.add(new RuleCondition.Regex(c.getString("field"), c.getString("name"), strings(c.getJsonArray("regexValues"))));
        continue;
      }
      switch (c.getString("field")) {
        case "path-pattern" -> out.add(new RuleCondition.PathPattern(strings(v)));
        case "host-header" -> out.add(new RuleCondition.HostHeader(strings(v)));
        case "http-header" -> out.add(new RuleCondition.HttpHeader(c.getString("name"), strings(v)));
        case "http-request-method" -> out.add(new RuleCondition.HttpRequestMethod(strings(v)));
        case "query-string" -> {
          List<RuleCondition.KeyValue> kvs = new ArrayList<>();
          for (int k = 0; k < v.size(); k++) {
            kvs.add(new RuleCondition.KeyValue(v.getJsonObject(k).getString("key"), v.getJsonObject(k).getString("value")));
          }
          out.add(new RuleCondition.QueryString(kvs));
        }
        case "source-ip" -> out.add(new RuleCondition.SourceIp(strings(v).stream().map(Cidr::parse).toList()));
        default -> throw new IllegalArgumentException("unknown condition field " + c.getString("field"));
      }
    }
    return out;
  }

  private static List<Action> actions(JsonArray a) {
    List<Action> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      JsonObject o = a.getJsonObject(i);
      switch (o.getString("type")) {
        case "forward" -> {
          List<Action.WeightedTargetGroup> groups = new ArrayList<>();
          JsonArray g = o.getJsonArray("targetGroups", new JsonArray());
          for (int k = 0; k < g.size(); k++) {
            JsonObject w = g.getJsonObject(k);
            groups.add(new Action.WeightedTargetGroup(w.getString("arn"), w.getString("name"), w.getInteger("weight", 1)));
          }
          out.add(new Action.Forward(groups, o.getBoolean("stickinessEnabled", false),
              o.getInteger("stickinessDurationSeconds", 0)));
        }
        case "fixed-response" -> out.add(new Action.FixedResponse(o.getInteger("statusCode"), o.getString("contentType"),
            o.getString("messageBody", "")));
        case "redirect" -> out.add(new Action.Redirect(o.getString("protocol"), o.getString("port"), o.getString("host"),
            o.getString("path"), o.getString("query"), o.getInteger("statusCode")));
        case JwtValidation.TYPE -> {
          List<JwtValidation.Claim> claims = new ArrayList<>();
          JsonArray c = o.getJsonArray("additionalClaims", new JsonArray());
          for (int k = 0; k < c.size(); k++) {
            JsonObject claim = c.getJsonObject(k);
            claims.add(new JwtValidation.Claim(claim.getString("name"),
                WireEnum.parse(JwtValidation.ClaimFormat.class, claim.getString("format")).orElseThrow(),
                strings(claim.getJsonArray("values"))));
          }
          out.add(new JwtValidation(o.getString("jwksEndpoint"), o.getString("issuer"), claims));
        }
        case AuthenticateOidc.TYPE -> {
          Map<String, String> extra = new LinkedHashMap<>();
          o.getJsonObject("extraParams", new JsonObject()).forEach(e -> extra.put(e.getKey(), (String) e.getValue()));
          out.add(new AuthenticateOidc(o.getString("issuer"), o.getString("authorizationEndpoint"),
              o.getString("tokenEndpoint"), o.getString("userInfoEndpoint"), o.getString("clientId"),
              o.getString("clientSecret"), o.getString("sessionCookieName"), o.getString("scope"),
              o.getLong("sessionTimeoutSeconds"), extra, WireEnum.parse(AuthenticateOidc.OnUnauthenticated.class,
                  o.getString("onUnauthenticatedRequest")).orElseThrow()));
        }
        default -> throw new IllegalArgumentException("unknown action type " + o.getString("type"));
      }
    }
    return out;
  }

  private static List<Integer> integers(JsonArray a) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < a.size(); i++) {
      out.add(a.getInteger(i));
    }
    return out;
  }

  private static List<String> strings(JsonArray a) {
    List<String> out = new ArrayList<>();
    a.forEach(v -> out.add(String.valueOf(v)));
    return out;
  }
}
