package io.fulcrum.loadtest;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.rampUsers;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.header;
import static io.gatling.javaapi.http.HttpDsl.headerRegex;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * HTTP/1.1 keep-alive browsing through a target group with {@code lb_cookie} stickiness.
 *
 * <p>Each virtual user keeps its own connections and cookie jar, as a browser does. Its first
 * page is placed by round robin and answered with an {@code AWSALB} cookie; each of its next
 * pages must come from the same target ({@code X-Backend-Id} equal to the first one's), or the
 * request fails. Fulcrum runs two listener verticles, so a cookie sealed on one event loop is
 * opened on another.
 *
 * <p>Expected, exactly: every request succeeds ({@code users x (1 + pages)} requests, none
 * failed), every session stays on its first target, and with round robin every target gets
 * sessions (a verdict request). Nothing here asserts on timings.
 *
 * <p>Knobs: {@code -Dusers=200 -Dpages=20 -DrampSeconds=20}.
 */
public class StickyBrowsingSimulation extends Simulation {

  static final int USERS = Integer.getInteger("users", 200);
  static final int PAGES = Integer.getInteger("pages", 20);
  static final int RAMP_SECONDS = Integer.getInteger("rampSeconds", 20);
  static final int TARGETS = 4;

  private final Vertx vertx = Vertx.vertx();
  private final List<ControlledBackend> backends = new ArrayList<>();
  private final Map<String, AtomicInteger> sessionsPerTarget = new ConcurrentHashMap<>();
  private final int port = Harness.freePort();
  private final Harness harness;

  {
    for (int i = 1; i <= TARGETS; i++) {
      backends.add(ControlledBackend.start(vertx, "t" + i));
    }
    harness = Harness.start(vertx, """
        data-dir: target/gatling-data
        reload: {enabled: false}
        load-balancers:
          - name: sticky
            listeners: [{protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: web}]}]
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2,
                           unhealthy-threshold-count: 2}
            attributes:
              stickiness.enabled: "true"
              stickiness.type: lb_cookie
              stickiness.lb_cookie.duration_seconds: "3600"
            targets:
        %s
        """.formatted(port, ControlledBackend.yamlTargets(backends)), 2);
  }

  private final HttpProtocolBuilder protocol = http
      .baseUrl("http://127.0.0.1:" + port)
      .acceptHeader("text/plain")
      .userAgentHeader("Gatling (Fulcrum StickyBrowsingSimulation)");

  private final ScenarioBuilder browse = scenario("browse with lb_cookie stickiness")
      .exec(http("first page").get("/")
          .check(status().is(200),
              header("X-Backend-Id").saveAs("target"),
              headerRegex("Set-Cookie", "^AWSALB=[A-Za-z0-9_-]+;").exists()))
      .exec(session -> {
        sessionsPerTarget.computeIfAbsent(session.getString("target"), k -> new AtomicInteger()).incrementAndGet();
        return session;
      })
      .repeat(PAGES, "page").on(
          pause(Duration.ofMillis(20), Duration.ofMillis(80))
              .exec(http("next page (same target)").get("/page/#{page}")
                  .check(status().is(200), header("X-Backend-Id").isEL("#{target}"))));

  private final ScenarioBuilder verdicts = scenario("verdicts")
      .exec(session -> {
        List<String> missing = backends.stream().map(ControlledBackend::id)
            .filter(id -> !sessionsPerTarget.containsKey(id)).toList();
        harness.verdict("spread", missing.isEmpty() ? null
            : "no session started on " + missing + " (sessions per target: " + sessionsPerTarget + ")");
        return session;
      })
      .exec(http("verdict: every target got sessions").get(harness.verdictUrl("spread")).check(status().is(200)));

  {
    setUp(browse.injectOpen(rampUsers(USERS).during(Duration.ofSeconds(RAMP_SECONDS)))
        .andThen(verdicts.injectOpen(atOnceUsers(1))))
        .protocols(protocol)
        .assertions(
            global().failedRequests().count().is(0L),
            details("first page").successfulRequests().count().is((long) USERS),
            details("next page (same target)").successfulRequests().count().is((long) USERS * PAGES));
  }

  @Override
  public void after() {
    System.out.println("sessions per target: " + sessionsPerTarget);
    harness.close();
  }
}
