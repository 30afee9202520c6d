package io.fulcrum.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawHttp;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code GET /ui/explain}: which rule a described request would match, condition by condition, and
 * where it would go; checked against what a real request with the same parts gets from the
 * listener. The load balancer {@code web} has rules on the host and path (priority 1), a header
 * (2), the query string and source address (3), and a method (4), with a fixed response, a
 * redirect and a weighted forward; the default forwards to {@code app}.
 */
class ExplainTest {

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private Gateway gateway;
  private Http http;
  private int port;

  @BeforeEach
  void start() {
    port = Ports.free();
    int app = target("app");
    int canary = target("canary");
    String yaml = """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
        load-balancers:
          - name: web
            zones: [zone-a]
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: app}]
                rules:
                  - priority: 1
                    conditions:
                      - {field: host-header, values: ["api.example.com"]}
                      - {field: path-pattern, values: ["/v1/*"]}
                    actions: [{type: fixed-response, status-code: "418", content-type: text/plain, message-body: tea}]
                  - priority: 2
                    conditions: [{field: http-header, http-header-name: X-Canary, values: ["yes"]}]
                    actions:
                      - type: forward
                        target-groups: [{name: app, weight: 1}, {name: canary, weight: 3}]
                        stickiness: {enabled: true, duration-seconds: 3600}
                  - priority: 3
                    conditions:
                      - {field: query-string, values: [{key: old, value: "1"}]}
                      - {field: source-ip, values: ["10.0.0.0/8"]}
                    actions: [{type: redirect, path: "/new", status-code: HTTP_301}]
                  - priority: 4
                    conditions: [{field: http-request-method, values: [DELETE]}]
                    actions: [{type: fixed-response, status-code: "405", content-type: text/plain}]
        target-groups:
          - name: app
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10}
            targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]
          - name: canary
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10}
            attributes: {stickiness.enabled: "true", stickiness.type: lb_cookie}
            targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]
        """.formatted(port, app, canary);
    gateway = Gateway.start(TestVertx.create(), yaml, 1, time);
    http = new Http(backends);
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  private int target(String name) {
    return Backend.start(backends, name, "127.0.0.1", req -> req.response().end(name)).port();
  }

  @AfterEach
  void stop() {
    http.close();
    gateway.close();
    Await.result(backends.close());
  }

  private JsonObject explain(String query, int status) {
    Http.Response r = http.get("127.0.0.1", gateway.controlPort(), "/ui/explain?port=" + port + query, Map.of());
    assertThat(r.status()).as(r.body()).isEqualTo(status);
    return new JsonObject(r.body());
  }

  private static String q(String value) {
    return URLEncoder.encode(value, StandardCharsets.UTF_8);
  }

  private static List<Boolean> matched(JsonObject rule) {
    return rule.getJsonArray("conditions").stream().map(c -> ((JsonObject) c).getBoolean("matched")).toList();
  }

  @Test
  void aRequestThatMatchesNoRule_goesToTheDefault_andEachRuleSaysWhichConditionFailed() {
    JsonObject e = explain("&path=" + q("/v1/x") + "&host=www.example.com", 200);

    assertThat(e.getString("loadBalancer")).isEqualTo("web");
    assertThat(e.getString("zone")).isEqualTo("zone-a");
    JsonArray rules = e.getJsonArray("rules");
    assertThat(rules.size()).isEqualTo(4);
    assertThat(matched(rules.getJsonObject(0))).as("host no, path yes").containsExactly(false, true);
    assertThat(rules.getJsonObject(0).getJsonArray("conditions").getJsonObject(0).getString("field"))
        .isEqualTo("host-header");
    assertThat(rules.stream().map(r -> ((JsonObject) r).getBoolean("matched")).toList()).containsOnly(false);
    assertThat(e.getString("decidedBy")).isEqualTo("default");
    JsonObject group = e.getJsonObject("action").getJsonArray("targetGroups").getJsonObject(0);
    assertThat(group.getString("name")).isEqualTo("app");
    assertThat(group.getJsonObject("inZone").getMap()).containsEntry("healthy", 1).containsEntry("routing", "healthy");
    assertThat(group.getJsonObject("inZone").getJsonArray("receiving").size()).isEqualTo(1);

    assertThat(http.get("127.0.0.1", port, "/v1/x", Map.of("Host", "www.example.com")).body())
        .as("the listener agrees").isEqualTo("app");
  }

  @Test
  void theFirstRuleWhoseConditionsAllMatch_decides_andLaterRulesAreNotTried() {
    JsonObject fixed = explain("&path=" + q("/v1/x") + "&host=API.example.com", 200);
    assertThat(fixed.getJsonArray("rules").size()).isEqualTo(1);
    assertThat(fixed.getString("decidedBy")).isEqualTo("1");
    assertThat(fixed.getJsonObject("action").getMap()).containsEntry("type", "fixed-response")
        .containsEntry("statusCode", 418);
    assertThat(http.get("127.0.0.1", port, "/v1/x", Map.of("Host", "API.example.com")).status()).isEqualTo(418);

    JsonObject canary = explain("&header=" + q("X-Canary: yes"), 200);
    assertThat(canary.getString("decidedBy")).isEqualTo("2");
    JsonArray groups = canary.getJsonObject("action").getJsonArray("targetGroups");
    assertThat(groups.getJsonObject(1).getMap()).containsEntry("name", "canary").containsEntry("weight", 3)
        .containsEntry("stickiness", "lb_cookie");

    JsonObject redirect = explain("&path=" + q("/a?old=1") + "&source=10.1.2.3", 200);
    assertThat(redirect.getString("decidedBy")).isEqualTo("3");
    assertThat(redirect.getJsonObject("action").getString("type")).isEqualTo("redirect");
    JsonObject local = explain("&path=" + q("/a?old=1"), 200);
    assertThat(matched(local.getJsonArray("rules").getJsonObject(2))).as("query yes, source 127.0.0.1 no")
        .containsExactly(true, false);

    assertThat(explain("&method=DELETE", 200).getString("decidedBy")).isEqualTo("4");
  }

  @Test
  void theExplanation_showsThePathAsRulesCompareIt() {
    JsonObject dotted = explain("&path=" + q("/public/..//v%31/x?a=1") + "&host=api.example.com", 200);
    assertThat(dotted.getJsonObject("request").getString("uri")).isEqualTo("/public/..//v%31/x?a=1");
    assertThat(dotted.getJsonObject("request").getString("rulePath")).isEqualTo("/v1/x");
    assertThat(dotted.getString("decidedBy")).isEqualTo("1");
    assertThat(http.get("127.0.0.1", port, "/public/..//v%31/x?a=1", Map.of("Host", "api.example.com")).status())
        .as("the listener agrees").isEqualTo(418);
  }

  @Test
  void anAbsoluteFormTarget_isRoutedByItsHostAndPath_asTheListenerRoutesIt() {
    JsonObject e = explain("&path=" + q("http://api.example.com/v1/x?a=1") + "&host=www.example.com", 200);

    assertThat(e.getJsonObject("request").getString("uri")).isEqualTo("http://api.example.com/v1/x?a=1");
    assertThat(e.getJsonObject("request").getString("rulePath")).isEqualTo("/v1/x");
    assertThat(e.getJsonObject("request").getString("ruleHost")).as("the URI's host, not the Host header's")
        .isEqualTo("api.example.com");
    assertThat(matched(e.getJsonArray("rules").getJsonObject(0))).containsExactly(true, true);
    assertThat(e.getString("decidedBy")).isEqualTo("1");
    String raw = RawHttp.exchange("127.0.0.1", port,
        "GET http://api.example.com/v1/x?a=1 HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n");
    assertThat(RawHttp.status(raw)).as("the listener agrees: " + raw).isEqualTo(418);
  }

  /**
   * The listener's answer to {@code method path HTTP/1.1} sent as is, and what explaining it says:
   * the same status, from the listener itself, no rule evaluated.
   */
  private void assertRefusedByTheListener(String method, String path, int status) {
    JsonObject e = explain("&method=" + q(method) + "&path=" + q(path), 200);
    assertThat(e.getString("decidedBy")).as(method + " " + path).isEqualTo("listener");
    assertThat(e.getJsonArray("rules")).as("no rule is evaluated").isEmpty();
    assertThat(e.containsKey("action")).isFalse();
    assertThat(e.getJsonObject("refused").getInteger("statusCode")).as(method + " " + path).isEqualTo(status);
    String raw = RawHttp.exchange("127.0.0.1", port,
        method + " " + path + " HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n");
    assertThat(RawHttp.status(raw)).as("the listener agrees: " + raw).isEqualTo(status);
  }

  @Test
  void aRequestLineTheListenerRefuses_isAnsweredByTheListener_beforeAnyRule() {
    assertRefusedByTheListener("", "/", 400);
    assertRefusedByTheListener("G\"T", "/", 400);
    assertRefusedByTheListener("G T", "/", 505);
    assertRefusedByTheListener("GET", "/a b", 505);
    assertRefusedByTheListener("TRACE", "/", 405);
    assertRefusedByTheListener("GET", "*", 400);
    assertThat(explain("&method=TRACE", 200).getJsonObject("refused").getString("reason"))
        .isEqualTo("TRACE is not supported");
    assertThat(explain("&method=OPTIONS&path=*", 200).getString("decidedBy")).as("OPTIONS * is served")
        .isEqualTo("default");
  }

  @Test
  void aMethodInLowerCase_isForwarded_asTheListenerForwardsIt_matchingNoUpperCaseMethodCondition() {
    JsonObject e = explain("&method=delete", 200);
    assertThat(matched(e.getJsonArray("rules").getJsonObject(3))).as("DELETE is not delete").containsExactly(false);
    assertThat(e.getString("decidedBy")).isEqualTo("default");
    String raw = RawHttp.exchange("127.0.0.1", port,
        "delete / HTTP/1.1\r\nHost: www.example.com\r\nConnection: close\r\n\r\n");
    assertThat(raw).as("the listener agrees").startsWith("HTTP/1.1 200 ").endsWith("app");
  }

  @Test
  void requestsThatNameNoListener_orDoNotParse_areRefused() {
    int unused = Ports.free();
    assertThat(http.get("127.0.0.1", gateway.controlPort(), "/ui/explain?port=" + unused, Map.of()).body())
        .contains("no load balancer listens on port " + unused);
    for (String outOfRange : List.of("99999", "-1", "0", "65536")) {
      Http.Response r = http.get("127.0.0.1", gateway.controlPort(), "/ui/explain?port=" + outOfRange, Map.of());
      assertThat(r.status()).as(outOfRange).isEqualTo(400);
      assertThat(new JsonObject(r.body()).getString("error"))
          .isEqualTo("port: the listener's port (1 to 65535) is required (got " + outOfRange + ")");
    }
    assertThat(explain("&method=" + q("GET\r\nX"), 400).getString("error"))
        .isEqualTo("method: a request line cannot hold CR or LF");
    assertThat(explain("&path=" + q("/a\nb"), 400).getString("error"))
        .isEqualTo("path: a request line cannot hold CR or LF");
    assertThat(explain("&loadBalancer=other", 404).getString("error"))
        .isEqualTo("no load balancer named 'other' listens on port " + port);
    assertThat(explain("&zone=zone-z", 400).getString("error")).startsWith("load balancer web is not in zone 'zone-z'");
    assertThat(explain("&path=nope", 400).getString("error"))
        .isEqualTo("path: 'nope' is not /path, absolute-form (http://host/path) or *");
    assertThat(explain("&header=nocolon", 400).getString("error")).contains("is not 'Name: value'");
    assertThat(explain("&source=host.example", 400).getString("error")).contains("is not an IP address");
    Http.Response noPort = http.get("127.0.0.1", gateway.controlPort(), "/ui/explain", Map.of());
    assertThat(noPort.status()).isEqualTo(400);
  }
}
