package io.fulcrum.loadtest;

import static io.gatling.javaapi.core.CoreDsl.asLongAs;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.pause;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.header;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.fulcrum.model.TargetState;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Targets that fail and recover under load, with exact expectations. ALB does not retry: a
 * request in flight to a target that dies, and every request routed to it until its health
 * checks take it out of rotation, gets an ELB 502. So the simulation runs two target groups of
 * three targets each, with steady traffic to both (health checks every 5 s, thresholds 2):
 *
 * <ul>
 *   <li><b>planned</b> ({@code /planned/...}): target p2 starts failing its health checks while it
 *       still serves traffic; once Fulcrum has taken it out of rotation (the health checker says
 *       unhealthy and every listener routes by a snapshot that says so) it is stopped gracefully,
 *       restarted 5 s later with passing checks, and comes back after two of them. Expected:
 *       <b>no failed request at all</b>.</li>
 *   <li><b>crash</b> ({@code /crash/...}): target c2 dies at once (its connections close, requests in
 *       flight included), is taken out of rotation by its failing checks, restarted, and comes
 *       back. Expected: every response is a 200, except ELB 502s ({@code Server: awselb/2.0}) for
 *       requests sent between the crash and the moment every listener stopped routing to c2;
 *       a 502 before or after that window fails the request. The window is opened 1 s before the
 *       crash, so that requests already in flight when c2 dies are inside it.</li>
 * </ul>
 * Verdict requests check the timeline itself: each target left and re-entered the rotation within
 * 40 s, served requests again once back, and the crash did produce 502s (round robin keeps sending
 * c2 its share until its checks fail, so it must). Nothing here asserts on timings of requests.
 *
 * <p>Knobs: {@code -Dclients=10} virtual users per group, each sending a request every ~50 ms.
 */
public class TargetFailureSimulation extends Simulation {

  static final int CLIENTS = Integer.getInteger("clients", 10);
  static final long STATE_TIMEOUT_MILLIS = 40_000;
  static final int BEFORE = 0;
  static final int WINDOW = 1;
  static final int AFTER = 2;

  private final Vertx vertx = Vertx.vertx();
  private final List<ControlledBackend> planned = new ArrayList<>();
  private final List<ControlledBackend> crash = new ArrayList<>();
  private final int port = Harness.freePort();
  private final Harness harness;
  private final AtomicBoolean timelineDone = new AtomicBoolean();
  private final AtomicInteger crashPhase = new AtomicInteger(BEFORE);
  private final AtomicLong crash502 = new AtomicLong();
  private final AtomicLong p2Back = new AtomicLong(Long.MAX_VALUE);
  private final AtomicLong c2Back = new AtomicLong(Long.MAX_VALUE);

  {
    for (int i = 1; i <= 3; i++) {
      planned.add(ControlledBackend.start(vertx, "p" + i));
      crash.add(ControlledBackend.start(vertx, "c" + i));
    }
    harness = Harness.start(vertx, """
        data-dir: target/gatling-data
        reload: {enabled: false}
        load-balancers:
          - name: failures
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: fixed-response, status-code: 404, content-type: text/plain, message-body: "no route"}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/planned/*"]}],
                     actions: [{type: forward, target-group: planned}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/crash/*"]}],
                     actions: [{type: forward, target-group: crash}]}
        target-groups:
          - name: planned
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2,
                           unhealthy-threshold-count: 2}
            attributes: {deregistration_delay.timeout_seconds: 0}
            targets:
        %s
          - name: crash
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2,
                           unhealthy-threshold-count: 2}
            attributes: {deregistration_delay.timeout_seconds: 0}
            targets:
        %s
        """.formatted(port, ControlledBackend.yamlTargets(planned), ControlledBackend.yamlTargets(crash)), 2);
  }

  /** The timeline, run on Vert.x while the traffic flows. */
  private Future<Void> timeline() {
    ControlledBackend p2 = planned.get(1);
    ControlledBackend c2 = crash.get(1);
    List<Supplier<Future<?>>> steps = List.of(
        () -> harness.delay(5_000),
        () -> {
          p2.failHealthChecks(true);
          return expect("planned-out", "planned", p2, TargetState.UNHEALTHY,
              "p2 left the rotation after failing its checks");
        },
        p2::stop,
        () -> harness.delay(5_000),
        () -> {
          p2.failHealthChecks(false);
          return p2.start();
        },
        () -> expect("planned-back", "planned", p2, TargetState.HEALTHY, "p2 came back after restarting")
            .onComplete(ar -> p2Back.set(p2.traffic())),
        () -> {
          crashPhase.set(WINDOW);
          return harness.delay(1_000);
        },
        c2::crash,
        () -> expect("crash-out", "crash", c2, TargetState.UNHEALTHY, "c2 left the rotation after crashing")
            .onComplete(ar -> crashPhase.set(AFTER)),
        () -> harness.delay(5_000),
        c2::start,
        () -> expect("crash-back", "crash", c2, TargetState.HEALTHY, "c2 came back after restarting")
            .onComplete(ar -> c2Back.set(c2.traffic())),
        () -> harness.delay(5_000));
    return Harness.sequence(steps).onComplete(ar -> {
      harness.verdict("crash-502s", crash502.get() > 0 ? null : "the crash produced no 502 (expected some)");
      harness.verdict("serve-again", p2.traffic() > p2Back.get() && c2.traffic() > c2Back.get() ? null
          : "after coming back, p2 served " + (p2.traffic() - p2Back.get()) + " and c2 " + (c2.traffic() - c2Back.get())
              + " requests (expected some each)");
      timelineDone.set(true);
    });
  }

