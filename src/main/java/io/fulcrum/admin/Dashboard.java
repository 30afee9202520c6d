package io.fulcrum.admin;

import io.fulcrum.api.ApiContext;
import io.fulcrum.api.TargetHealthOperation;
import io.fulcrum.balancer.Scope;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.model.AnomalyDetection;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Resources;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupKind;
import io.fulcrum.model.TargetType;
import io.fulcrum.observe.CounterTotals;
import io.fulcrum.observe.GroupGauges;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.optimizer.TargetControlVerticle;
import io.fulcrum.registry.RegistryVerticle;
import io.vertx.core.Future;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiFunction;
import java.util.function.Supplier;

/**
 * What the live dashboard ({@code GET /ui}) shows, as one JSON document ({@code GET /ui/state}):
 * every load balancer with its listeners and the target groups it forwards to, each group's state
 * per zone as the metrics give it (healthy and unhealthy targets, routing and DNS failover,
 * anomalies), every target as DescribeTargetHealth reports it, and the counters since the process
 * started, from which the page makes rates. Built on request from the registry, the health checker
 * and the listeners' counters; nothing is kept. Beside it: the registry's journal of health, draining
 * and failover decisions ({@code GET /ui/events}, see {@link io.fulcrum.registry.Journal}), what would
 * happen if targets failed ({@code GET /ui/what-if}) and which rule a request would match
 * ({@code GET /ui/explain}, see {@link Explainer}).
 */
public final class Dashboard {

  private final ApiContext ctx;
  private final Supplier<Future<List<GroupGauges>>> gauges;
  private final Supplier<Future<Collection<LoadBalancerMeters>>> counters;
  private final Explainer explainer;
  private final BiFunction<String, String, TargetControlVerticle.AgentState> agents;

  /**
   * @param ctx      the running resources and their health
   * @param gauges   the target groups' state per zone (the registry's)
   * @param counters every listener verticle's counters, added up
   * @param agents   the target optimizer's agent of a target ({@code id:port}) of a group, or null
   */
  public Dashboard(ApiContext ctx, Supplier<Future<List<GroupGauges>>> gauges,
      Supplier<Future<Collection<LoadBalancerMeters>>> counters,
      BiFunction<String, String, TargetControlVerticle.AgentState> agents) {
    this.ctx = ctx;
    this.gauges = gauges;
    this.counters = counters;
    this.explainer = new Explainer(ctx);
    this.agents = agents;
  }

  /** Which rule a described request would match, and where it would go (see {@link Explainer}). */
  public Future<JsonObject> explain(Explainer.Request request) {
    return explainer.explain(request);
  }

  /**
   * The journal's events after the one numbered {@code after} (0: every event kept), oldest first:
   * {@code {"events": [...]}}.
   */
  public Future<JsonObject> events(long after) {
    return ctx.registry().events(after).map(events -> {
      JsonArray out = new JsonArray();
      events.forEach(e -> out.add(e.toJson()));
      return new JsonObject().put("events", out);
    });
  }

