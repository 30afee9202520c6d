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
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Duration-based stickiness ({@code lb_cookie}, SPEC §5.1) end to end, with a real cookie jar. */
class LbCookieStickinessTest {

  private static final Vertx BACKENDS = TestVertx.create();
  private static final Map<String, Backend> BY_ID = new HashMap<>();
  private static Gateway gateway;
  private static Http http;
  private static int port;
  private static String webArn;
  private static String apiArn;

  @BeforeAll
  static void start() {
    for (String id : List.of("a", "b", "c", "api1", "api2")) {
      BY_ID.put(id, Backend.start(BACKENDS, id));
    }
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: web}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/api/*"]}]
                    actions: [{type: forward, target-group: api}]
                  - priority: 2
                    conditions: [{field: path-pattern, values: ["/plain/*"]}]
                    actions: [{type: forward, target-group: plain}]
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            attributes: {stickiness.enabled: "true", stickiness.type: lb_cookie, stickiness.lb_cookie.duration_seconds: "60"}
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
          - name: api
            target-type: ip
            protocol: HTTP
            port: 80
            attributes: {stickiness.enabled: "true", stickiness.lb_cookie.duration_seconds: "120"}
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
          - name: plain
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
        """.formatted(port, port("a"), port("b"), port("c"), port("api1"), port("api2"), port("a"), port("b"),
        port("c")));
    webArn = arn("web");
    apiArn = arn("api");
    http = new Http(BACKENDS);
  }

  private static int port(String id) {
    return BY_ID.get(id).port();
  }

  private static String arn(String name) {
    return gateway.fulcrum().config().resources().targetGroups().stream().filter(g -> g.name().equals(name))
        .findFirst().orElseThrow().arn();
  }

  @AfterAll
  static void stop() {
    http.close();
    gateway.close();
    BACKENDS.close();
  }

  private static StickyCookies keys() {
    return StickyCookies.of(StickyCookies.TEST_DATA);
  }

  private static String key(String backendId) {
    return "127.0.0.1:" + port(backendId);
  }

  private static Http.Response withCookie(String path, String cookie) {
    return http.get("127.0.0.1", port, path, Map.of("Cookie", cookie));
  }

  @Test
  void firstResponse_setsAwsalbAndItsCorsTwin_sameValue_sevenDayExpires_pathRoot_neverMaxAge() {
    long before = System.currentTimeMillis();
    CookieClient browser = new CookieClient();
    CookieClient.Reply r = browser.get(port, "/");
    long after = System.currentTimeMillis();

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.setCookies()).hasSize(2);
    String lb = line(r.setCookies(), "AWSALB");
    String cors = line(r.setCookies(), "AWSALBCORS");
    assertThat(lb).matches("AWSALB=[A-Za-z0-9_-]+; Expires=\\w{3}, \\d{2} \\w{3} \\d{4} \\d{2}:\\d{2}:\\d{2} GMT; Path=/");
    assertThat(cors).matches("AWSALBCORS=[A-Za-z0-9_-]+; Expires=[^;]+ GMT; Path=/; SameSite=None; Secure");
    assertThat(value(r.setCookies(), "AWSALB")).isEqualTo(value(r.setCookies(), "AWSALBCORS"));
    assertThat(String.join("\n", r.setCookies())).doesNotContainIgnoringCase("max-age");
    ZonedDateTime expires = StickyCookies.expires(lb);
    assertThat(expires).isEqualTo(StickyCookies.expires(cors));
    long sevenDays = Duration.ofDays(7).toMillis();
    assertThat(expires.toInstant().toEpochMilli()).isBetween((before + sevenDays) / 1000 * 1000, after + sevenDays);

    List<StickyEntry> entries = keys().read(CookieKind.LB, value(r.setCookies(), "AWSALB"));
    assertThat(entries).singleElement().satisfies(e -> {
      assertThat(e.isFor(webArn)).isTrue();
      assertThat(e.target()).isEqualTo(key(r.body()));
      assertThat(e.expiresAt()).isBetween(before + 60_000, after + 60_000);
    });
    // The jar keeps both; only AWSALB travels over plain HTTP (AWSALBCORS is Secure).
    assertThat(browser.names()).containsExactly("AWSALB", "AWSALBCORS");
  }

  @Test
  void stickyClient_staysOnItsTarget_whileClientsWithoutCookiesGoRoundRobin() {
    CookieClient browser = new CookieClient();
    String first = browser.get(port, "/").body();
    Set<String> others = new HashSet<>();
    for (int i = 0; i < 12; i++) {
      assertThat(browser.get(port, "/page" + i).body()).isEqualTo(first);
      others.add(http.get(port, "/").body());
    }
    assertThat(others).containsExactlyInAnyOrder("a", "b", "c");
  }

  @Test
  void everyResponse_refreshesTheCookie_withANewValueAndANewInsideExpiry() {
    CookieClient browser = new CookieClient();
    CookieClient.Reply first = browser.get(port, "/");
    CookieClient.Reply second = browser.get(port, "/");
    String v1 = value(first.setCookies(), "AWSALB");
    String v2 = value(second.setCookies(), "AWSALB");
    assertThat(v2).isNotEqualTo(v1);
    assertThat(browser.cookie("AWSALB")).isEqualTo(v2);
    StickyEntry e1 = keys().read(CookieKind.LB, v1).get(0);
    StickyEntry e2 = keys().read(CookieKind.LB, v2).get(0);
    assertThat(e2.target()).isEqualTo(e1.target());
    assertThat(e2.expiresAt()).isGreaterThanOrEqualTo(e1.expiresAt());
  }

  @Test
  void stickinessCookies_areNotForwardedToTheTarget_theOtherCookiesKeepTheirOrder() {
    String v = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(webArn), key("b"),
        System.currentTimeMillis() + 30_000));
    Http.Response r = withCookie("/", "z=26; AWSALB=" + v + "; a=1; AWSALBCORS=" + v + "; AWSALBTG=x; m=13");
    assertThat(r.body()).isEqualTo("b");
    JsonObject got = BY_ID.get("b").lastRequest().getJsonObject("headers");
    assertThat(got.getString("cookie")).isEqualTo("z=26; a=1; m=13");

    withCookie("/", "AWSALB=" + v + "; AWSALBCORS=" + v);
    assertThat(BY_ID.get("b").lastRequest().getJsonObject("headers").containsKey("cookie")).isFalse();
  }

  @Test
  void awsalbcorsAlone_keepsTheSession_asACrossSiteRequestSendsOnlyIt() {
    String v = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(webArn), key("c"),
        System.currentTimeMillis() + 30_000));
    for (int i = 0; i < 6; i++) {
      assertThat(withCookie("/", "AWSALBCORS=" + v).body()).isEqualTo("c");
    }
    // A broken AWSALB does not hide a good AWSALBCORS.
    assertThat(withCookie("/", "AWSALB=broken; AWSALBCORS=" + v).body()).isEqualTo("c");
  }

  @Test
  void staleCookies_getAFreshPickAndARewrittenCookie_neverAnError() {
    String valid = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(webArn), key("a"),
        System.currentTimeMillis() + 30_000));
    byte[] raw = Base64.getUrlDecoder().decode(valid);
    raw[raw.length / 2] ^= 0x01;
    String flipped = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    KeyRing foreignRing = new KeyRing(List.of(CookieCodecTest.key(1, 32, 77)));
    byte[] plain = StickyPayload.encode(List.of(new StickyEntry(StickyEntry.groupId(webArn), key("a"),
        System.currentTimeMillis() + 30_000)));
    String foreign = new CookieCodec(foreignRing, new SplittableRandom(1)).seal(CookieKind.LB, plain, plain.length);
    String sealedAsTg = keys().mint(CookieKind.TG, new StickyEntry(StickyEntry.groupId(webArn), key("a"),
        System.currentTimeMillis() + 30_000));
    String expired = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(webArn), key("a"),
        System.currentTimeMillis() - 1));
    String tooLong = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(webArn), key("a"),
        System.currentTimeMillis() + 3_600_000));
    String deregistered = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(webArn), "127.0.0.1:1",
        System.currentTimeMillis() + 30_000));
    String otherGroup = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(apiArn), key("a"),
        System.currentTimeMillis() + 30_000));

    Map<String, String> stale = new java.util.LinkedHashMap<>();
    stale.put("a flipped byte", flipped);
    stale.put("truncated", valid.substring(0, valid.length() - 5));
    stale.put("URL-encoded", valid.substring(0, 8) + "%2B" + valid.substring(8));
    stale.put("another key ring's", foreign);
    stale.put("an AWSALBTG value", sealedAsTg);
    stale.put("expired inside", expired);
    stale.put("longer than the configured duration", tooLong);
    stale.put("naming a target not registered", deregistered);
    stale.put("naming only another group", otherGroup);
    stale.put("garbage", "%%%;;");
    stale.put("empty", "");
    for (Map.Entry<String, String> c : stale.entrySet()) {
      Set<String> served = new HashSet<>();
      for (int i = 0; i < 6; i++) {
        Http.Response r = withCookie("/", "AWSALB=" + c.getValue());
        assertThat(r.status()).as(c.getKey()).isEqualTo(200);
        served.add(r.body());
        List<String> set = r.headers().getAll("set-cookie");
        List<StickyEntry> rewritten = keys().read(CookieKind.LB, value(set, "AWSALB"));
        assertThat(rewritten).as(c.getKey()).anySatisfy(e -> {
          assertThat(e.isFor(webArn)).isTrue();
          assertThat(e.target()).isEqualTo(key(r.body()));
        });
      }
      assertThat(served).as("a cookie %s does not stick", c.getKey()).hasSizeGreaterThan(1);
    }
    assertThat(withCookie("/", "AWSALB=" + valid).body()).isEqualTo("a");
  }

  @Test
  void oneCookie_carriesTheSessionsOfSeveralGroups() {
    CookieClient browser = new CookieClient();
    String web = browser.get(port, "/").body();
    String api = browser.get(port, "/api/x").body();
    for (int i = 0; i < 6; i++) {
      assertThat(browser.get(port, "/api/" + i).body()).isEqualTo(api);
      assertThat(browser.get(port, "/" + i).body()).isEqualTo(web);
    }
    List<StickyEntry> entries = keys().read(CookieKind.LB, browser.cookie("AWSALB"));
    assertThat(entries).hasSize(2);
    assertThat(entries).anySatisfy(e -> assertThat(e.isFor(webArn) && e.target().equals(key(web))).isTrue());
    assertThat(entries).anySatisfy(e -> assertThat(e.isFor(apiArn) && e.target().equals(key(api))).isTrue());
  }

  @Test
  void groupWithoutStickiness_passesTheCookiesThrough_andSetsNone() {
    String v = keys().mint(CookieKind.LB, new StickyEntry(StickyEntry.groupId(webArn), key("a"),
        System.currentTimeMillis() + 30_000));
    List<String> served = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      Http.Response r = withCookie("/plain/x", "AWSALB=" + v + "; k=v");
      assertThat(r.headers().getAll("set-cookie")).isEmpty();
      served.add(r.body());
      assertThat(BY_ID.get(r.body()).lastRequest().getJsonObject("headers").getString("cookie"))
          .isEqualTo("AWSALB=" + v + "; k=v");
    }
    assertThat(new HashSet<>(served)).hasSize(3);
  }
}
