package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.Environment;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Node;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleTransform;
import io.fulcrum.model.RuleCondition;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;

/** The XML shapes of load balancers, listeners, rules, actions and conditions, as ELBv2 answers them. */
final class LoadBalancerXml {

  /** Route 53 would need a real hosted zone; Fulcrum's DNS responder answers for every load balancer. */
  static final String CANONICAL_HOSTED_ZONE_ID = "Z0FULCRUMELB000";
  static final String SUBNET_PREFIX = "subnet-";

  private LoadBalancerXml() {
  }

  static Xml loadBalancer(LoadBalancer lb, Environment env) {
    Xml m = Xml.el("member")
        .add("LoadBalancerArn", lb.arn())
        .add("DNSName", lb.dnsName())
        .add("CanonicalHostedZoneId", CANONICAL_HOSTED_ZONE_ID)
        .add("CreatedTime", lb.createdTime() == null ? null
            : DateTimeFormatter.ISO_INSTANT.format(lb.createdTime().truncatedTo(ChronoUnit.MILLIS)))
        .add("LoadBalancerName", lb.name())
        .add("Scheme", lb.scheme().wire())
        .add("VpcId", Environment.VPC_ID)
        .add(Xml.el("State").add("Code", "active"))
        .add("Type", lb.type().wire());
    m.add(availabilityZones(lb, env));
    m.add(Xml.strings("SecurityGroups", lb.securityGroups()));
    m.add("IpAddressType", lb.ipAddressType().wire());
    return m;
  }

  /** {@code <AvailabilityZones>}: each enabled zone, its subnet id and its nodes' addresses. */
  static Xml availabilityZones(LoadBalancer lb, Environment env) {
    Xml zones = Xml.el("AvailabilityZones");
    for (String zone : lb.zones()) {
      List<String> addresses = env.nodes().stream().filter(n -> n.zone().equals(zone)).map(Node::address).toList();
      zones.add(Xml.el("member")
          .add("ZoneName", zone)
          .add("SubnetId", SUBNET_PREFIX + zone)
          .add(Xml.list("LoadBalancerAddresses", addresses, a -> Xml.el("member").add("IpAddress", a))));
    }
    return zones;
  }

  static Xml listener(LoadBalancer lb, Listener l) {
    return Xml.el("member")
        .add("ListenerArn", l.arn())
        .add("LoadBalancerArn", lb.arn())
        .add("Port", l.port())
        .add("Protocol", l.protocol().wire())
        .add(certificates(l))
        .add("SslPolicy", l.sslPolicy())
        .add(actions("DefaultActions", l.defaultActions()))
        .add(l.alpnPolicy() == null ? null : Xml.strings("AlpnPolicy", List.of(l.alpnPolicy().wire())))
        .add(mutualAuthentication(l));
  }

  /** An HTTPS listener's mutual TLS (its mode alone when off, as ELBv2 answers), or nothing. */
  private static Xml mutualAuthentication(Listener l) {
    if (l.protocol() != Protocol.HTTPS) {
      return null;
    }
    MutualAuthentication m = l.mutualAuthentication();
    Xml x = Xml.el("MutualAuthentication").add("Mode", m.mode().wire());
    if (m.mode() == MutualAuthentication.Mode.VERIFY) {
      x.add("TrustStoreArn", m.trustStore().arn())
          .add("IgnoreClientCertificateExpiry", m.ignoreClientCertificateExpiry())
          .add("TrustStoreAssociationStatus", "active")
          .add("AdvertiseTrustStoreCaNames", m.advertiseWire());
    }
    return x;
  }

  /** The default certificate of an HTTPS listener (AWS lists only that one here), or nothing. */
  private static Xml certificates(Listener l) {
    return l.certificates().isEmpty() ? null
        : Xml.list("Certificates", l.certificates().subList(0, 1), c -> Xml.el("member").add("CertificateArn", c.arn()));
  }

  static Xml rule(Rule r) {
    return Xml.el("member")
        .add("RuleArn", r.arn())
        .add("Priority", r.priority())
        .add(Xml.list("Conditions", r.conditions(), LoadBalancerXml::condition))
        .add(actions("Actions", r.actions()))
        .add("IsDefault", false)
        .add(r.transforms().isEmpty() ? null : Xml.list("Transforms", r.transforms(), LoadBalancerXml::transform));
  }

  private static Xml transform(RuleTransform t) {
    String config = t.type() == RuleTransform.Type.URL_REWRITE ? "UrlRewriteConfig" : "HostHeaderRewriteConfig";
    return Xml.el("member")
        .add("Type", t.type().wire())
        .add(Xml.el(config).add(Xml.list("Rewrites", List.of(t),
            r -> Xml.el("member").add("Regex", r.regex()).add("Replace", r.replace()))));
  }

  /** A listener's default rule: priority {@code default}, no conditions, the default actions. */
  static Xml defaultRule(String arn, Listener l) {
    return Xml.el("member")
        .add("RuleArn", arn)
        .add("Priority", "default")
        .add(Xml.el("Conditions"))
        .add(actions("Actions", l.defaultActions()))
        .add("IsDefault", true);
  }