  /**
   * Where traffic would go if the targets {@code failing} ({@code id:port}) of the target group
   * {@code group} (a name or an ARN) failed their health checks, beside where it goes now: for each
   * zone the group is used in, its healthy targets, whether it breaches the routing and DNS
   * thresholds and which targets take its requests; for each load balancer that forwards to it,
   * which zones DNS advertises. Nothing changes. Fails like {@link RegistryVerticle#whatIf}.
   */
  public Future<JsonObject> whatIf(String group, Set<String> failing) {
    return ctx.registry().whatIf(group, failing).map(w -> {
      JsonArray zones = new JsonArray();
      for (String zone : w.zones()) {
        zones.add(new JsonObject().put("zone", zone).put("now", outlook(w.now().scope(zone)))
            .put("ifFailing", outlook(w.then().scope(zone))));
      }
      JsonArray lbs = new JsonArray();
      for (LoadBalancer lb : ctx.resources().loadBalancers()) {
        if (!lb.targetGroupArns().contains(w.group().arn())) {
          continue;
        }
        ZoneStatus.LoadBalancerZones now = w.dnsNow().byDnsName(lb.dnsName());
        ZoneStatus.LoadBalancerZones then = w.dnsThen().byDnsName(lb.dnsName());
        JsonArray byZone = new JsonArray();
        for (String zone : lb.zones()) {
          byZone.add(new JsonObject().put("zone", zone).put("now", dns(now, zone)).put("ifFailing", dns(then, zone)));
        }
        lbs.add(new JsonObject().put("name", lb.name()).put("dnsName", lb.dnsName()).put("zones", byZone));
      }
      return new JsonObject().put("targetGroup", w.group().name()).put("failing", new JsonArray(new TreeSet<>(
          w.failing()).stream().toList())).put("zones", zones).put("loadBalancers", lbs);
    });
  }

  /** A zone's view of a target group: what its node would route by. */
  static JsonObject outlook(Scope scope) {
    if (scope == null) {
      return new JsonObject().put("registered", 0).put("healthy", 0).put("receiving", new JsonArray());
    }
    return new JsonObject().put("registered", scope.registered()).put("healthy", scope.healthy())
        .put("routing", scope.unhealthyRouting() ? "failover" : "healthy")
        .put("dns", scope.dnsBreached() ? "failover" : "healthy")
        .put("receiving", new JsonArray(scope.eligibleKeys()));
  }

  /** {@code advertised} or {@code removed} (from the load balancer's DNS answers). */
  private static String dns(ZoneStatus.LoadBalancerZones lb, String zone) {
    return lb != null && lb.advertised(zone) ? "advertised" : "removed";
  }

  /** The document, as of now. */
  public Future<JsonObject> state() {
    Resources r = ctx.resources();
    List<TargetGroup> groups = r.targetGroups();
    List<Future<List<TargetHealthOperation.Row>>> targets = new ArrayList<>(groups.size());
    List<Future<Map<String, AnomalyDetection>>> anomalies = new ArrayList<>(groups.size());
    for (TargetGroup g : groups) {
      targets.add(TargetHealthOperation.targets(ctx, g));
      anomalies.add(ctx.anomalies(g.arn()));
    }
    return Future.all(gauges.get(), counters.get(), Future.all(targets), Future.all(anomalies)).map(all -> {
      List<GroupGauges> zones = all.resultAt(0);
      JsonObject totals = CounterTotals.byLoadBalancer(all.<Collection<LoadBalancerMeters>>resultAt(1));
      JsonObject byArn = new JsonObject();
      for (int i = 0; i < groups.size(); i++) {
        byArn.put(groups.get(i).arn(), group(groups.get(i), targets.get(i).result(), anomalies.get(i).result()));
      }
      JsonArray lbs = new JsonArray();
      for (LoadBalancer lb : r.loadBalancers()) {
        lbs.add(loadBalancer(lb, byArn, zones, totals));
      }
      JsonArray unused = new JsonArray();
      for (TargetGroup g : groups) {
        if (r.loadBalancers().stream().noneMatch(lb -> lb.targetGroupArns().contains(g.arn()))) {
          unused.add(byArn.getJsonObject(g.arn()));
        }
      }
      return new JsonObject().put("time", Instant.ofEpochMilli(ctx.now()).toString()).put("loadBalancers", lbs)
          .put("unusedTargetGroups", unused);
    });
  }

