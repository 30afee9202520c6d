package io.fulcrum.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The live dashboard on the control plane: {@code GET /ui} the page, {@code GET /ui/state} what it
 * shows, read after real traffic and real health checks (on a virtual clock), and {@code GET
 * /ui/events}, the registry's journal of the decisions behind it; and the page's own script run by
 * Node against both.
 *
 * <p>The load balancer {@code web} (zones a and b) forwards to {@code app}, one target in each
 * zone, cross-zone off (each zone counts its own targets against the thresholds); {@code spare} is
 * a target group no rule uses.
 */
class DashboardTest {

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final AtomicInteger bHealth = new AtomicInteger(200);
  private Gateway gateway;
  private Http http;
  private int port;
  private String yaml;

  @BeforeEach
  void start() {
    port = Ports.free();
    yaml = """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: web
            zones: [zone-a, zone-b]
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: app}]}
        target-groups:
          - name: app
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, unhealthy-threshold-count: 2}
            attributes:
              load_balancing.algorithm.type: least_outstanding_requests
              load_balancing.cross_zone.enabled: "false"
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-b}
          - {name: spare, target-type: ip, protocol: HTTP, port: 80, targets: []}
        """.formatted(port, target(new AtomicInteger(200)), target(bHealth));
    gateway = Gateway.start(TestVertx.create(), yaml, 2, time);
    http = new Http(backends);
    tick();
  }

  private int target(AtomicInteger health) {
    return Backend.start(backends, "t", "127.0.0.1", req -> req.response()
        .setStatusCode(req.path().equals("/health") ? health.get() : 200).end("ok")).port();
  }

  @AfterEach
  void stop() {
    http.close();
    gateway.close();
    Await.result(backends.close());
  }

  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  private Http.Response control(String path) {
    return http.get("127.0.0.1", gateway.controlPort(), path, Map.of());
  }

  private JsonObject state() {
    Http.Response r = control("/ui/state");
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    assertThat(r.header("Content-Type")).startsWith("application/json");
    return new JsonObject(r.body());
  }

  @Test
  void thePage_isServed_andReadsTheState() {
    Http.Response page = control("/ui");
    assertThat(page.status()).isEqualTo(200);
    assertThat(page.header("Content-Type")).isEqualTo("text/html; charset=utf-8");
    assertThat(page.body()).contains("<title>Fulcrum dashboard</title>").contains("fetch(\"/ui/state\"");
    assertThat(control("/ui/").body()).isEqualTo(page.body());
  }

  @Test
  void theState_showsListenersGroupsZonesTargetsAndCounters() {
    for (int i = 0; i < 4; i++) {
      assertThat(http.get("127.0.0.1", port, "/x", Map.of()).status()).isEqualTo(200);
    }

    JsonObject s = state();
    assertThat(s.getJsonObject("ready").getString("status")).isEqualTo("UP");
    assertThat(s.getString("time")).isEqualTo(time.instant().toString());
    JsonObject web = s.getJsonArray("loadBalancers").getJsonObject(0);
    assertThat(web.getString("name")).isEqualTo("web");
    assertThat(web.getJsonArray("zones").getList()).containsExactly("zone-a", "zone-b");
    assertThat(web.getJsonArray("listeners").getJsonObject(0).getMap()).containsEntry("protocol", "HTTP")
        .containsEntry("port", port);
    assertThat(web.getJsonObject("counters").getLong("requests")).isEqualTo(4);
    assertThat(web.getJsonObject("counters").getLong("processedBytes")).isPositive();

    JsonObject app = web.getJsonArray("targetGroups").getJsonObject(0);
    assertThat(app.getString("name")).isEqualTo("app");
    assertThat(app.getString("algorithm")).isEqualTo("least_outstanding_requests");
    assertThat(app.getJsonObject("counters").getLong("requests")).isEqualTo(4);
    assertThat(app.getJsonObject("counters").getLong("target2xx")).isEqualTo(4);
    assertThat(app.getJsonArray("targets").stream().map(t -> ((JsonObject) t).getString("state")).toList())
        .containsExactly("healthy", "healthy");
    assertThat(zone(app, "zone-b").getMap()).containsEntry("healthy", 1).containsEntry("unhealthy", 0)
        .containsEntry("routing", "healthy").containsEntry("dns", "healthy");

    JsonArray unused = s.getJsonArray("unusedTargetGroups");
    assertThat(unused.size()).isEqualTo(1);
    assertThat(unused.getJsonObject(0).getString("name")).isEqualTo("spare");
  }

