package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.AlpnPolicy;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Certificate;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Resources;
import io.fulcrum.model.SecurityPolicy;
import io.fulcrum.model.TrustStore;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Listener operations: CreateListener, DescribeListeners, ModifyListener, DeleteListener. A listener
 * created or changed here serves on the node address of every zone of its load balancer before the
 * response is sent (see {@link ApiContext#mutate}); a deleted one stops accepting connections and
 * lets its requests in flight finish.
 */
final class ListenerOperations {

  private ListenerOperations() {
  }

  static void register(ElbApi api) {
    api.register("CreateListener", ListenerOperations::create)
        .register("DescribeListeners", ListenerOperations::describe)
        .register("ModifyListener", ListenerOperations::modify)
        .register("DeleteListener", ListenerOperations::delete);
  }

  /**
   * What an HTTPS listener adds: its default certificate, security policy, ALPN policy and mutual
   * authentication, as given (null or empty where not given).
   */
  record ListenerTls(List<String> certificateArns, String sslPolicy, List<String> alpnPolicy,
      QueryParams mutualAuthentication) {

    static ListenerTls parse(QueryParams p) {
      List<String> certificates = new ArrayList<>();
      List<QueryParams> given = p.structs("Certificates");
      for (int i = 0; i < given.size(); i++) {
        String arn = given.get(i).string("CertificateArn");
        if (arn == null || arn.isEmpty()) {
          throw ApiError.validation("Certificates.member." + (i + 1) + ": a CertificateArn is required");
        }
        certificates.add(arn);
      }
      if (certificates.size() > 1) {
        throw ApiError.validation("A listener takes one default certificate here; add more with"
            + " AddListenerCertificates");
      }
      return new ListenerTls(certificates, p.string("SslPolicy"), p.strings("AlpnPolicy"),
          p.hasAny("MutualAuthentication") ? p.struct("MutualAuthentication") : null);
    }

    /**
     * The listener as this request leaves it: protocol, certificates and policy checked against
     * each other (inside a change: the protocol and the certificates may come from {@code old}).
     */
    Listener apply(Listener old, Protocol protocol, ApiContext ctx) {
      if (!protocol.served()) {
        throw LbResources.refusal("UnsupportedProtocol", "Protocol '" + protocol.wire()
            + "' is not supported by Fulcrum (expected: " + Protocol.SERVED + ")");
      }
      if (!alpnPolicy.isEmpty() && protocol != Protocol.TLS) {
        throw LbResources.refusal("ALPNPolicyNotFound", "ALPN policies apply only to TLS listeners of network"
            + " load balancers");
      }
      AlpnPolicy alpn = namedAlpnPolicy();
      if (mutualAuthentication != null && protocol != Protocol.HTTPS) {
        throw LbResources.refusal("ValidationError", "Mutual authentication applies only to HTTPS listeners");
      }
      if (!protocol.isTls()) {
        if (!certificateArns.isEmpty()) {
          throw LbResources.refusal("ValidationError", "A certificate cannot be specified for " + protocol.wire()
              + " listeners");
        }
        if (sslPolicy != null) {
          throw LbResources.refusal("ValidationError", "An SSL policy cannot be specified for " + protocol.wire()
              + " listeners");
        }
        return new Listener(old.arn(), protocol, old.port(), old.defaultActions(), old.rules(), List.of(), null,
            protocol == Protocol.HTTP && old.h2c(), old.attributes(), null, null);
      }
      boolean wasHttps = old.protocol().isTls();
      List<Certificate> certificates = new ArrayList<>(wasHttps ? old.certificates() : List.of());
      if (!certificateArns.isEmpty()) {
        Certificate chosen = certificate(ctx, certificateArns.get(0));
        certificates.removeIf(c -> c.arn().equals(chosen.arn()));
        if (certificates.isEmpty()) {
          certificates.add(chosen);
        } else {
          certificates.set(0, chosen);
        }
      }
      if (certificates.isEmpty()) {
        throw LbResources.refusal("ValidationError", "A certificate must be specified for " + protocol.wire()
            + " listeners");
      }
      String policy = sslPolicy != null ? sslPolicy : wasHttps && old.sslPolicy() != null ? old.sslPolicy()
          : Listener.DEFAULT_SSL_POLICY;
      if (SecurityPolicy.named(policy) == null) {
        throw LbResources.refusal("SSLPolicyNotFound", "The SSL policy '" + policy + "' was not found (expected one of: "
            + String.join(", ", SecurityPolicy.names()) + ")");
      }
      // Not given: a TLS listener keeps its policy; an HTTPS listener has none.
      AlpnPolicy kept = alpn != null ? alpn : protocol == Protocol.TLS && old.protocol() == Protocol.TLS
          ? old.alpnPolicy() : null;
      // Not given: an HTTPS listener keeps its mutual TLS.
      MutualAuthentication mtls = mutualAuthentication != null ? mutualAuthentication(ctx)
          : old.protocol() == Protocol.HTTPS ? old.mutualAuthentication() : null;
      return new Listener(old.arn(), protocol, old.port(), old.defaultActions(), old.rules(), certificates, policy,
          false, old.attributes(), kept, mtls);
    }

    /** The mutual TLS given: a mode, and in verify mode a trust store this deployment knows by ARN. */
    private MutualAuthentication mutualAuthentication(ApiContext ctx) {
      QueryParams m = mutualAuthentication;
      String modeName = m.string("Mode");
      if (modeName == null) {
        throw LbResources.refusal("ValidationError",
            "MutualAuthentication.Mode is required (off, passthrough or verify)");
      }
      MutualAuthentication.Mode mode = MutualAuthentication.Mode.named(modeName);
      if (mode == null) {
        throw LbResources.refusal("ValidationError", MutualAuthentication.Mode.unknown(modeName));
      }
      String storeArn = m.string("TrustStoreArn");
      Boolean ignoreExpiry = m.bool("IgnoreClientCertificateExpiry");
      String advertise = m.string("AdvertiseTrustStoreCaNames");
      String problem = MutualAuthentication.problem(mode, storeArn != null, ignoreExpiry, advertise);
      if (problem != null) {
        throw LbResources.refusal("ValidationError", "MutualAuthentication: " + problem);
      }
      TrustStore store = storeArn == null ? null : TrustStoreOperations.trustStore(ctx, storeArn);
      return new MutualAuthentication(mode, store, Boolean.TRUE.equals(ignoreExpiry), "on".equals(advertise));
    }

    /** The ALPN policy given (one name, as AWS spells it), or null when none was. */
    private AlpnPolicy namedAlpnPolicy() {
      if (alpnPolicy.isEmpty()) {
        return null;
      }
      AlpnPolicy named = alpnPolicy.size() == 1 ? AlpnPolicy.named(alpnPolicy.get(0)) : null;
      if (named == null) {
        throw LbResources.refusal("ALPNPolicyNotFound", "The ALPN policy '" + String.join(",", alpnPolicy)
            + "' was not found (expected one of: " + String.join(", ", AlpnPolicy.names()) + ")");
      }
      return named;
    }
  }

  /** A certificate this deployment knows by ARN (the self-signed one or one from the config file). */
  static Certificate certificate(ApiContext ctx, String arn) {
    return ctx.certificates().stream().filter(c -> c.arn().equals(arn)).findFirst()
        .orElseThrow(() -> LbResources.refusal("CertificateNotFound", "Certificate '" + arn + "' not found (this"
            + " deployment has the self-signed certificate and those listed under certificates in its config file)"));
  }

  private static Protocol protocol(QueryParams p) {
    return LoadBalancerOperations.wireEnum(p, "Protocol", Protocol.class, null);
  }

  private static Integer port(QueryParams p) {
    Integer port = p.integer("Port");
    if (port != null && (port < 1 || port > 65535)) {
      throw ApiError.constraint(port, "port", port < 1 ? "have value greater than or equal to 1"
          : "have value less than or equal to 65535");
    }
    return port;
  }

  /** Creating a listener that exists on the same port with the same settings answers with it again. */
  static Future<List<Xml>> create(QueryParams p, ApiContext ctx) {
    String lbArn = p.required("LoadBalancerArn");
    Protocol protocol = protocol(p);
    if (protocol == null) {
      throw ApiError.validation("A listener protocol must be specified (expected: " + Protocol.SERVED + ")");
    }
    Integer port = port(p);
    if (port == null) {
      throw ApiError.validation("A listener port must be specified");
    }
    ListenerTls tls = ListenerTls.parse(p);
    List<Action> actions = ActionsParser.parse(p, "DefaultActions");
    Map<String, String> tags = ResourceTagList.parse(p, "Tags");
    AtomicReference<String> created = new AtomicReference<>();
    return ctx.mutate(r -> {
      LoadBalancer lb = LbResources.loadBalancer(r, lbArn);
      List<Action> resolved = LbResources.resolve(r, actions);
      String arn = ctx.environment().arns().listener(lb.type(), lb.name(), Arns.idOf(lb.arn()), LbResources.newId(r));
      Listener listener = tls.apply(new Listener(arn, Protocol.HTTP, port, resolved, List.of()), protocol, ctx);
      for (Listener l : lb.listeners()) {
        if (l.port() == port) {
          if (l.protocol() == protocol && l.defaultActions().equals(resolved)
              && l.certificates().equals(listener.certificates()) && Objects.equals(l.sslPolicy(), listener.sslPolicy())
              && l.alpnPolicy() == listener.alpnPolicy()
              && l.mutualAuthentication().equals(listener.mutualAuthentication())) {
            created.set(l.arn());
            return r;
          }
          throw LbResources.refusal("DuplicateListener", "A listener already exists on port " + port
              + " of load balancer '" + lb.name() + "'");
        }
      }
      List<Listener> listeners = new ArrayList<>(lb.listeners());
      listeners.add(listener);
      created.set(arn);
      return LbResources.withTags(LbResources.replace(r, lb.withListeners(listeners)), arn, tags);
    }).map(r -> answer(r, created.get()));
  }

  private static List<Xml> answer(Resources r, String listenerArn) {
    LbResources.ListenerRef ref = LbResources.listener(r, listenerArn);
    return List.of(Xml.list("Listeners", List.of(ref), l -> LoadBalancerXml.listener(l.lb(), l.listener())));
  }

  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    String lbArn = p.string("LoadBalancerArn");
    List<String> arns = p.strings("ListenerArns");
    if (lbArn != null && !arns.isEmpty()) {
      throw ApiError.validation("Listener ARNs and a load balancer ARN cannot be specified at the same time");
    }
    if (lbArn == null && arns.isEmpty()) {
      throw ApiError.validation("You must specify either listener ARNs or a load balancer ARN");
    }
    Resources r = ctx.resources();
    List<LbResources.ListenerRef> selected = new ArrayList<>();
    if (lbArn != null) {
      LoadBalancer lb = LbResources.loadBalancer(r, lbArn);
      lb.listeners().forEach(l -> selected.add(new LbResources.ListenerRef(lb, l)));
    } else {
      new LinkedHashSet<>(arns).forEach(arn -> selected.add(LbResources.listener(r, arn)));
    }
    MarkerPaging.Page<LbResources.ListenerRef> page = MarkerPaging.page(selected, p);
    return Future.succeededFuture(List.of(
        Xml.list("Listeners", page.items(), l -> LoadBalancerXml.listener(l.lb(), l.listener())),
        Xml.text("NextMarker", page.nextMarker())));
  }

  /** Changes the port, protocol or default actions given; the rest stays. The listener keeps its ARN. */
  static Future<List<Xml>> modify(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    Protocol protocol = protocol(p);
    Integer port = port(p);
    ListenerTls tls = ListenerTls.parse(p);
    List<Action> actions = p.hasAny("DefaultActions") ? ActionsParser.parseChange(p, "DefaultActions") : null;
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      Listener old = ref.listener();
      Protocol nextProtocol = protocol == null ? old.protocol() : protocol;
      int nextPort = port == null ? old.port() : port;
      for (Listener other : ref.lb().listeners()) {
        if (other != old && other.port() == nextPort) {
          throw LbResources.refusal("DuplicateListener", "A listener already exists on port " + nextPort
              + " of load balancer '" + ref.lb().name() + "'");
        }
      }
      List<Action> nextActions = actions == null ? old.defaultActions()
          : LbResources.resolve(r, ActionsParser.keepingSecret(actions, old.defaultActions(), "DefaultActions"));
      Listener moved = new Listener(old.arn(), old.protocol(), nextPort, nextActions, old.rules(), old.certificates(),
          old.sslPolicy(), old.h2c(), old.attributes(), old.alpnPolicy(), old.mutualAuthentication());
      Listener next = tls.apply(moved, nextProtocol, ctx);
      return next.equals(old) ? r : LbResources.replace(r, ref.lb(), next);
    }).map(r -> answer(r, arn));
  }

  /** Removes the listener and its rules; it stops accepting connections, and requests in flight finish. */
  static Future<List<Xml>> delete(QueryParams p, ApiContext ctx) {
    String arn = p.required("ListenerArn");
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      List<Listener> listeners = new ArrayList<>(ref.lb().listeners());
      listeners.remove(ref.listener());
      return LbResources.withoutTags(LbResources.replace(r, ref.lb().withListeners(listeners)),
          LbResources.arnsOf(ref.listener()));
    }).map(r -> List.of());
  }
}
