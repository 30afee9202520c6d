package io.fulcrum.admin;

import io.fulcrum.api.ApiContext;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.ElbError;
import io.fulcrum.listener.RequestFactsOf;
import io.fulcrum.model.Action;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.IpAddresses;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Rule;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.registry.ResourcesJson;
import io.fulcrum.routing.RequestFacts;
import io.fulcrum.routing.RouteTable;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.NoSuchElementException;

/**
 * "Explain this request" (DESIGN §7): which rule of a listener a described request would match
 * and why (each condition of each rule tried, in priority order), the action it would take, and,
 * for a forward, each target group as the node of the request's zone routes by it now: healthy
 * targets, failover, and the targets that would take the request. The rules are the listeners'
 * own compiled rules, run on the request as a listener reads it; nothing is sent anywhere.
 */
public final class Explainer {

  private final ApiContext ctx;

  public Explainer(ApiContext ctx) {
    this.ctx = ctx;
  }

  /**
   * The request to explain.
   *
   * @param port         the listener's port
   * @param loadBalancer the load balancer's name; null when only one listens on the port
   * @param zone         the zone of the node the request arrives on; null for the load balancer's first
   * @param method       the method
   * @param uri          the request target ({@code /path?query}, absolute-form {@code http://host/path}, or
   *                     {@code *})
   * @param headers      its headers, Host among them
   * @param source       the client's IP address
   */
  public record Request(int port, String loadBalancer, String zone, String method, String uri, MultiMap headers,
      String source) {

    /**
     * The request {@code /ui/explain}'s parameters describe: {@code port} (required),
     * {@code loadBalancer}, {@code zone}, {@code method} (GET), {@code path} (/), {@code host},
     * {@code header} ({@code Name: value}, repeatable), {@code source} (127.0.0.1).
     *
     * @throws IllegalArgumentException naming the parameter that does not parse
     */
    public static Request fromQuery(MultiMap params) {
      int p = port(params.get("port"));
      String method = oneLine("method", params.get("method") == null ? "GET" : params.get("method"));
      String path = oneLine("path", params.get("path") == null ? "/" : params.get("path"));
      if (!path.startsWith("/") && !RequestFactsOf.absoluteForm(path) && !path.equals("*")) {
        // Absolute form is what a client sends to a proxy; the listener routes it by the URI's host and
        // path. The asterisk is OPTIONS's (the listener refuses it with any other method).
        throw new IllegalArgumentException("path: '" + path + "' is not /path, absolute-form (http://host/path) or *");
      }
      MultiMap headers = HttpHeaders.headers();
      if (params.get("host") != null) {
        headers.add("Host", params.get("host"));
      }
      for (String h : params.getAll("header")) {
        int colon = h.indexOf(':');
        if (colon <= 0) {
          throw new IllegalArgumentException("header: '" + h + "' is not 'Name: value'");
        }
        headers.add(h.substring(0, colon).trim(), h.substring(colon + 1).trim());
      }
      String source = params.get("source") == null ? "127.0.0.1" : params.get("source");
      if (IpAddresses.parse(source) == null) {
        throw new IllegalArgumentException("source: '" + source + "' is not an IP address");
      }
      return new Request(p, params.get("loadBalancer"), params.get("zone"), method, path, headers, source);
    }

    /** A listener's port: 1 to 65535, as a listener's port can be; anything else does not parse. */
    private static int port(String port) {
      try {
        int p = Integer.parseInt(port == null ? "" : port);
        if (p >= 1 && p <= 65535) {
          return p;
        }
      } catch (NumberFormatException e) {
        // said below
      }
      throw new IllegalArgumentException("port: the listener's port (1 to 65535) is required (got " + port + ")");
    }

    /**
     * A part of the request line; CR or LF in it would end the line, and the rest would be another
     * request than the one explained.
     */
    private static String oneLine(String name, String value) {
      if (value.indexOf('\r') >= 0 || value.indexOf('\n') >= 0) {
        throw new IllegalArgumentException(name + ": a request line cannot hold CR or LF");
      }
      return value;
    }
  }

  /**
   * The explanation; fails with {@link NoSuchElementException} when no load balancer listens on
   * the port (or none of that name), {@link IllegalArgumentException} for a request that names
   * no single listener or a zone the load balancer is not in.
   */
  public Future<JsonObject> explain(Request r) {
    List<LoadBalancer> candidates = new ArrayList<>();
    for (LoadBalancer lb : ctx.resources().loadBalancers()) {
      boolean named = r.loadBalancer() == null || lb.name().equals(r.loadBalancer());
      if (named && lb.listeners().stream().anyMatch(l -> l.port() == r.port())) {
        candidates.add(lb);
      }
    }
    if (candidates.isEmpty()) {
      return Future.failedFuture(new NoSuchElementException("no load balancer" + (r.loadBalancer() == null ? ""
          : " named '" + r.loadBalancer() + "'") + " listens on port " + r.port()));
    }
    if (candidates.size() > 1) {
      return Future.failedFuture(new IllegalArgumentException("several load balancers listen on port " + r.port()
          + " (" + String.join(", ", candidates.stream().map(LoadBalancer::name).toList())
          + "): name one with loadBalancer="));
    }
    LoadBalancer lb = candidates.get(0);
    String zone = r.zone() == null ? lb.zones().get(0) : r.zone();
    if (!lb.zones().contains(zone)) {
      return Future.failedFuture(new IllegalArgumentException("load balancer " + lb.name() + " is not in zone '" + zone
          + "' (its zones: " + String.join(", ", lb.zones()) + ")"));
    }
    Listener listener = lb.listeners().stream().filter(l -> l.port() == r.port()).findFirst().orElseThrow();
    return ctx.registry().snapshot().map(snapshot -> explain(r, lb, listener, zone, snapshot));
  }