  @Test
  void aTargetThatFails_showsItsReason_andItsZoneFailsOver() {
    bHealth.set(503);
    tick();
    tick();

    JsonObject app = state().getJsonArray("loadBalancers").getJsonObject(0).getJsonArray("targetGroups")
        .getJsonObject(0);
    JsonObject b = app.getJsonArray("targets").getJsonObject(1);
    assertThat(b.getMap()).containsEntry("zone", "zone-b").containsEntry("state", "unhealthy")
        .containsEntry("reason", "Target.ResponseCodeMismatch");
    assertThat(zone(app, "zone-b").getMap()).containsEntry("healthy", 0).containsEntry("unhealthy", 1)
        .containsEntry("routing", "failover").containsEntry("dns", "failover");
    assertThat(zone(app, "zone-a").getMap()).containsEntry("routing", "healthy");
  }

  @Test
  void theJournal_recordsEachHealthChangeAndFailover_atTheTimeItWasDecided() {
    List<JsonObject> starting = events(0);
    assertThat(starting).extracting(e -> e.getString("type") + " " + e.getString("zone") + " " + e.getString("to"))
        .as("each target passing its first checks, and its zone leaving failover (no healthy target at the start)")
        .containsExactlyInAnyOrder("TargetHealth zone-a healthy", "TargetHealth zone-b healthy",
            "ZoneRoutingFailover zone-a healthy", "ZoneRoutingFailover zone-b healthy",
            "ZoneDnsFailover zone-a healthy", "ZoneDnsFailover zone-b healthy");
    Instant start = time.instant();
    bHealth.set(503);
    tick();
    tick();
    Instant failed = time.instant();

    List<JsonObject> events = events(starting.get(starting.size() - 1).getLong("sequence"));
    JsonObject health = only(events, "TargetHealth");
    assertThat(health.getMap()).containsEntry("targetGroup", "app").containsEntry("zone", "zone-b")
        .containsEntry("from", "healthy").containsEntry("to", "unhealthy")
        .containsEntry("reason", "Target.ResponseCodeMismatch")
        .containsEntry("description", "Health checks failed with these codes: [503]");
    assertThat(health.getString("target")).endsWith(":" + targetPort(1));
    Instant decided = Instant.parse(health.getString("time"));
    assertThat(decided).isAfter(start).isBeforeOrEqualTo(failed);
    assertThat(only(events, "ZoneRoutingFailover").getMap()).containsEntry("targetGroup", "app")
        .containsEntry("zone", "zone-b").containsEntry("from", "healthy").containsEntry("to", "failover")
        .containsEntry("time", decided.toString());
    assertThat(only(events, "ZoneDnsFailover").getMap()).containsEntry("loadBalancer", "web")
        .containsEntry("zone", "zone-b").containsEntry("to", "failover").containsEntry("reason", "app");
    assertThat(events).extracting(e -> e.getLong("sequence")).isSorted().doesNotHaveDuplicates();

    long seen = events.get(events.size() - 1).getLong("sequence");
    assertThat(events(seen)).as("nothing after the last one").isEmpty();
    bHealth.set(200);
    for (int i = 0; i < 5; i++) {
      tick(); // ALB's healthy threshold: 5 checks
    }
    List<JsonObject> recovered = events(seen);
    assertThat(recovered).extracting(e -> e.getString("type") + " " + e.getString("to"))
        .containsExactlyInAnyOrder("TargetHealth healthy", "ZoneRoutingFailover healthy", "ZoneDnsFailover healthy");
    assertThat(control("/ui/events?after=x").status()).isEqualTo(400);
  }

