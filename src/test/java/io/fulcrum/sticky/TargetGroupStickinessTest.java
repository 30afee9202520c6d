package io.fulcrum.sticky;

import static io.fulcrum.testing.StickyCookies.line;
import static io.fulcrum.testing.StickyCookies.value;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.CookieClient;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawHttp;
import io.fulcrum.testing.StickyCookies;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Target-group stickiness of a weighted forward action ({@code AWSALBTG}, SPEC §5.3) end to end,
 * and target stickiness inside the chosen group.
 */
class TargetGroupStickinessTest {

  private final Vertx backends = TestVertx.create();
  private final Map<String, Backend> byId = new LinkedHashMap<>();
  private Gateway gateway;
  private int port;

  private String config(int blueWeight, int greenWeight, boolean withBlue) {
    String groups = withBlue
        ? "[{name: blue, weight: " + blueWeight + "}, {name: green, weight: " + greenWeight + "}]"
        : "[{name: green, weight: " + greenWeight + "}, {name: red, weight: 1}]";
    return """
        random-seed: 42
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions:
                  - type: forward
                    target-groups: %s
                    stickiness: {enabled: true, duration-seconds: 3600}
        target-groups:
          - name: blue
            target-type: ip
            protocol: HTTP
            port: 80
            attributes: {stickiness.enabled: "true", stickiness.type: lb_cookie}
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
          - name: green
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
          - name: red
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(port, groups, byId.get("blue1").port(), byId.get("blue2").port(), byId.get("green1").port(),
        byId.get("green2").port(), byId.get("red1").port());
  }

  @BeforeEach
  void start() {
    for (String id : List.of("blue1", "blue2", "green1", "green2", "red1")) {
      byId.put(id, Backend.start(backends, id));
    }
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), config(50, 50, true));
  }

  @AfterEach
  void stop() {
    gateway.close();
    backends.close();
  }

  private String arn(String name) {
    return gateway.fulcrum().config().resources().targetGroups().stream().filter(g -> g.name().equals(name))
        .findFirst().orElseThrow().arn();
  }

  private static String group(String body) {
    return body.replaceAll("\\d+$", "");
  }

  private static StickyCookies keys() {
    return StickyCookies.of(StickyCookies.TEST_DATA);
  }

  /** A browser whose first response came from {@code wanted}. */
  private CookieClient clientOf(String wanted) {
    for (int i = 0; i < 100; i++) {
      CookieClient b = new CookieClient();
      if (group(b.get(port, "/").body()).equals(wanted)) {
        return b;
      }
    }
    throw new AssertionError("no client reached " + wanted);
  }

  /**
   * A cookie that cannot be read is ALB's {@code AWSALBTGCookieInvalid} in the access log's
   * error_reason (the request goes by weight); a readable one, or none, leaves it {@code -}.
   */
  @Test
  void anUnreadableCookie_isAwsalbtgCookieInvalid_inTheAccessLog() throws Exception {
    gateway.close();
    Path data = Files.createTempDirectory("tg-cookie-log");
    gateway = Gateway.start(TestVertx.create(), "data-dir: '" + data + "'\n" + config(50, 50, true).replace(
        "  - name: lb\n", "  - name: lb\n    attributes: {access_logs.s3.enabled: \"true\", access_logs.s3.bucket: logs}\n"));
    CookieClient browser = clientOf("blue");
    assertThat(group(browser.get(port, "/readable").body())).isEqualTo("blue");
    String forged = RawHttp.exchange("127.0.0.1", port, "GET /unreadable HTTP/1.1\r\nHost: lb\r\n"
        + "Cookie: AWSALBTG=" + browser.cookie("AWSALBTG") + "%3D\r\nConnection: close\r\n\r\n");
    assertThat(RawHttp.status(forged)).isEqualTo(200);
    assertThat(new CookieClient().get(port, "/none").status()).isEqualTo(200);
    gateway.close(); // completes the log file under way
    gateway = Gateway.start(TestVertx.create(), config(50, 50, true)); // for stop()

    List<List<String>> lines = LogFiles.lines(LogFiles.await(data.resolve("s3").resolve("logs"), 1).get(0)).stream()
        .map(LogFiles::fields).toList();
    Map<String, String> reasons = new LinkedHashMap<>();
    lines.forEach(f -> reasons.put(f.get(13).replaceAll("^GET http://[^/]+(/[a-z]+) HTTP/1.1$", "$1"), f.get(25)));
    assertThat(reasons).containsEntry("/unreadable", "AWSALBTGCookieInvalid").containsEntry("/readable", "-")
        .containsEntry("/none", "-");
  }

  @Test
  void firstResponse_setsAwsalbtgAndItsCorsTwin_namingTheChosenGroup() {
    for (String wanted : List.of("blue", "green")) {
      CookieClient.Reply r;
      do {
        r = new CookieClient().get(port, "/");
      } while (!group(r.body()).equals(wanted));
      assertThat(line(r.setCookies(), "AWSALBTG")).matches("AWSALBTG=[A-Za-z0-9_-]+; Expires=[^;]+ GMT; Path=/");
      assertThat(line(r.setCookies(), "AWSALBTGCORS"))
          .matches("AWSALBTGCORS=[A-Za-z0-9_-]+; Expires=[^;]+ GMT; Path=/; SameSite=None; Secure");
      assertThat(value(r.setCookies(), "AWSALBTG")).isEqualTo(value(r.setCookies(), "AWSALBTGCORS"));
      assertThat(StickyCookies.expires(line(r.setCookies(), "AWSALBTG")))
          .isEqualTo(StickyCookies.expires(line(r.setCookies(), "AWSALBTGCORS")));
      List<StickyEntry> entries = keys().read(CookieKind.TG, value(r.setCookies(), "AWSALBTG"));
      assertThat(entries).singleElement().satisfies(e -> {
        assertThat(e.isFor(arn(wanted))).isTrue();
        assertThat(e.target()).as("the key of the action that chose it").matches("[0-9a-f]+");
      });
      // Target stickiness inside the group: blue has lb_cookie, green has none.
      assertThat(r.setCookies()).hasSize(wanted.equals("blue") ? 4 : 2);
    }
  }

  /**
   * Two sticky weighted actions sharing a group (/w to blue and green, /v to blue and red): a client
   * alternating between them keeps each action's choice. The cookie held one entry per group, and
   * /w's answer replaced the blue entry /v had written, so /v chose again.
   */
  @Test
  void twoActionsSharingAGroup_eachKeepItsChoice_forAClientAlternatingBetweenThem() {
    String defaults = "        default-actions:\n";
    String shared = config(50, 50, true).replace(defaults, """
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: [/w/*]}]
                    actions:
                      - type: forward
                        target-groups: [{name: blue, weight: 50}, {name: green, weight: 50}]
                        stickiness: {enabled: true, duration-seconds: 3600}
                  - priority: 2
                    conditions: [{field: path-pattern, values: [/v/*]}]
                    actions:
                      - type: forward
                        target-groups: [{name: blue, weight: 50}, {name: red, weight: 50}]
                        stickiness: {enabled: true, duration-seconds: 3600}
        """ + defaults);
    assertThat(shared).contains("/v/*");
    gateway.reload(shared);
    gateway.awaitDataPlane();
    CookieClient browser = null;
    for (int i = 0; i < 200 && browser == null; i++) {
      CookieClient b = new CookieClient();
      if (group(b.get(port, "/w/x").body()).equals("green") && group(b.get(port, "/v/x").body()).equals("blue")) {
        browser = b;
      }
    }
    assertThat(browser).as("a client on blue for /v and green for /w").isNotNull();
    for (int i = 0; i < 10; i++) {
      assertThat(group(browser.get(port, "/w/x").body())).as("/w, round %d", i).isEqualTo("green");
      assertThat(group(browser.get(port, "/v/x").body())).as("/v, round %d", i).isEqualTo("blue");
    }
  }

  @Test
  void stickyClients_stayInTheirGroup_withTargetStickinessInsideIt_whileNewClientsFollowTheWeights() {
    Map<String, Integer> firstGroups = new LinkedHashMap<>();
    for (int c = 0; c < 12; c++) {
      CookieClient browser = new CookieClient();
      String first = browser.get(port, "/").body();
      firstGroups.merge(group(first), 1, Integer::sum);
      Set<String> served = new HashSet<>();
      for (int i = 0; i < 8; i++) {
        served.add(browser.get(port, "/p").body());
      }
      if (group(first).equals("blue")) {
        assertThat(served).as("blue sticks to its target too").containsExactly(first);
      } else {
        assertThat(served).as("green has no target stickiness: round robin inside it")
            .containsExactlyInAnyOrder("green1", "green2");
      }
    }
    assertThat(firstGroups).containsOnlyKeys("blue", "green");
  }

  @Test
  void groupWeightedToZero_orLeavingTheAction_getsAFreshPick_andTheRewrittenCookieHoldsAfterwards() {
    CookieClient browser = clientOf("blue");
    gateway.reload(config(0, 50, true));
    gateway.awaitDataPlane();
    CookieClient.Reply moved = browser.get(port, "/");
    assertThat(group(moved.body())).isEqualTo("green");
    assertThat(keys().read(CookieKind.TG, value(moved.setCookies(), "AWSALBTG")))
        .singleElement().satisfies(e -> assertThat(e.isFor(arn("green"))).isTrue());

    gateway.reload(config(50, 50, true));
    gateway.awaitDataPlane();
    for (int i = 0; i < 8; i++) {
      assertThat(group(browser.get(port, "/").body())).isEqualTo("green");
    }

    CookieClient blue = clientOf("blue");
    gateway.reload(config(0, 1, false));
    gateway.awaitDataPlane();
    Set<String> groups = new HashSet<>();
    for (int i = 0; i < 8; i++) {
      groups.add(group(new CookieClient().get(port, "/").body()));
    }
    assertThat(groups).containsExactlyInAnyOrder("green", "red");
    CookieClient.Reply r = blue.get(port, "/");
    assertThat(r.status()).isEqualTo(200);
    assertThat(group(r.body())).isIn("green", "red");
  }

  @Test
  void tamperedAwsalbtg_getsAWeightedPickAndARewrittenCookie() {
    CookieClient browser = clientOf("blue");
    byte[] raw = Base64.getUrlDecoder().decode(browser.cookie("AWSALBTG"));
    raw[5] ^= 0x40;
    String tampered = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    Set<String> groups = new HashSet<>();
    try (Http http = new Http(backends)) {
      for (int i = 0; i < 20; i++) {
        Http.Response r = http.get("127.0.0.1", port, "/", Map.of("Cookie", "AWSALBTG=" + tampered));
        assertThat(r.status()).isEqualTo(200);
        groups.add(group(r.body()));
        assertThat(keys().read(CookieKind.TG, value(r.headers().getAll("set-cookie"), "AWSALBTG")))
            .singleElement().satisfies(e -> assertThat(e.isFor(arn(group(r.body())))).isTrue());
      }
    }
    assertThat(groups).containsExactlyInAnyOrder("blue", "green");
  }

  @Test
  void stickinessCookies_doNotReachTheTargets() {
    CookieClient browser = clientOf("blue");
    String target = browser.get("127.0.0.1", port, "/", Map.of("Cookie", "theme=dark")).body();
    assertThat(byId.get(target).lastRequest().getJsonObject("headers").getString("cookie")).isEqualTo("theme=dark");
    browser.get(port, "/");
    assertThat(byId.get(target).lastRequest().getJsonObject("headers").containsKey("cookie")).isFalse();
  }
}
