package io.fulcrum.sticky;

import static io.fulcrum.testing.StickyCookies.line;
import static io.fulcrum.testing.StickyCookies.value;
import static org.assertj.core.api.Assertions.assertThat;

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
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Application-based stickiness ({@code app_cookie}, SPEC §5.2) end to end: real targets whose
 * {@code /login} sets the application's cookie {@code SESSION}, real health checks on a virtual
 * clock, and a real cookie jar.
 */
class AppCookieStickinessTest {

  private static final String CHROME_120 =
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36";

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime(System.currentTimeMillis());
  private final Map<String, Backend> byId = new LinkedHashMap<>();
  private final Map<String, AtomicInteger> health = new LinkedHashMap<>();
  private final AtomicInteger sessions = new AtomicInteger();
  private Gateway gateway;
  private Http http;
  private int port;
  private String appArn;

  @BeforeEach
  void start() {
    for (String id : List.of("a", "b", "c")) {
      AtomicInteger status = new AtomicInteger(200);
      health.put(id, status);
      byId.put(id, Backend.start(backends, id, "127.0.0.1", req -> answer(req, id, status)));
    }
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %1$d
                default-actions: [{type: forward, target-group: app}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/weighted/*"]}]
                    actions:
                      - type: forward
                        target-groups: [{name: app, weight: 1}, {name: spare, weight: 0}]
                        stickiness: {enabled: true, duration-seconds: 600}
        target-groups:
          - name: app
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 3, unhealthy-threshold-count: 2}
            attributes:
              stickiness.enabled: "true"
              stickiness.type: app_cookie
              stickiness.app_cookie.cookie_name: SESSION
              stickiness.app_cookie.duration_seconds: "3600"
            targets: [{id: 127.0.0.1, port: %2$d}, {id: 127.0.0.1, port: %3$d}, {id: 127.0.0.1, port: %4$d}]
          - name: spare
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %2$d}]
        """.formatted(port, byId.get("a").port(), byId.get("b").port(), byId.get("c").port()), 1, time);
    appArn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    http = new Http(backends);
    tick();
  }

  /** {@code /login} sets the application's session cookie; {@code /health} answers the check. */
  private void answer(HttpServerRequest req, String id, AtomicInteger status) {
    if (req.path().equals("/health")) {
      req.response().setStatusCode(status.get()).end();
    } else if (req.path().endsWith("/login")) {
      req.response().putHeader("Set-Cookie", "SESSION=" + id + "-" + sessions.incrementAndGet() + "; Path=/; HttpOnly")
          .end(id);
    } else {
      req.response().end(id);
    }
  }

  @AfterEach
  void stop() {
    http.close();
    gateway.close();
    backends.close();
  }

  /** One health-check interval, with every check's answer in, then every loop on the new snapshot. */
  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  private String key(String id) {
    return "127.0.0.1:" + byId.get(id).port();
  }

  private StickyEntry entry(String awsalbapp) {
    List<StickyEntry> entries = StickyCookies.of(StickyCookies.TEST_DATA).read(CookieKind.APP, awsalbapp);
    assertThat(entries).isNotNull();
    return entries.stream().filter(e -> e.isFor(appArn)).findFirst().orElseThrow();
  }

  @Test
  void targetSettingTheAppCookie_getsAwsalbapp0_andTheSessionStaysOnIt_refreshedOnEveryResponse() {
    CookieClient browser = new CookieClient();
    CookieClient.Reply login = browser.get(port, "/login");
    String x = login.body();
    assertThat(line(login.setCookies(), "SESSION")).startsWith("SESSION=" + x + "-").endsWith("; Path=/; HttpOnly");
    String app = line(login.setCookies(), "AWSALBAPP-0");
    assertThat(app).matches("AWSALBAPP-0=[A-Za-z0-9_-]+; Expires=[^;]+ GMT; Path=/");
    assertThat(StickyCookies.expires(app).toInstant().toEpochMilli())
        .isEqualTo((time.millis() + Duration.ofDays(7).toMillis()) / 1000 * 1000);
    assertThat(login.setCookies()).hasSize(2);
    assertThat(entry(value(login.setCookies(), "AWSALBAPP-0")))
        .isEqualTo(new StickyEntry(StickyEntry.groupId(appArn), key(x), time.millis() + 3_600_000));
    String session = browser.cookie("SESSION");

    Set<String> others = new HashSet<>();
    String previous = browser.cookie("AWSALBAPP-0");
    for (int i = 0; i < 9; i++) {
      CookieClient.Reply r = browser.get(port, "/page" + i);
      assertThat(r.body()).isEqualTo(x);
      // Each response refreshes the cookie, though the target did not set its own again.
      assertThat(value(r.setCookies(), "AWSALBAPP-0")).isNotNull().isNotEqualTo(previous);
      previous = browser.cookie("AWSALBAPP-0");
      // The application's cookie reaches the target unchanged; Fulcrum's does not.
      JsonObject headers = byId.get(x).lastRequest().getJsonObject("headers");
      assertThat(headers.getString("cookie")).isEqualTo("SESSION=" + session);
      others.add(http.get(port, "/").body());
    }
    assertThat(others).containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void withoutTheAppCookie_awsalbappDoesNotStick_andResponsesThatDoNotSetItGetNone() {
    CookieClient browser = new CookieClient();
    browser.get(port, "/login");
    browser.remove("SESSION");
    Set<String> served = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      CookieClient.Reply r = browser.get(port, "/page");
      served.add(r.body());
      assertThat(r.setCookies()).isEmpty();
    }
    assertThat(served).hasSize(3);
    assertThat(new CookieClient().get(port, "/").setCookies()).isEmpty();
  }

  @Test
  void stickyTargetFailing_movesTheSessionToANewTarget_whichKeepsItAfterTheOldOneRecovers() {
    CookieClient browser = new CookieClient();
    String x = browser.get(port, "/login").body();
    assertThat(browser.get(port, "/page").body()).isEqualTo(x);

    health.get(x).set(500);
    tick();
    tick();
    CookieClient.Reply moved = browser.get(port, "/page");
    String y = moved.body();
    assertThat(y).isNotEqualTo(x);
    assertThat(entry(value(moved.setCookies(), "AWSALBAPP-0")).target()).isEqualTo(key(y));
    for (int i = 0; i < 4; i++) {
      assertThat(browser.get(port, "/page").body()).isEqualTo(y);
    }

    health.get(x).set(200);
    tick();
    tick();
    tick();
    Set<String> fresh = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      assertThat(browser.get(port, "/page").body()).as("the session stays on the new target").isEqualTo(y);
      fresh.add(http.get(port, "/").body());
    }
    assertThat(fresh).as("the old target is back in rotation").contains(x);
  }

  @Test
  void chromium80AndLater_getSameSiteNoneSecure_olderAndOtherBrowsersDoNot() {
    Map<String, String> agents = Map.of(
        CHROME_120, "; SameSite=None; Secure",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko) Chrome/80.0.3987.87 Safari/537.36", "; SameSite=None; Secure",
        "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko) Chrome/79.0.3945.130 Safari/537.36", "",
        "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "");
    agents.forEach((agent, attrs) -> {
      CookieClient.Reply r = new CookieClient().get("127.0.0.1", port, "/login", Map.of("User-Agent", agent));
      assertThat(line(r.setCookies(), "AWSALBAPP-0")).as(agent).matches(
          "AWSALBAPP-0=[A-Za-z0-9_-]+; Expires=[^;]+ GMT; Path=/" + attrs.replace(";", "\\;"));
    });
  }

  @Test
  void weightedAction_usesTargetGroupStickinessOnly_appStickinessDoesNotApply() {
    CookieClient browser = new CookieClient();
    CookieClient.Reply r = browser.get(port, "/weighted/login");
    assertThat(line(r.setCookies(), "AWSALBAPP-0")).isNull();
    assertThat(line(r.setCookies(), "AWSALBTG")).isNotNull();
    Set<String> served = new HashSet<>();
    for (int i = 0; i < 6; i++) {
      served.add(browser.get(port, "/weighted/page").body());
    }
    assertThat(served).hasSize(3);
  }
}