  @Test
  void theJournal_recordsADeregisteredTargetDraining_andItsDelayEnding() {
    String withoutB = yaml.lines().filter(l -> !l.contains("port: " + targetPort(1) + ","))
        .collect(java.util.stream.Collectors.joining("\n"));
    assertThat(withoutB).isNotEqualTo(yaml);
    gateway.reload(withoutB);
    JsonObject draining = only(events(0), "TargetDraining");
    assertThat(draining.getMap()).containsEntry("targetGroup", "app").containsEntry("zone", "zone-b")
        .containsEntry("to", "draining").containsEntry("reason", "Target.DeregistrationInProgress")
        .containsEntry("description", "deregistration delay 300 s").containsEntry("time", time.instant().toString());

    Instant end = time.instant().plusSeconds(300);
    time.advance(Duration.ofSeconds(300), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    assertThat(only(events(0), "TargetDrained").getMap()).containsEntry("target", draining.getString("target"))
        .containsEntry("from", "draining").containsEntry("to", "unused").containsEntry("time", end.toString());
  }

  @Test
  void whatIf_showsWhereTrafficWouldGo_ifTargetsFailed_andChangesNothing() {
    String a = "127.0.0.1:" + targetPort(0);
    String b = "127.0.0.1:" + targetPort(1);
    List<JsonObject> journal = events(0);

    JsonObject one = whatIf("targetGroup=app&fail=" + b, 200);
    assertThat(one.getString("targetGroup")).isEqualTo("app");
    assertThat(one.getJsonArray("failing").getList()).containsExactly(b);
    JsonObject zoneB = zone(one, "zone-b");
    assertThat(zoneB.getJsonObject("now").getMap()).containsEntry("registered", 1).containsEntry("healthy", 1)
        .containsEntry("routing", "healthy").containsEntry("dns", "healthy");
    assertThat(zoneB.getJsonObject("ifFailing").getMap()).containsEntry("healthy", 0)
        .containsEntry("routing", "failover").containsEntry("dns", "failover");
    assertThat(zoneB.getJsonObject("ifFailing").getJsonArray("receiving").getList())
        .as("fail-open: the zone's node sends to its unhealthy target").containsExactly(b);
    assertThat(zone(one, "zone-a").getJsonObject("ifFailing").getJsonArray("receiving").getList()).containsExactly(a);
    JsonObject web = one.getJsonArray("loadBalancers").getJsonObject(0);
    assertThat(web.getString("name")).isEqualTo("web");
    assertThat(zone(web, "zone-a").getMap()).containsEntry("now", "advertised").containsEntry("ifFailing", "advertised");
    assertThat(zone(web, "zone-b").getMap()).containsEntry("now", "advertised").containsEntry("ifFailing", "removed");

    String arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    JsonObject both = whatIf("targetGroup=" + arn + "&fail=" + a + "&fail=" + b, 200);
    assertThat(zone(both.getJsonArray("loadBalancers").getJsonObject(0), "zone-a").getString("ifFailing"))
        .as("every zone fails: DNS fails open and advertises them all").isEqualTo("advertised");

    assertThat(whatIf("targetGroup=nope", 404).getString("error")).isEqualTo("no target group 'nope'");
    assertThat(whatIf("targetGroup=app&fail=127.0.0.9:80", 400).getString("error"))
        .startsWith("target 127.0.0.9:80 is not registered in target group app");
    assertThat(whatIf("targetGroup=spare", 400).getString("error"))
        .isEqualTo("no load balancer forwards to target group spare");
    assertThat(whatIf("fail=" + b, 400).getString("error")).contains("targetGroup");

    assertThat(events(0)).as("no event").isEqualTo(journal);
    JsonObject app = state().getJsonArray("loadBalancers").getJsonObject(0).getJsonArray("targetGroups")
        .getJsonObject(0);
    assertThat(zone(app, "zone-b").getMap()).containsEntry("healthy", 1).containsEntry("routing", "healthy");
    assertThat(http.get("127.0.0.1", port, "/x", Map.of()).status()).isEqualTo(200);
  }

  private JsonObject whatIf(String query, int status) {
    Http.Response r = control("/ui/what-if?" + query);
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    return new JsonObject(r.body());
  }

  private List<JsonObject> events(long after) {
    Http.Response r = control("/ui/events?after=" + after);
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return new JsonObject(r.body()).getJsonArray("events").stream().map(JsonObject.class::cast).toList();
  }

  private static JsonObject only(List<JsonObject> events, String type) {
    List<JsonObject> of = events.stream().filter(e -> e.getString("type").equals(type)).toList();
    assertThat(of).as("%s events in %s", type, events).hasSize(1);
    return of.get(0);
  }

  private int targetPort(int index) {
    return gateway.fulcrum().config().resources().targetGroups().get(0).targets().get(index).port();
  }

  @Test
  void thePagesScript_drawsTheState(@TempDir Path dir) throws Exception {
    Path node = Interop.require("/usr/bin/node", "nodejs");
    bHealth.set(503);
    tick();
    tick();
    assertThat(http.get("127.0.0.1", port, "/x", Map.of()).status()).isEqualTo(200);
    Path page = dir.resolve("dashboard.html");
    Files.writeString(page, control("/ui").body());
    Path state = dir.resolve("state.json");
    // As a process of a cluster's document has it (ClusterApiTest reads one from a real cluster).
    Files.writeString(state, new JsonObject(control("/ui/state").body())
        .put("cluster", new JsonObject().put("name", "prod").put("members", 3).put("version", 7)
            .put("addresses", new io.vertx.core.json.JsonArray()
                .add(new JsonObject().put("address", "10.0.0.1:5701").put("self", false))
                .add(new JsonObject().put("address", "10.0.0.2:5701").put("self", true))
                .add(new JsonObject().put("address", "[fd00::3]:5701").put("self", false)))).encode());
    Path events = dir.resolve("events.json");
    Files.writeString(events, control("/ui/events").body());
    Path explain = dir.resolve("explain.json");
    Files.writeString(explain, control("/ui/explain?port=" + port + "&path=/x").body());
    String a = "127.0.0.1:" + targetPort(0);
    Path whatIf = dir.resolve("whatif.json");
    Files.writeString(whatIf, control("/ui/what-if?targetGroup=app&fail=" + a).body());
    Path render = Path.of(DashboardTest.class.getResource("/ui/render.js").toURI());

    Tool.Result r = Tool.run(dir, Duration.ofSeconds(30), List.of(node.toString(), render.toString(), page.toString(),
        state.toString(), events.toString(), explain.toString(), whatIf.toString(), a));

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("READY UP").contains("CLUSTER cluster prod: 3 members (10.0.0.1:5701, 10.0.0.2:5701 here, [fd00::3]:5701),"
            + " resources version 7")
        .contains("web", "app").doesNotContain("undefined")
        .contains("127.0.0.1:" + targetPort(1)
            + " zone-b unhealthy Target.ResponseCodeMismatch: Health checks failed with these codes: [503]")
        .contains("least_outstanding_requests").contains("spare").contains("1 requests since start")
        .contains("Recent events").contains("TargetHealth app 127.0.0.1:" + targetPort(1) + " zone-b healthy")
        .contains("ZoneDnsFailover web zone-b healthy").contains("failover app: removed from DNS")
        .as("the forms ask with what was filled in, and show the answers")
        .contains("ASKED /ui/explain?port=" + port + "&method=GET&path=%2Fx /ui/what-if?targetGroup=app&fail="
            + a.replace(":", "%3A"))
        .contains("EXPLAINED Load balancer web, listener HTTP:" + port + ", zone zone-a: no rule matches, the default"
            + " action \u2192 forward app (weight 1, 1 healthy in zone-a: " + a + ")")
        .contains("WHATIF Zone Healthy Routing DNS Would take requests zone-a 1 \u2192 0 healthy \u2192 failover"
            + " healthy \u2192 failover " + a)
        .contains("web in DNS: zone-a advertised, zone-b removed \u2192 advertised"); // both fail: DNS fails open
  }

  /** The entry for {@code zone} in the {@code zones} of {@code of}. */
  private static JsonObject zone(JsonObject of, String zone) {
    return of.getJsonArray("zones").stream().map(JsonObject.class::cast)
        .filter(z -> z.getString("zone").equals(zone)).findFirst().orElseThrow();
  }
}
