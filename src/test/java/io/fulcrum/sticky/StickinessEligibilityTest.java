package io.fulcrum.sticky;

import static io.fulcrum.testing.StickyCookies.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.bus.HealthReport;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.CookieClient;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.StickyCookies;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A sticky target is used only while it is eligible for the request's scope (SPEC §5.1, §5.4,
 * §4.6): not when it is unhealthy, draining or in another zone with cross-zone off; and stickiness
 * overrides the algorithm, slow start included.
 */
class StickinessEligibilityTest {

  private final Vertx backends = TestVertx.create();
  private final Map<String, Backend> byId = new LinkedHashMap<>();
  private final Map<String, AtomicInteger> health = new HashMap<>();
  private VirtualTime time;
  private Gateway gateway;
  private Http http;
  private int port;

  @AfterEach
  void stop() {
    if (http != null) {
      http.close();
    }
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private void backends(String... ids) {
    for (String id : ids) {
      AtomicInteger status = new AtomicInteger(200);
      health.put(id, status);
      byId.put(id, Backend.start(backends, id, "127.0.0.1", req -> answer(req, id, status)));
    }
    port = Ports.free();
    http = new Http(backends);
  }

  private static void answer(HttpServerRequest req, String id, AtomicInteger status) {
    if (req.path().equals("/health")) {
      req.response().setStatusCode(status.get()).end();
    } else {
      req.response().end(id);
    }
  }

  private String group(String attributes, String targets) {
    return """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: web}]}
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 3, unhealthy-threshold-count: 2}
            attributes: {stickiness.enabled: "true", stickiness.type: lb_cookie%s}
            targets: %s
        """.formatted(port, attributes, targets);
  }

  private String targets(String... idAndZone) {
    StringBuilder out = new StringBuilder("[");
    for (int i = 0; i < idAndZone.length; i += 2) {
      out.append(i == 0 ? "" : ", ").append("{id: 127.0.0.1, port: ").append(byId.get(idAndZone[i]).port())
          .append(", zone: ").append(idAndZone[i + 1]).append("}");
    }
    return out.append("]").toString();
  }

  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  private boolean healthy(String id) {
    var t = Await.result(gateway.fulcrum().health(arn())).targets().get("127.0.0.1:" + byId.get(id).port());
    return t != null && t.health().equals(TargetHealth.HEALTHY);
  }

  private String arn() {
    return gateway.fulcrum().config().resources().targetGroups().get(0).arn();
  }

  private String cookieFor(String id, long now) {
    return StickyCookies.of(StickyCookies.TEST_DATA).mint(CookieKind.LB,
        new StickyEntry(StickyEntry.groupId(arn()), "127.0.0.1:" + byId.get(id).port(), now + 60_000));
  }

  private Http.Response get(String host, String cookie) {
    return http.get(host, port, "/", Map.of("Cookie", cookie));
  }

  private String named(Http.Response r) {
    List<StickyEntry> e = StickyCookies.of(StickyCookies.TEST_DATA).read(CookieKind.LB,
        value(r.headers().getAll("set-cookie"), "AWSALB"));
    return e.get(0).target();
  }

  @Test
  void unhealthyStickyTarget_getsAFreshPick_andTheClientStaysOnTheNewTargetAfterItRecovers() {
    backends("a", "b", "c");
    time = new VirtualTime(System.currentTimeMillis());
    gateway = Gateway.start(TestVertx.create(), group("", targets("a", "zone-a", "b", "zone-a", "c", "zone-a")), 1, time);
    tick();
    CookieClient browser = new CookieClient();
    String x = browser.get(port, "/").body();
    health.get(x).set(503);
    tick();
    tick();
    HealthReport report = Await.result(gateway.fulcrum().health(arn()));
    assertThat(report.targets().get("127.0.0.1:" + byId.get(x).port()).health().state().wire()).isEqualTo("unhealthy");

    String y = browser.get(port, "/").body();
    assertThat(y).isNotEqualTo(x);
    health.get(x).set(200);
    tick();
    tick();
    tick();
    assertThat(Await.result(gateway.fulcrum().health(arn())).targets().get("127.0.0.1:" + byId.get(x).port()).health())
        .isEqualTo(TargetHealth.HEALTHY);
    for (int i = 0; i < 6; i++) {
      assertThat(browser.get(port, "/").body()).isEqualTo(y);
    }
  }

  @Test
  void stickiness_overridesSlowStart_aStickyClientKeepsGoingToATargetInSlowStart() {
    backends("a", "b");
    time = new VirtualTime(System.currentTimeMillis());
    String slowStart = ", slow_start.duration_seconds: \"300\"";
    gateway = Gateway.start(TestVertx.create(), group(slowStart, targets("a", "zone-a")), 1, time);
    tick();
    // b registers while a is healthy and not in slow start: b enters slow start when it turns healthy.
    gateway.reload(group(slowStart, targets("a", "zone-a", "b", "zone-a")));
    // Its first check goes out within a jittered delay after the health checker learns of it.
    for (int i = 0; i < 3 && !healthy("b"); i++) {
      tick();
    }
    assertThat(healthy("b")).isTrue();
    // b's slow-start weight is at most 30 s / 300 s = 0.1 now: round robin gives it a turn in ten.
    Map<String, Integer> fresh = new HashMap<>();
    for (int i = 0; i < 20; i++) {
      fresh.merge(http.get(port, "/").body(), 1, Integer::sum);
    }
    assertThat(fresh.getOrDefault("b", 0)).isLessThanOrEqualTo(2);

    String cookie = "AWSALB=" + cookieFor("b", time.millis());
    for (int i = 0; i < 20; i++) {
      assertThat(get("127.0.0.1", cookie).body()).isEqualTo("b");
    }
  }

  @Test
  void drainingStickyTarget_getsAFreshPick_neverAnError() {
    backends("a", "b");
    gateway = Gateway.start(TestVertx.create(), group("", targets("a", "zone-a", "b", "zone-a")));
    String cookie = "AWSALB=" + cookieFor("b", System.currentTimeMillis());
    assertThat(get("127.0.0.1", cookie).body()).isEqualTo("b");

    // Deregistered with the default 300 s delay: draining (the control plane's timers stand still).
    gateway.reload(group("", targets("a", "zone-a")));
    gateway.awaitDataPlane();
    for (int i = 0; i < 4; i++) {
      Http.Response r = get("127.0.0.1", cookie);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("a");
      assertThat(named(r)).isEqualTo("127.0.0.1:" + byId.get("a").port());
    }
  }

  @Test
  void crossZoneOff_aCookieNamingAnotherZonesTarget_isStaleOnThisZonesNode() {
    backends("a", "b");
    gateway = Gateway.start(TestVertx.create(), group(", load_balancing.cross_zone.enabled: \"false\"",
        targets("a", "zone-a", "b", "zone-b")));
    String cookie = "AWSALB=" + cookieFor("a", System.currentTimeMillis());
    assertThat(get("127.0.0.1", cookie).body()).isEqualTo("a");
    Http.Response onB = get("127.0.0.2", cookie);
    assertThat(onB.status()).isEqualTo(200);
    assertThat(onB.body()).isEqualTo("b");
    assertThat(named(onB)).isEqualTo("127.0.0.1:" + byId.get("b").port());
  }
}
