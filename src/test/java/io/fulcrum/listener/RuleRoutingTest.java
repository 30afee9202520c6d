package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Http.Response;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Every condition and action through a running gateway with real backends. */
class RuleRoutingTest {

  private static final Vertx BACKENDS = TestVertx.create();
  private static Backend web;
  private static Backend api;
  private static Backend blue;
  private static Backend green;
  private static Gateway gateway;
  private static Http http;
  private static int port;

  @BeforeAll
  static void start() {
    web = Backend.start(BACKENDS, "web");
    api = Backend.start(BACKENDS, "api");
    blue = Backend.start(BACKENDS, "blue");
    green = Backend.start(BACKENDS, "green");
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        random-seed: 1234
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %1$d
                default-actions: [{type: forward, target-group: web}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/api/*"]}]
                    actions: [{type: forward, target-group: api}]
                  - priority: 2
                    conditions: [{field: host-header, values: ["*.shop.example.com"]}]
                    actions: [{type: fixed-response, status-code: 200, content-type: text/plain, message-body: shop}]
                  - priority: 3
                    conditions: [{field: http-header, http-header-name: X-Canary, values: ["yes*"]}]
                    actions: [{type: fixed-response, status-code: 202, content-type: application/json, message-body: '{"canary":true}'}]
                  - priority: 4
                    conditions: [{field: http-request-method, values: [DELETE]}]
                    actions: [{type: fixed-response, status-code: 403, message-body: no deletes}]
                  - priority: 5
                    conditions: [{field: query-string, values: [{key: lang, value: "fr*"}]}]
                    actions: [{type: fixed-response, status-code: 200, message-body: bonjour}]
                  - priority: 6
                    conditions: [{field: source-ip, values: ["127.0.0.2/32"]}]
                    actions: [{type: fixed-response, status-code: 200, message-body: from-two}]
                  - priority: 7
                    conditions: [{field: path-pattern, values: ["/old/*"]}]
                    actions: [{type: redirect, protocol: HTTPS, port: "443", path: "/new/#{path}", status-code: HTTP_302}]
                  - priority: 8
                    conditions: [{field: path-pattern, values: ["/split"]}]
                    actions:
                      - type: forward
                        target-groups: [{name: blue, weight: 30}, {name: green, weight: 70}]
                  - priority: 9
                    conditions: [{field: path-pattern, values: ["/nowhere"]}]
                    actions:
                      - type: forward
                        target-groups: [{name: blue, weight: 0}, {name: green, weight: 0}]
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %2$d}]}
          - {name: api, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %3$d}]}
          - {name: blue, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %4$d}]}
          - {name: green, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %5$d}]}
        """.formatted(port, web.port(), api.port(), blue.port(), green.port()));
    http = new Http(BACKENDS);
  }

  @AfterAll
  static void stop() {
    http.close();
    gateway.close();
    BACKENDS.close();
  }

  private static Response get(String uri, Map<String, String> headers) {
    return http.get("127.0.0.1", port, uri, headers);
  }

  @Test
  void defaultAction_forwardsWhenNoRuleMatches() {
    assertThat(get("/", Map.of()).body()).isEqualTo("web");
  }

  @Test
  void pathPattern_forwardsToItsGroup() {
    assertThat(get("/api/orders", Map.of()).body()).isEqualTo("api");
    assertThat(get("/API/orders", Map.of()).body()).isEqualTo("web");
  }

  @Test
  void pathPattern_seesThePathATargetReads_andTheTargetGetsItAsSent() {
    for (String uri : new String[] {"//api/orders", "/web/../api/orders", "/%61pi/orders", "/./api/orders?x=1"}) {
      assertThat(get(uri, Map.of()).body()).as(uri).isEqualTo("api");
      assertThat(api.lastRequest().getString("uri")).isEqualTo(uri);
    }
    assertThat(get("/%41PI/orders", Map.of()).body()).as("decoded, still case-sensitive").isEqualTo("web");
  }

  @Test
  void hostHeader_matchesIgnoringCaseAndPort() {
    Response r = get("/", Map.of("Host", "EU.Shop.Example.com:" + port));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("shop");
    assertThat(r.header("Server")).isEqualTo("awselb/2.0");
    assertThat(r.header("Content-Type")).isEqualTo("text/plain");
  }

  @Test
  void hostHeader_matchesAFullyQualifiedNameWithItsTrailingDot() {
    assertThat(get("/", Map.of("Host", "eu.shop.example.com.:" + port)).body()).isEqualTo("shop");
    assertThat(get("/", Map.of("Host", "eu.shop.example.com.")).body()).isEqualTo("shop");
  }

  @Test
  void httpHeader_matchesWithWildcard() {
    Response r = get("/", Map.of("X-Canary", "YES-please"));
    assertThat(r.status()).isEqualTo(202);
    assertThat(r.header("Content-Type")).isEqualTo("application/json");
    assertThat(r.body()).isEqualTo("{\"canary\":true}");
  }

  @Test
  void httpRequestMethod_matchesExactly() {
    Response r = http.send(HttpMethod.DELETE, "127.0.0.1", port, "/thing", Map.of(), null);
    assertThat(r.status()).isEqualTo(403);
    assertThat(r.body()).isEqualTo("no deletes");
  }

  @Test
  void queryString_matchesDecodedKeyAndValue() {
    assertThat(get("/?a=1&lang=FR-ca", Map.of()).body()).isEqualTo("bonjour");
    assertThat(get("/?l%61ng=fr", Map.of()).body()).isEqualTo("bonjour");
    assertThat(get("/?lang=en", Map.of()).body()).isEqualTo("web");
  }

  @Test
  void sourceIp_usesTheConnectionsAddress_notXForwardedFor() {
    assertThat(get("/", Map.of("X-Forwarded-For", "127.0.0.2")).body()).isEqualTo("web");
    try (Http fromTwo = new Http(BACKENDS, "127.0.0.2")) {
      assertThat(fromTwo.get("127.0.0.1", port, "/", Map.of()).body()).isEqualTo("from-two");
      // The zone-b node answers too; the rule looks at the client, not at the node.
      assertThat(fromTwo.get("127.0.0.2", port, "/", Map.of()).body()).isEqualTo("from-two");
    }
  }

  @Test
  void redirect_rewritesTheLocation() {
    Response r = get("/old/page?x=1", Map.of("Host", "Example.com"));
    assertThat(r.status()).isEqualTo(302);
    assertThat(r.statusMessage()).isEqualTo("Found");
    assertThat(r.header("Location")).isEqualTo("https://example.com:443/new/old/page?x=1");
  }

  @Test
  void weightedForward_spreadsWithinTolerance_over2000Requests() {
    Map<String, Integer> counts = new HashMap<>();
    int n = 2000;
    for (int i = 0; i < n; i++) {
      counts.merge(get("/split", Map.of()).body(), 1, Integer::sum);
    }
    // Standard deviation of a share over 2,000 draws is about 1 %; 4 points is 4 sigma.
    assertThat(counts.get("blue") / (double) n).isCloseTo(0.30, within(0.04));
    assertThat(counts.get("green") / (double) n).isCloseTo(0.70, within(0.04));
  }

  @Test
  void weightedForward_withEveryWeightZero_answers503() {
    Response r = get("/nowhere", Map.of());
    assertThat(r.status()).isEqualTo(503);
    assertThat(r.body()).contains("503 Service Temporarily Unavailable");
  }
}
