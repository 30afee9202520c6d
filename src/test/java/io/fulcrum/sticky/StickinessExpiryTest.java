package io.fulcrum.sticky;

import static io.fulcrum.testing.StickyCookies.line;
import static io.fulcrum.testing.StickyCookies.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.StickyCookies;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The configured durations, enforced inside the cookie values, on a virtual clock: exact inside
 * expiries, refreshed by each response, and a cookie past its duration is stale although the
 * browser still sends it (its own Expires is 7 days).
 */
class StickinessExpiryTest {

  private final Vertx backends = TestVertx.create();
  // Starts now, so that the 7-day Expires is in the future for real cookie jars too.
  private final VirtualTime clock = new VirtualTime(System.currentTimeMillis() / 1000 * 1000 + 250);
  // Passed as a Clock: the data path runs on it; the control plane's timers stay frozen (no health checks).
  private Gateway gateway;
  private Http http;
  private int port;
  private String webArn;

  @BeforeEach
  void start() {
    Backend a = Backend.start(backends, "a");
    Backend b = Backend.start(backends, "b");
    Backend c = Backend.start(backends, "c");
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %1$d
                default-actions: [{type: forward, target-group: web}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/split/*"]}]
                    actions:
                      - type: forward
                        target-groups: [{name: blue, weight: 1}, {name: green, weight: 1}]
                        stickiness: {enabled: true, duration-seconds: 20}
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            attributes: {stickiness.enabled: "true", stickiness.lb_cookie.duration_seconds: "30"}
            targets: [{id: 127.0.0.1, port: %2$d}, {id: 127.0.0.1, port: %3$d}, {id: 127.0.0.1, port: %4$d}]
          - name: blue
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %2$d}]
          - name: green
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %3$d}]
        """.formatted(port, a.port(), b.port(), c.port()), 1, (java.time.Clock) clock);
    webArn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    http = new Http(backends);
  }

  @AfterEach
  void stop() {
    http.close();
    gateway.close();
    backends.close();
  }

  private Http.Response get(String path, String cookie) {
    return http.get("127.0.0.1", port, path, cookie == null ? Map.of() : Map.of("Cookie", cookie));
  }

  private static StickyCookies keys() {
    return StickyCookies.of(StickyCookies.TEST_DATA);
  }

  @Test
  void insideExpiry_isNowPlusTheDuration_andEachResponseMovesIt_andExpiresIsSevenDaysAhead() {
    long t0 = clock.millis();
    Http.Response first = get("/", null);
    List<String> set = first.headers().getAll("set-cookie");
    StickyEntry e = keys().read(CookieKind.LB, value(set, "AWSALB")).get(0);
    assertThat(e.expiresAt()).isEqualTo(t0 + 30_000);
    assertThat(StickyCookies.expires(line(set, "AWSALB")).toInstant().toEpochMilli())
        .isEqualTo((t0 + Duration.ofDays(7).toMillis()) / 1000 * 1000);

    clock.advance(Duration.ofSeconds(10));
    Http.Response second = get("/", "AWSALB=" + value(set, "AWSALB"));
    assertThat(second.body()).isEqualTo(first.body());
    List<String> set2 = second.headers().getAll("set-cookie");
    assertThat(keys().read(CookieKind.LB, value(set2, "AWSALB")).get(0).expiresAt()).isEqualTo(t0 + 40_000);
    assertThat(StickyCookies.expires(line(set2, "AWSALBCORS")).toInstant().toEpochMilli())
        .isEqualTo((t0 + 10_000 + Duration.ofDays(7).toMillis()) / 1000 * 1000);
  }

  @Test
  void lbCookie_pastItsDuration_isStale_althoughTheBrowserStillSendsIt() {
    Http.Response first = get("/", null);
    String v = value(first.headers().getAll("set-cookie"), "AWSALB");
    clock.advance(Duration.ofMillis(29_999));
    for (int i = 0; i < 6; i++) {
      assertThat(get("/", "AWSALB=" + v).body()).isEqualTo(first.body());
    }
    clock.advance(Duration.ofMillis(1));
    Set<String> served = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      Http.Response r = get("/", "AWSALB=" + v);
      served.add(r.body());
      StickyEntry fresh = keys().read(CookieKind.LB, value(r.headers().getAll("set-cookie"), "AWSALB")).get(0);
      assertThat(fresh.isFor(webArn)).isTrue();
      assertThat(fresh.expiresAt()).isEqualTo(clock.millis() + 30_000);
    }
    assertThat(served).hasSize(3);
  }

  @Test
  void awsalbtg_pastItsDuration_givesAWeightedPickAgain() {
    Http.Response first = get("/split/x", null);
    String v = value(first.headers().getAll("set-cookie"), "AWSALBTG");
    assertThat(keys().read(CookieKind.TG, v).get(0).expiresAt()).isEqualTo(clock.millis() + 20_000);
    clock.advance(Duration.ofMillis(19_999));
    for (int i = 0; i < 10; i++) {
      assertThat(get("/split/x", "AWSALBTG=" + v).body()).isEqualTo(first.body());
    }
    clock.advance(Duration.ofMillis(1));
    Set<String> served = new HashSet<>();
    for (int i = 0; i < 30; i++) {
      served.add(get("/split/x", "AWSALBTG=" + v).body());
    }
    assertThat(served).containsExactlyInAnyOrder("a", "b");
  }
}
