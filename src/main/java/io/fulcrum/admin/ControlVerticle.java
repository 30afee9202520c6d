package io.fulcrum.admin;

import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.oidc.ClaimsSigner;
import io.fulcrum.sticky.KeyRing;
import io.fulcrum.observe.GroupGauges;
import io.fulcrum.optimizer.TargetControlVerticle;
import io.fulcrum.observe.Meters;
import io.fulcrum.observe.ProcessMetrics;
import io.fulcrum.observe.PrometheusText;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The control plane's HTTP server: the ELBv2 API ({@code /}), the probes ({@code /health/live},
 * {@code /health/ready}, {@code /health/ready/{zone}}), the metrics ({@code /metrics}, in
 * Prometheus's text format under CloudWatch's names: see {@link PrometheusText}) and the live
 * dashboard ({@code /ui}, the page; {@code /ui/state}, what it shows; {@code /ui/events}, the
 * journal; {@code /ui/what-if}, where traffic would go if targets failed; {@code /ui/explain},
 * which rule a request would match and where it would go: see {@link Dashboard}).
 *
 * <p>Readiness follows DNS failover (SPEC §10): a zone's node is ready when the process serves
 * (started, not draining) and every load balancer enabled in the zone advertises it in DNS
 * ({@link ZoneStatus#zoneReady}, fail-open included); the process is ready when one of its
 * node zones is. The zone status comes from the registry over the event bus.
 */
public final class ControlVerticle extends VerticleBase {

  private final String address;
  private final int port;
  private final BooleanSupplier ready;
  private final Supplier<List<String>> zones;
  private final ZoneStatusFeed feed = new ZoneStatusFeed();
  /**
   * A client connection that neither sends nor receives for this long is closed, as a listener's
   * idle timeout closes its connections: an API client, a scraper or a probe that went away (or
   * never sent a whole request) does not hold its socket for ever.
   */
  static final Duration IDLE_TIMEOUT = Duration.ofSeconds(60);
  private Duration idleTimeout = IDLE_TIMEOUT;
  private HttpServer server;

  /**
   * @param ready whether the process serves traffic (false before start-up completes and while draining)
   * @param zones the zones that have nodes
   */
  private Supplier<JsonObject> cluster = () -> null;

  public ControlVerticle(String address, int port, BooleanSupplier ready, Supplier<List<String>> zones) {
    this(address, port, ready, zones, null);
  }

  /**
   * @param api the ELBv2 Query API served on {@code /} (POST, or GET with an Action), or null
   */
  public ControlVerticle(String address, int port, BooleanSupplier ready, Supplier<List<String>> zones,
      io.fulcrum.api.ElbApi api) {
    this.address = address;
    this.port = port;
    this.ready = ready;
    this.zones = zones;
    this.api = api;
  }

  private final io.fulcrum.api.ElbApi api;
  private Supplier<Future<List<GroupGauges>>> gauges = () -> Future.succeededFuture(List.of());
  private Supplier<List<TargetControlVerticle.ChannelCounts>> channels = List::of;

  private Dashboard dashboard;
  private String dashboardPage;

  /** What {@code /ui} shows; without it, {@code /ui} is not served. Set before deployment. */
  public ControlVerticle dashboard(Dashboard source) {
    this.dashboard = source;
    return this;
  }

  /**
   * Where {@code /metrics} gets the target groups' state (the registry's); without it, only the
   * listeners' counters are shown. Set before deployment.
   */
  public ControlVerticle gauges(Supplier<Future<List<GroupGauges>>> source) {
    this.gauges = source;
    return this;
  }

  /** How long an idle client connection stays open ({@link #IDLE_TIMEOUT} unless set). Set before deployment. */
  ControlVerticle idleTimeout(Duration timeout) {
    this.idleTimeout = timeout;
    return this;
  }

  /** What the dashboard says of the cluster this process is in (null when it is in none). */
  public ControlVerticle cluster(Supplier<JsonObject> source) {
    this.cluster = source;
    return this;
  }

  /** Where {@code /metrics} gets the target optimizer's channel counters. Set before deployment. */
  public ControlVerticle channels(Supplier<List<TargetControlVerticle.ChannelCounts>> source) {
    this.channels = source;
    return this;
  }

  /** Where the public keys of authenticate-oidc's claims signatures are served (then the key id). */
  public static final String PUBLIC_KEYS = "/public-keys/";

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer(new HttpServerOptions().setHost(address).setPort(port)
        .setIdleTimeout((int) idleTimeout.toMillis()).setIdleTimeoutUnit(TimeUnit.MILLISECONDS));
    server.requestHandler(this::handle);
    Future<?> page = dashboard == null ? Future.succeededFuture()
        : vertx.executeBlocking(ControlVerticle::readDashboardPage, false).onSuccess(text -> dashboardPage = text);
    return page.compose(p -> feed.start(vertx)).compose(v -> server.listen());
  }

  /** The port actually bound (the configured one, or a free one when 0 was configured). */
  public int actualPort() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    String path = req.path();
    if (path.equals("/") && api != null
        && (req.method() == HttpMethod.POST || req.method() == HttpMethod.GET && req.getParam("Action") != null)) {
      api.handle(req);
    } else if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
      json(req, 405, new JsonObject().put("error", "method not allowed"));
    } else if (path.equals("/metrics")) {
      metrics(req);
    } else if (dashboard != null && (path.equals("/ui") || path.equals("/ui/"))) {
      req.response().putHeader("Content-Type", "text/html; charset=utf-8").putHeader("Cache-Control", "no-cache")
          .end(dashboardPage);
    } else if (dashboard != null && path.equals("/ui/state")) {
      dashboardState(req);
    } else if (dashboard != null && path.equals("/ui/events")) {
      dashboardEvents(req);
    } else if (dashboard != null && path.equals("/ui/what-if")) {
      whatIf(req);
    } else if (dashboard != null && path.equals("/ui/explain")) {
      explain(req);
    } else if (path.equals("/health/live")) {
      json(req, 200, new JsonObject().put("status", "UP"));
    } else if (path.equals("/health/ready")) {
      processReadiness(req);
    } else if (path.startsWith("/health/ready/")) {
      zoneReadiness(req, path.substring("/health/ready/".length()));
    } else if (path.startsWith(PUBLIC_KEYS)) {
      publicKey(req, path.substring(PUBLIC_KEYS.length()));
    } else {
      json(req, 404, new JsonObject().put("error", "not found"));
    }
  }

  /**
   * The public key (PEM) that verifies authenticate-oidc's {@code x-amzn-oidc-data} tokens of key
   * id {@code kid}, as ALB's regional endpoint serves it; 404 for a key id not in use.
   */
  private void publicKey(HttpServerRequest req, String kid) {
    vertx.eventBus().<KeyRing>request(Addresses.STICKINESS_KEYS_CURRENT, null)
        .map(reply -> ClaimsSigner.of(reply.body()).key(kid))
        .onSuccess(key -> {
          if (key == null) {
            json(req, 404, new JsonObject().put("error", "no signing key " + kid));
          } else {
            req.response().putHeader("Content-Type", "application/x-pem-file").end(key.pem());
          }
        })
        .onFailure(e -> json(req, 500, new JsonObject().put("error", "keys unavailable: " + e.getMessage())));
  }

  /** Every listener verticle's counters, added up, the target groups' state and the process's. */
  private void metrics(HttpServerRequest req) {
    Meters.of(vertx).collect()
        .compose(counters -> gauges.get().compose(g -> vertx.executeBlocking(ProcessMetrics::read, false)
            .map(process -> PrometheusText.render(counters, g, channels.get(), process))))
        .onSuccess(text -> req.response().putHeader("Content-Type", PrometheusText.CONTENT_TYPE).end(text))
        .onFailure(e -> json(req, 500, new JsonObject().put("error", "metrics unavailable: " + e.getMessage())));
  }

  /**
   * The dashboard's document, with the process's readiness (as {@code /health/ready} gives it) and,
   * in a cluster, the cluster's name, members and resources version.
   */
  private void dashboardState(HttpServerRequest req) {
    dashboard.state()
        .onSuccess(state -> {
          JsonObject c = cluster.get();
          if (c != null) {
            state.put("cluster", c);
          }
          json(req, 200, state.put("ready", readiness()));
        })
        .onFailure(e -> json(req, 500, new JsonObject().put("error", "state unavailable: " + e.getMessage())));
  }

  /** The journal's events after {@code ?after=N} (default 0: all that are kept). */
  private void dashboardEvents(HttpServerRequest req) {
    String after = req.getParam("after", "0");
    long sequence;
    try {
      sequence = Long.parseLong(after);
    } catch (NumberFormatException e) {
      json(req, 400, new JsonObject().put("error", "after: '" + after + "' is not a number"));
      return;
    }
    dashboard.events(sequence)
        .onSuccess(events -> json(req, 200, events))
        .onFailure(e -> json(req, 500, new JsonObject().put("error", "events unavailable: " + e.getMessage())));
  }

  /**
   * {@code ?targetGroup=<name or ARN>&fail=<id:port>&fail=...}: where traffic would go if those
   * targets failed. 400 without a group or with a target it does not have, 404 for an unknown group.
   */
  private void whatIf(HttpServerRequest req) {
    String group = req.getParam("targetGroup");
    if (group == null || group.isEmpty()) {
      json(req, 400, new JsonObject().put("error", "targetGroup: a target group name or ARN is required"));
      return;
    }
    answer(req, dashboard.whatIf(group, new LinkedHashSet<>(req.params().getAll("fail"))));
  }

  /**
   * {@code ?port=8080&method=GET&path=/a?b=c&host=example.com&header=Name:%20value&source=10.0.0.1
   * &zone=zone-a&loadBalancer=web}: which rule that request would match, and where it would go.
   * Only {@code port} is required (method GET, path /, source 127.0.0.1, the load balancer's first
   * zone). 400 for a parameter that does not parse or names no single listener, 404 when no load
   * balancer listens on the port.
   */
  private void explain(HttpServerRequest req) {
    Explainer.Request request;
    try {
      request = Explainer.Request.fromQuery(req.params());
    } catch (IllegalArgumentException e) {
      json(req, 400, new JsonObject().put("error", e.getMessage()));
      return;
    }
    answer(req, dashboard.explain(request));
  }

  /**
   * 200 with the answer; 404 when it names something that does not exist, 400 for a question that
   * does not hold, 500 otherwise; the error's message as {@code error}.
   */
  private static void answer(HttpServerRequest req, Future<JsonObject> answer) {
    answer.onSuccess(body -> json(req, 200, body))
        .onFailure(e -> json(req, e instanceof NoSuchElementException ? 404 : e instanceof IllegalArgumentException ? 400
            : 500, new JsonObject().put("error", e.getMessage())));
  }

  private static String readDashboardPage() throws java.io.IOException {
    try (java.io.InputStream in = ControlVerticle.class.getResourceAsStream("/ui/dashboard.html")) {
      if (in == null) {
        throw new java.io.FileNotFoundException("ui/dashboard.html is not on the class path");
      }
      return new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  /** 200 when the process serves and at least one of its node zones is ready. */
  private void processReadiness(HttpServerRequest req) {
    JsonObject body = readiness();
    json(req, body.getString("status").equals("UP") ? 200 : 503, body);
  }

  /** Whether the process serves and which of its node zones are ready, with why not. */
  private JsonObject readiness() {
    ZoneStatus status = feed.current();
    JsonObject byZone = new JsonObject();
    boolean anyReady = false;
    boolean serving = ready.getAsBoolean();
    for (String zone : zones.get()) {
      boolean ok = status.zoneReady(zone);
      byZone.put(zone, serving && ok ? "UP" : "DOWN"); // as the zone's own probe answers
      anyReady |= ok;
    }
    boolean ok = serving && (anyReady || byZone.isEmpty());
    JsonObject body = new JsonObject().put("status", ok ? "UP" : "DOWN").put("zones", byZone);
    if (!serving) {
      body.put("reason", "not serving (starting or shutting down)");
    } else if (!ok) {
      body.put("reason", "no zone of this process passes DNS failover");
    }
    return body;
  }

  /** 200 when the process serves and DNS advertises the zone for every load balancer enabled in it. */
  private void zoneReadiness(HttpServerRequest req, String zone) {
    if (!zones.get().contains(zone)) {
      json(req, 404, new JsonObject().put("error", "no node in zone '" + zone + "'"));
      return;
    }
    ZoneStatus status = feed.current();
    boolean serving = ready.getAsBoolean();
    boolean passes = status.zoneReady(zone);
    boolean ok = serving && passes;
    JsonObject body = new JsonObject().put("zone", zone).put("status", ok ? "UP" : "DOWN");
    JsonArray failing = new JsonArray();
    JsonArray failingOpen = new JsonArray();
    for (ZoneStatus.LoadBalancerZones lb : status.loadBalancers()) {
      for (ZoneStatus.Zone z : lb.zones()) {
        if (z.name().equals(zone) && !z.passing()) {
          JsonObject entry = new JsonObject().put("loadBalancer", lb.name()).put("dnsName", lb.dnsName())
              .put("targetGroups", new JsonArray(z.failing()));
          (lb.failOpen() ? failingOpen : failing).add(entry);
        }
      }
    }
    if (!serving) {
      body.put("reason", "not serving (starting or shutting down)");
    } else if (!passes) {
      body.put("reason", "the zone fails DNS failover: too few healthy targets");
    }
    if (!failing.isEmpty()) {
      body.put("failing", failing);
    }
    if (!failingOpen.isEmpty()) {
      // Every zone of these load balancers fails, so DNS advertises them all (fail-open).
      body.put("failingOpen", failingOpen);
    }
    json(req, ok ? 200 : 503, body);
  }

  private static void json(HttpServerRequest req, int status, JsonObject body) {
    req.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }
}
