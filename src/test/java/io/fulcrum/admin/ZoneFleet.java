package io.fulcrum.admin;

import static org.awaitility.Awaitility.await;

import io.fulcrum.model.TargetState;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.DnsProbe;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.netty.handler.codec.dns.DnsRecordType;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowingConsumer;

/**
 * A load balancer {@code demo} with a node in each of two zones (zone-a on 127.0.0.1, zone-b on
 * 127.0.0.2) and one target group {@code web} of real backends, {@code a1..aN} in zone-a (on
 * 127.0.0.1) and {@code b1..bN} in zone-b (on 127.0.0.2), whose {@code /health} answers can be
 * turned to 503. Health checks run on virtual time: every 10 s, healthy after 2 passes,
 * unhealthy after 2 failures. Used from the test thread.
 */
final class ZoneFleet implements AutoCloseable {

  static final String DNS_NAME = "demo.us-east-1.elb.localhost";
  static final String NODE_A = "127.0.0.1";
  static final String NODE_B = "127.0.0.2";

  /** One backend and the status its {@code /health} answers. */
  record Target(String id, String zone, Backend backend, AtomicInteger health) {
  }

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final Map<String, List<Target>> zones = new LinkedHashMap<>();
  private final int port = Ports.free();
  private final Gateway gateway;
  private final Http http;
  private final DnsProbe dns;

  private ZoneFleet(int perZone, Map<String, String> attributes) {
    for (String zone : List.of("zone-a", "zone-b")) {
      String host = host(zone);
      List<Target> targets = new ArrayList<>();
      for (int i = 1; i <= perZone; i++) {
        String id = zone.substring(5) + i;
        AtomicInteger health = new AtomicInteger(200);
        Backend b = Backend.start(backends, id, host, req -> {
          if (req.path().equals("/health")) {
            req.response().setStatusCode(health.get()).end();
          } else {
            req.response().end(id);
          }
        });
        targets.add(new Target(id, zone, b, health));
      }
      zones.put(zone, targets);
    }
    gateway = Gateway.start(TestVertx.create(), yaml(attributes), 1, time);
    http = new Http(backends);
    dns = new DnsProbe("127.0.0.1", gateway.dnsPort());
  }

  /**
   * Starts {@code perZone} targets in each zone, with these target group attributes, and runs the
   * first health checks: every target is healthy.
   */
  static ZoneFleet start(int perZone, Map<String, String> attributes) {
    ZoneFleet f = new ZoneFleet(perZone, attributes);
    f.tick();
    return f;
  }

  private String yaml(Map<String, String> attributes) {
    StringBuilder attrs = new StringBuilder();
    attributes.forEach((k, v) -> attrs.append("      ").append(k).append(": \"").append(v).append("\"\n"));
    StringBuilder targets = new StringBuilder();
    zones.forEach((zone, list) -> list.forEach(t -> targets.append("      - {id: ").append(host(zone))
        .append(", port: ").append(t.backend().port()).append(", zone: ").append(zone).append("}\n")));
    return """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: demo
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: web}]}
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 2, unhealthy-threshold-count: 2}
            attributes:
        %s    targets:
        %s""".formatted(port, attrs.isEmpty() ? "      {}\n" : attrs, targets);
  }

  /** The address of the zone's node, where its targets listen too. */
  static String host(String zone) {
    return zone.equals("zone-a") ? NODE_A : NODE_B;
  }

  /** Applies new target group attributes (a hot reload: targets keep their health). */
  void reload(Map<String, String> attributes) {
    gateway.reload(yaml(attributes));
    gateway.awaitDataPlane();
  }

  /** The first {@code n} targets of {@code zone} fail their health checks from now on (then settles). */
  void failHealthChecks(String zone, int n) {
    zones.get(zone).subList(0, n).forEach(t -> t.health().set(503));
    settle();
  }

  /** The first {@code n} targets of {@code zone} pass their health checks from now on (then settles). */
  void passHealthChecks(String zone, int n) {
    zones.get(zone).subList(0, n).forEach(t -> t.health().set(200));
    settle();
  }

  /** Two intervals: enough for every target to reach its new state (both thresholds are 2). */
  void settle() {
    tick();
    tick();
  }

  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  /** Healthy and other targets by zone, as the health checker decided them. */
  Map<String, Map<String, Long>> healthByZone() {
    String arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    Map<String, TargetState> byKey = new TreeMap<>();
    Await.result(gateway.fulcrum().health(arn)).targets().forEach((k, v) -> byKey.put(k, v.health().state()));
    Map<String, Map<String, Long>> out = new TreeMap<>();
    zones.forEach((zone, list) -> list.forEach(t -> {
      String key = host(zone) + ":" + t.backend().port();
      out.computeIfAbsent(zone, z -> new TreeMap<>()).merge(byKey.get(key).wire(), 1L, Long::sum);
    }));
    return out;
  }

  /** Sends {@code requests} requests into the node at {@code node}; how many each target answered. */
  Map<String, Integer> traffic(String node, int requests) {
    Map<String, Integer> counts = new TreeMap<>();
    for (int i = 0; i < requests; i++) {
      Http.Response r = http.get(node, port, "/", Map.of());
      counts.merge(r.status() == 200 ? r.body() : "status " + r.status(), 1, Integer::sum);
    }
    return counts;
  }

  /** Target ids of {@code zone}, in order (a1, a2, ...). */
  List<String> ids(String zone) {
    return zones.get(zone).stream().map(Target::id).toList();
  }

  /** {@code GET /health/ready/{zone}} (or {@code /health/ready} for null): status and body. */
  Http.Response readiness(String zone) {
    return http.get("127.0.0.1", gateway.controlPort(), zone == null ? "/health/ready" : "/health/ready/" + zone, Map.of());
  }

  static JsonObject json(Http.Response r) {
    return new JsonObject(r.body());
  }

  /** The A records DNS answers for the load balancer's name (Netty's DNS client). */
  List<String> dnsA() {
    return dns.query(DNS_NAME, DnsRecordType.A).addresses();
  }

  /**
   * Checks what the control plane and the DNS responder say until it holds (up to 5 s): they learn
   * of a new zone status over the event bus, a moment after the listeners route by it.
   */
  void eventually(ThrowingConsumer<ZoneFleet> check) {
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).untilAsserted(() -> check.accept(this));
  }

  @Override
  public void close() {
    dns.close();
    http.close();
    gateway.close();
    Await.result(backends.close());
  }
}