  private Future<Boolean> expect(String verdict, String group, ControlledBackend b, TargetState state, String what) {
    long t0 = System.currentTimeMillis();
    return harness.awaitRouted(group, b.port(), state, STATE_TIMEOUT_MILLIS).onSuccess(ok -> harness.verdict(verdict,
        ok ? null : what + ": not seen within " + STATE_TIMEOUT_MILLIS / 1000 + " s"))
        .onSuccess(ok -> System.out.printf("%s: %s after %d ms%n", what, ok ? "done" : "NOT done",
            System.currentTimeMillis() - t0));
  }

  private final HttpProtocolBuilder protocol = http
      .baseUrl("http://127.0.0.1:" + port)
      .userAgentHeader("Gatling (Fulcrum TargetFailureSimulation)");

  private final ScenarioBuilder plannedTraffic = scenario("traffic to the planned group")
      .asLongAs(session -> !timelineDone.get()).on(
          exec(http("planned: every request succeeds").get("/planned/item")
              .check(status().is(200), header("X-Backend-Id").exists()))
              .pause(Duration.ofMillis(30), Duration.ofMillis(70)));

  private final ScenarioBuilder crashTraffic = scenario("traffic to the crash group")
      .asLongAs(session -> !timelineDone.get()).on(
          exec(session -> session.set("phase", crashPhase.get()))
              .exec(http("crash: 200, or an ELB 502 inside the crash window").get("/crash/item")
                  .check(status().in(200, 502).saveAs("status"))
                  .checkIf((response, session) -> response.status().code() == 502)
                  .then(header("Server").is("awselb/2.0"))
                  // A 502 outside the window fails the request (it cannot be a 200 then).
                  .checkIf((response, session) -> response.status().code() == 502 && session.getInt("phase") != WINDOW)
                  .then(status().is(200)))
              .exec(session -> {
                if (session.contains("status") && session.getInt("status") == 502) {
                  crash502.incrementAndGet();
                }
                return session.remove("status");
              })
              .pause(Duration.ofMillis(30), Duration.ofMillis(70)));

  private final ScenarioBuilder operator = scenario("operator: fail and recover targets")
      .exec(session -> {
        vertx.runOnContext(v -> timeline());
        return session;
      })
      .asLongAs(session -> !timelineDone.get()).on(pause(Duration.ofMillis(500)))
      .exec(verdict("planned-out", "verdict: p2 left the rotation within 40 s of failing its checks"))
      .exec(verdict("planned-back", "verdict: p2 came back within 40 s of restarting"))
      .exec(verdict("crash-out", "verdict: c2 left the rotation within 40 s of crashing"))
      .exec(verdict("crash-back", "verdict: c2 came back within 40 s of restarting"))
      .exec(verdict("crash-502s", "verdict: the crash produced ELB 502s"))
      .exec(verdict("serve-again", "verdict: p2 and c2 served requests again once back"));

  private io.gatling.javaapi.http.HttpRequestActionBuilder verdict(String name, String label) {
    return http(label).get(harness.verdictUrl(name)).check(status().is(200));
  }

  {
    setUp(
        operator.injectOpen(atOnceUsers(1)),
        plannedTraffic.injectOpen(atOnceUsers(CLIENTS)),
        crashTraffic.injectOpen(atOnceUsers(CLIENTS)))
        .protocols(protocol)
        .assertions(
            global().failedRequests().count().is(0L),
            details("planned: every request succeeds").failedRequests().count().is(0L),
            details("crash: 200, or an ELB 502 inside the crash window").failedRequests().count().is(0L));
  }

  @Override
  public void after() {
    System.out.println("crash group: " + crash502.get() + " ELB 502s inside the crash window");
    System.out.println("planned group traffic: " + planned.stream().map(b -> b.id() + "=" + b.traffic())
        .collect(Collectors.joining(", ")) + "; crash group traffic: "
        + crash.stream().map(b -> b.id() + "=" + b.traffic()).collect(Collectors.joining(", ")));
    harness.close();
  }
}