  static Xml actions(String name, List<Action> actions) {
    Xml list = Xml.el(name);
    for (int i = 0; i < actions.size(); i++) {
      list.add(action(actions.get(i), actions.size() > 1 ? i + 1 : null));
    }
    return list;
  }

  private static Xml action(Action a, Integer order) {
    Xml m = Xml.el("member").add("Type", a.type());
    if (a instanceof Action.Forward f) {
      if (f.targetGroups().size() == 1) {
        m.add("TargetGroupArn", f.targetGroups().get(0).arn());
      }
      Xml stickiness = Xml.el("TargetGroupStickinessConfig").add("Enabled", f.stickinessEnabled());
      if (f.stickinessEnabled()) {
        stickiness.add("DurationSeconds", f.stickinessDurationSeconds());
      }
      m.add(Xml.el("ForwardConfig")
          .add(Xml.list("TargetGroups", f.targetGroups(), w -> Xml.el("member")
              .add("TargetGroupArn", w.arn())
              .add("Weight", w.weight())))
          .add(stickiness));
    } else if (a instanceof Action.FixedResponse f) {
      m.add(Xml.el("FixedResponseConfig")
          .add("MessageBody", f.messageBody().isEmpty() ? null : f.messageBody())
          .add("StatusCode", f.statusCode())
          .add("ContentType", f.contentType()));
    } else if (a instanceof Action.Redirect r) {
      m.add(Xml.el("RedirectConfig")
          .add("Protocol", r.protocol())
          .add("Port", r.port())
          .add("Host", r.host())
          .add("Path", r.path())
          .add("Query", r.query())
          .add("StatusCode", "HTTP_" + r.statusCode()));
    } else if (a instanceof JwtValidation j) {
      m.add(Xml.el("JwtValidationConfig")
          .add("JwksEndpoint", j.jwksEndpoint())
          .add("Issuer", j.issuer())
          .add(j.additionalClaims().isEmpty() ? null : Xml.list("AdditionalClaims", j.additionalClaims(),
              c -> Xml.el("member")
                  .add("Format", c.format().wire())
                  .add("Name", c.name())
                  .add(Xml.strings("Values", c.values())))));
    } else if (a instanceof AuthenticateOidc o) {
      // Never the client secret: ALB describes every field but that one.
      m.add(Xml.el("AuthenticateOidcConfig")
          .add("Issuer", o.issuer())
          .add("AuthorizationEndpoint", o.authorizationEndpoint())
          .add("TokenEndpoint", o.tokenEndpoint())
          .add("UserInfoEndpoint", o.userInfoEndpoint())
          .add("ClientId", o.clientId())
          .add("SessionCookieName", o.sessionCookieName())
          .add("Scope", o.scope())
          .add("SessionTimeout", o.sessionTimeoutSeconds())
          .add(o.extraParams().isEmpty() ? null : Xml.map("AuthenticationRequestExtraParams", o.extraParams()))
          .add("OnUnauthenticatedRequest", o.onUnauthenticated().wire()));
    }
    return m.add("Order", order);
  }

  private static Xml condition(RuleCondition c) {
    Xml m = Xml.el("member").add("Field", c.field());
    String config = ConditionsParser.CONFIGS.get(c.field());
    if (c instanceof RuleCondition.PathPattern p) {
      m.add(Xml.strings("Values", p.values())).add(Xml.el(config).add(Xml.strings("Values", p.values())));
    } else if (c instanceof RuleCondition.HostHeader h) {
      m.add(Xml.strings("Values", h.values())).add(Xml.el(config).add(Xml.strings("Values", h.values())));
    } else if (c instanceof RuleCondition.HttpHeader h) {
      m.add(Xml.el(config).add("HttpHeaderName", h.name()).add(Xml.strings("Values", h.values())));
    } else if (c instanceof RuleCondition.Regex r) {
      Xml typed = Xml.el(config).add("HttpHeaderName", r.headerName()).add(Xml.strings("RegexValues", r.values()));
      m.add(r.headerName() == null ? Xml.strings("RegexValues", r.values()) : null).add(typed);
    } else if (c instanceof RuleCondition.HttpRequestMethod r) {
      m.add(Xml.el(config).add(Xml.strings("Values", r.values())));
    } else if (c instanceof RuleCondition.QueryString q) {
      m.add(Xml.el(config).add(Xml.list("Values", q.values(), kv -> Xml.el("member")
          .add("Key", kv.key())
          .add("Value", kv.value()))));
    } else if (c instanceof RuleCondition.SourceIp s) {
      m.add(Xml.el(config).add(Xml.strings("Values", s.values().stream().map(Object::toString).toList())));
    }
    return m;
  }

  /** {@code <Attributes>} with every key and value. */
  static Xml attributes(Map<String, String> attributes) {
    return Xml.list("Attributes", attributes.entrySet(), e -> Xml.el("member")
        .add("Key", e.getKey())
        .add("Value", e.getValue()));
  }
}