  private static JsonObject loadBalancer(LoadBalancer lb, JsonObject groupsByArn, List<GroupGauges> zones,
      JsonObject totals) {
    String dimension = Arns.loadBalancerDimension(lb.arn());
    JsonArray listeners = new JsonArray();
    for (Listener l : lb.listeners()) {
      listeners.add(new JsonObject().put("arn", l.arn()).put("protocol", l.protocol().wire()).put("port", l.port())
          .put("rules", l.rules().size()));
    }
    JsonObject counters = totals.getJsonObject(dimension, new JsonObject().put("groups", new JsonObject()));
    JsonObject groupCounters = counters.getJsonObject("groups");
    counters.remove("groups");
    JsonArray groups = new JsonArray();
    for (String arn : lb.targetGroupArns()) {
      JsonObject g = groupsByArn.getJsonObject(arn);
      if (g == null) {
        continue;
      }
      String tg = Arns.targetGroupDimension(arn);
      JsonArray byZone = new JsonArray();
      for (GroupGauges z : zones) {
        if (z.loadBalancer().equals(dimension) && z.targetGroup().equals(tg)) {
          byZone.add(new JsonObject().put("zone", z.zone()).put("healthy", z.healthy()).put("unhealthy", z.unhealthy())
              .put("routing", z.routingHealthy() ? "healthy" : "failover")
              .put("dns", z.dnsHealthy() ? "healthy" : "failover")
              .put("anomalous", z.anomalous()).put("mitigated", z.mitigated()));
        }
      }
      groups.add(g.copy().put("zones", byZone).put("counters", groupCounters.getJsonObject(tg, new JsonObject())));
    }
    return new JsonObject().put("name", lb.name()).put("arn", lb.arn()).put("type", lb.type().wire())
        .put("dnsName", lb.dnsName())
        .put("zones", new JsonArray(lb.zones())).put("listeners", listeners).put("counters", counters)
        .put("targetGroups", groups);
  }

  private JsonObject group(TargetGroup g, List<TargetHealthOperation.Row> rows,
      Map<String, AnomalyDetection> anomalies) {
    JsonArray targets = new JsonArray();
    for (TargetHealthOperation.Row row : rows) {
      JsonObject t = new JsonObject().put("id", row.id()).put("state", row.health().state().wire())
          .put("reason", row.health().reason()).put("description", row.health().description());
      if (g.targetType() != TargetType.LAMBDA) {
        t.put("port", row.port());
      }
      if (g.targetType() == TargetType.ALB) {
        t.put("loadBalancer", Arns.loadBalancerName(row.id())); // the page names it rather than showing its ARN
      }
      if (row.zone() != null) {
        t.put("zone", row.zone());
      }
      AnomalyDetection a = anomalies.get(row.id() + ":" + row.port());
      if (row.registered() && a != null && a.anomalous()) {
        t.put("anomalous", true).put("mitigated", a.mitigationInEffect());
      }
      if (g.targetControlPort() != null && row.registered()) {
        TargetControlVerticle.AgentState agent = agents.apply(g.arn(), row.id() + ":" + row.port());
        t.put("agent", agent == null || !agent.connected() ? new JsonObject().put("connected", false)
            : new JsonObject().put("connected", true).put("credits", agent.credits())
                .put("maxConcurrency", agent.maxConcurrency()).put("inFlight", agent.inFlight()));
      }
      targets.add(t);
    }
    return new JsonObject().put("name", g.name()).put("arn", g.arn()).put("targetType", g.targetType().wire())
        .put("targetControlPort", g.targetControlPort())
        .put("protocol", g.protocol() == null ? null : g.protocol().wire())
        .put("protocolVersion", g.protocolVersion() == null ? null : g.protocolVersion().wire())
        .put("algorithm", algorithm(g)).put("targets", targets);
  }

  /**
   * How the group chooses targets: its algorithm; for a network load balancer's group, which has
   * none, the flow hash (or the client's address, with {@code source_ip} stickiness). The state and
   * the explanation of a request ({@link Explainer}) both say it this way, so that they agree.
   */
  static String algorithm(TargetGroup g) {
    if (g.kind() == TargetGroupKind.NLB) {
      return g.attributes().stickinessEnabled() ? "source_ip" : "flow_hash";
    }
    return g.attributes().algorithm();
  }
}