  private JsonObject explain(Request r, LoadBalancer lb, Listener listener, String zone, DataPlaneSnapshot snapshot) {
    ListenerPlan plan = snapshot.listeners().stream().filter(p -> p.arn().equals(listener.arn())).findFirst()
        .orElseThrow(() -> new IllegalStateException("listener " + listener.arn() + " is not applied yet"));
    ElbError refused = listener.protocol().isHttpFamily() ? RequestFactsOf.refusal(r.method(), r.uri()) : null;
    if (refused != null) {
      return refused(r, lb, listener, zone, refused);
    }
    RequestFacts facts = RequestFactsOf.http1(r.method(), r.uri(), r.headers(),
        SocketAddress.inetSocketAddress(0, r.source()));
    List<RouteTable.RuleVerdict> verdicts = plan.routes().explain(facts);
    JsonArray rules = new JsonArray();
    List<Action> actions = listener.defaultActions();
    String decidedBy = "default";
    for (RouteTable.RuleVerdict v : verdicts) {
      Rule rule = listener.rules().get(v.index());
      JsonArray conditions = ResourcesJson.conditions(rule.conditions());
      for (int i = 0; i < conditions.size(); i++) {
        conditions.getJsonObject(i).put("matched", v.conditions().get(i));
      }
      JsonObject verdict = new JsonObject().put("priority", rule.priority()).put("conditions", conditions)
          .put("matched", v.matched());
      if (!rule.transforms().isEmpty()) {
        verdict.put("transforms", ResourcesJson.transforms(rule.transforms()));
      }
      rules.add(verdict);
      if (v.matched()) {
        actions = rule.actions();
        decidedBy = Integer.toString(rule.priority());
      }
    }
    // The routing action is the last; a check before it (jwt-validation, authenticate-oidc) is what the
    // request must pass first. ResourcesJson.actions leaves out the client secret.
    JsonArray all = ResourcesJson.actions(actions);
    JsonObject action = all.getJsonObject(all.size() - 1);
    if (actions.get(0) instanceof JwtValidation) {
      action.put("jwtValidation", all.getJsonObject(0));
    } else if (actions.get(0) instanceof AuthenticateOidc) {
      action.put("authenticateOidc", all.getJsonObject(0));
    }
    if (actions.get(actions.size() - 1) instanceof Action.Forward forward) {
      JsonArray groups = action.getJsonArray("targetGroups");
      for (int i = 0; i < groups.size(); i++) {
        JsonObject g = groups.getJsonObject(i);
        String arn = forward.targetGroups().get(i).arn();
        TargetGroup group = ctx.resources().targetGroup(arn).orElse(null);
        TargetGroupPlan groupPlan = snapshot.groups().get(arn);
        if (group != null) {
          g.put("algorithm", Dashboard.algorithm(group)).put("stickiness", group.attributes().stickinessEnabled()
              ? group.attributes().stickinessType() : "off");
        }
        g.put("inZone", Dashboard.outlook(groupPlan == null ? null : groupPlan.scope(zone)));
      }
    }
    return where(lb, listener, zone)
        .put("request", request(r).put("rulePath", facts.rulePath()).put("ruleHost", facts.host()))
        .put("rules", rules)
        .put("decidedBy", decidedBy)
        .put("action", action);
  }

  /**
   * A request the listener answers itself, its request line being one it does not serve (a method
   * that is no token, TRACE, a space in the target, ...): no rule is evaluated, no action taken.
   */
  private static JsonObject refused(Request r, LoadBalancer lb, Listener listener, String zone, ElbError answer) {
    return where(lb, listener, zone)
        .put("request", request(r))
        .put("rules", new JsonArray())
        .put("decidedBy", "listener")
        .put("refused", new JsonObject().put("statusCode", answer.status()).put("reason", answer.reason()));
  }

  private static JsonObject where(LoadBalancer lb, Listener listener, String zone) {
    return new JsonObject()
        .put("loadBalancer", lb.name())
        .put("listener", new JsonObject().put("arn", listener.arn()).put("protocol", listener.protocol().wire())
            .put("port", listener.port()))
        .put("zone", zone);
  }

  private static JsonObject request(Request r) {
    return new JsonObject().put("method", r.method()).put("uri", r.uri()).put("headers", headers(r.headers()))
        .put("source", r.source());
  }

  private static JsonArray headers(MultiMap headers) {
    JsonArray out = new JsonArray();
    headers.forEach(h -> out.add(h.getKey() + ": " + h.getValue()));
    return out;
  }
}
