package io.fulcrum.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The control plane's readiness follows DNS failover: {@code /health/ready/{zone}} is what a
 * probe of that zone's node reads, {@code /health/ready} what a probe of the process reads.
 *
 * <p>Two load balancers over zones a and b (cross-zone off, default thresholds: a zone with no
 * healthy target fails): {@code east} has its zone-b target failing, {@code west} its zone-a one,
 * so zone a fails for {@code west} and zone b for {@code east}; neither load balancer fails
 * everywhere, so neither fails open. Zone c has a node and no load balancer.
 */
class ReadinessTest {

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final AtomicInteger eastB = new AtomicInteger(200);
  private final AtomicInteger westA = new AtomicInteger(200);
  private String yaml;
  private Gateway gateway;
  private Http http;

  @BeforeEach
  void start() {
    AtomicInteger ok = new AtomicInteger(200);
    int[] ports = {target(ok), target(eastB), target(westA), target(ok)};
    yaml = """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
          - {zone: zone-c, address: 127.0.0.3}
        load-balancers:
          - name: east
            zones: [zone-a, zone-b]
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: east}]}
          - name: west
            zones: [zone-a, zone-b]
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: west}]}
        target-groups:
          - name: east
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, unhealthy-threshold-count: 2}
            attributes: {load_balancing.cross_zone.enabled: "false"}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-b}
          - name: west
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, unhealthy-threshold-count: 2}
            attributes: {load_balancing.cross_zone.enabled: "false"}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-b}
        """.formatted(Ports.free(), Ports.free(), ports[0], ports[1], ports[2], ports[3]);
    gateway = Gateway.start(TestVertx.create(), yaml, 1, time);
    http = new Http(backends);
    tick();
  }

  private int target(AtomicInteger health) {
    return Backend.start(backends, "t", "127.0.0.1", req -> req.response()
        .setStatusCode(req.path().equals("/health") ? health.get() : 200).end()).port();
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

  private Http.Response get(String path) {
    return http.get("127.0.0.1", gateway.controlPort(), path, Map.of());
  }

  private void awaitStatus(String path, int status) {
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> assertThat(get(path).status()).as(path).isEqualTo(status));
  }

  @Test
  void everyZone_isReady_whileEveryLoadBalancerHasAHealthyTargetInIt() {
    for (String zone : new String[] {"zone-a", "zone-b", "zone-c"}) {
      awaitStatus("/health/ready/" + zone, 200);
      assertThat(new JsonObject(get("/health/ready/" + zone).body()))
          .isEqualTo(new JsonObject().put("zone", zone).put("status", "UP"));
    }
    assertThat(new JsonObject(get("/health/ready").body())).isEqualTo(new JsonObject().put("status", "UP")
        .put("zones", new JsonObject().put("zone-a", "UP").put("zone-b", "UP").put("zone-c", "UP")));
  }

  @Test
  void zone_isNotReady_whenOneLoadBalancerEnabledInItFailsThere_andTheBodySaysWhich() {
    eastB.set(503);
    tick();
    tick();

    awaitStatus("/health/ready/zone-b", 503);
    JsonObject body = new JsonObject(get("/health/ready/zone-b").body());
    assertThat(body.getString("status")).isEqualTo("DOWN");
    assertThat(body.getString("reason")).contains("DNS failover");
    assertThat(body.getJsonArray("failing")).isEqualTo(new JsonArray().add(new JsonObject().put("loadBalancer", "east")
        .put("dnsName", "east.us-east-1.elb.localhost").put("targetGroups", new JsonArray().add("east"))));
    assertThat(get("/health/ready/zone-a").status()).isEqualTo(200);
    assertThat(get("/health/ready").status()).as("zone a is still ready").isEqualTo(200);
  }

  @Test
  void process_isNotReady_whenNoneOfItsZonesIsReady_butAZoneWithoutLoadBalancersStaysReady() {
    eastB.set(503);
    westA.set(503);
    tick();
    tick();

    awaitStatus("/health/ready/zone-a", 503);
    awaitStatus("/health/ready/zone-b", 503);
    assertThat(get("/health/ready/zone-c").status()).as("nothing can fail in zone c").isEqualTo(200);

    // Zone c has a node, so the process still has a ready zone.
    assertThat(get("/health/ready").status()).isEqualTo(200);
    assertThat(new JsonObject(get("/health/ready").body()).getJsonObject("zones"))
        .isEqualTo(new JsonObject().put("zone-a", "DOWN").put("zone-b", "DOWN").put("zone-c", "UP"));

    // Without zone c's node, it has none.
    gateway.reload(yaml.replace("  - {zone: zone-c, address: 127.0.0.3}\n", ""));
    awaitStatus("/health/ready", 503);
    JsonObject body = new JsonObject(get("/health/ready").body());
    assertThat(body.getString("reason")).isEqualTo("no zone of this process passes DNS failover");
    assertThat(body.getJsonObject("zones")).isEqualTo(new JsonObject().put("zone-a", "DOWN").put("zone-b", "DOWN"));
    assertThat(get("/health/ready/zone-c").status()).isEqualTo(404);
  }

  @Test
  void unknownZone_is404() {
    Http.Response r = get("/health/ready/zone-x");

    assertThat(r.status()).isEqualTo(404);
    assertThat(new JsonObject(r.body()).getString("error")).contains("zone-x");
  }

  @Test
  void everyProbe_is503_onceTheProcessShutsDown() {
    awaitStatus("/health/ready/zone-a", 200);

    Await.result(gateway.fulcrum().shutdown());

    assertThat(get("/health/ready/zone-a").status()).isEqualTo(503);
    assertThat(new JsonObject(get("/health/ready/zone-a").body()).getString("reason")).contains("not serving");
    assertThat(get("/health/ready").status()).isEqualTo(503);
    assertThat(new JsonObject(get("/health/ready").body()).getJsonObject("zones").getMap())
        .as("as each zone's own probe says").containsEntry("zone-a", "DOWN").doesNotContainValue("UP");
    assertThat(get("/health/live").status()).isEqualTo(200);
  }
}
