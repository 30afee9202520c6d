package io.fulcrum.api;

import io.fulcrum.model.Action;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Resources;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
   * What an HTTPS (or TLS) listener adds: its certificates, security policy, ALPN policy and mutual
   * authentication. Read now so that HTTP listeners refuse them clearly; HTTPS listeners are not
   * available yet.
   */
  record ListenerTls(List<String> certificateArns, String sslPolicy, List<String> alpnPolicy,
      boolean mutualAuthentication) {

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
      return new ListenerTls(certificates, p.string("SslPolicy"), p.strings("AlpnPolicy"),
          p.hasAny("MutualAuthentication"));
    }

    /** Refuses what the protocol does not take (inside a change: the protocol may come from the listener). */
    void check(Protocol protocol) {
      if (!protocol.isHttpFamily()) {
        throw LbResources.refusal("UnsupportedProtocol", "Protocol '" + protocol.wire()
            + "' is not supported by application load balancers (expected: HTTP or HTTPS)");
      }
      if (protocol == Protocol.HTTP) {
        if (!certificateArns.isEmpty()) {
          throw LbResources.refusal("ValidationError", "A certificate cannot be specified for HTTP listeners");
        }
        if (sslPolicy != null) {
          throw LbResources.refusal("ValidationError", "An SSL policy cannot be specified for HTTP listeners");
        }
        if (mutualAuthentication) {
          throw LbResources.refusal("ValidationError", "Mutual authentication cannot be specified for HTTP listeners");
        }
      } else if (certificateArns.isEmpty()) {
        throw LbResources.refusal("ValidationError", "A certificate must be specified for HTTPS listeners");
      } else {
        throw LbResources.refusal("UnsupportedProtocol", "HTTPS listeners are not available yet in Fulcrum"
            + " (expected: HTTP)");
      }
      if (!alpnPolicy.isEmpty()) {
        throw LbResources.refusal("ALPNPolicyNotFound", "ALPN policies apply only to TLS listeners of network"
            + " load balancers");
      }
    }
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
      throw ApiError.validation("A listener protocol must be specified (expected: HTTP)");
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
      tls.check(protocol);
      List<Action> resolved = LbResources.resolve(r, actions);
      for (Listener l : lb.listeners()) {
        if (l.port() == port) {
          if (l.protocol() == protocol && l.defaultActions().equals(resolved)) {
            created.set(l.arn());
            return r;
          }
          throw LbResources.refusal("DuplicateListener", "A listener already exists on port " + port
              + " of load balancer '" + lb.name() + "'");
        }
      }
      String arn = ctx.environment().arns().listener(lb.type(), lb.name(), Arns.idOf(lb.arn()), LbResources.newId(r));
      List<Listener> listeners = new ArrayList<>(lb.listeners());
      listeners.add(new Listener(arn, protocol, port, resolved, List.of()));
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
    List<Action> actions = p.hasAny("DefaultActions") ? ActionsParser.parse(p, "DefaultActions") : null;
    return ctx.mutate(r -> {
      LbResources.ListenerRef ref = LbResources.listener(r, arn);
      Listener old = ref.listener();
      Protocol nextProtocol = protocol == null ? old.protocol() : protocol;
      tls.check(nextProtocol);
      int nextPort = port == null ? old.port() : port;
      for (Listener other : ref.lb().listeners()) {
        if (other != old && other.port() == nextPort) {
          throw LbResources.refusal("DuplicateListener", "A listener already exists on port " + nextPort
              + " of load balancer '" + ref.lb().name() + "'");
        }
      }
      List<Action> nextActions = actions == null ? old.defaultActions() : LbResources.resolve(r, actions);
      Listener next = new Listener(old.arn(), nextProtocol, nextPort, nextActions, old.rules());
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
