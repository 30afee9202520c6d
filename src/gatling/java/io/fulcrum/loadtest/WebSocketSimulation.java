package io.fulcrum.loadtest;

import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.bodyString;
import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.core.CoreDsl.exec;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.rampUsers;
import static io.gatling.javaapi.core.CoreDsl.regex;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;
import static io.gatling.javaapi.http.HttpDsl.ws;

import io.gatling.javaapi.core.ScenarioBuilder;
import io.gatling.javaapi.core.Simulation;
import io.gatling.javaapi.http.HttpProtocolBuilder;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * WebSockets through an HTTP listener: each virtual user opens a WebSocket (the upgrade goes to a
 * target by round robin), reads the target's greeting, which names it, sends its messages one
 * after another and checks that each comes back from that same target, then closes. Many tunnels
 * are open at once, each pinned to the target that accepted its upgrade.
 *
 * <p>Expected, exactly: every connect, greeting and echo succeeds ({@code users x messages} echoes,
 * each from the greeting's target), and the upgrades are spread over every target (a verdict
 * request). Nothing here asserts on timings.
 *
 * <p>Knobs: {@code -Dusers=200 -Dmessages=50 -DrampSeconds=10 -DpauseMillis=100}.
 */
public class WebSocketSimulation extends Simulation {

  static final int USERS = Integer.getInteger("users", 200);
  static final int MESSAGES = Integer.getInteger("messages", 50);
  static final int RAMP_SECONDS = Integer.getInteger("rampSeconds", 10);
  static final int TARGETS = 3;
  /** Between a user's messages: with the defaults, about 100 tunnels are open at once. */
  static final Duration PAUSE = Duration.ofMillis(Integer.getInteger("pauseMillis", 100));

  private final Vertx vertx = Vertx.vertx();
  private final List<ControlledBackend> backends = new ArrayList<>();
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
          - name: ws
            listeners: [{protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: ws}]}]
        target-groups:
          - name: ws
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2,
                           unhealthy-threshold-count: 2}
            targets:
        %s
        """.formatted(port, ControlledBackend.yamlTargets(backends)), 2);
  }

  private final HttpProtocolBuilder protocol = http
      .baseUrl("http://127.0.0.1:" + port)
      .wsBaseUrl("ws://127.0.0.1:" + port)
      .userAgentHeader("Gatling (Fulcrum WebSocketSimulation)");

  private final ScenarioBuilder chat = scenario("WebSocket chat")
      .exec(ws("connect").connect("/chat")
          .await(Duration.ofSeconds(10)).on(ws.checkTextMessage("greeting")
              .check(regex("connected to (t\\d)").saveAs("target"))))
      .repeat(MESSAGES, "i").on(
          exec(ws("send").sendText("message #{i}")
              .await(Duration.ofSeconds(10)).on(ws.checkTextMessage("echo")
                  .check(bodyString().isEL("#{target}: message #{i}"))))
              .pause(PAUSE))
      .exec(ws("close").close());

  private final ScenarioBuilder verdicts = harness.everyBackendServed(backends, "no WebSocket reached",
      "verdict: every target took WebSockets");

  {
    setUp(chat.injectOpen(rampUsers(USERS).during(Duration.ofSeconds(RAMP_SECONDS)))
        .andThen(verdicts.injectOpen(atOnceUsers(1))))
        .protocols(protocol)
        .assertions(
            global().failedRequests().count().is(0L),
            details("greeting").successfulRequests().count().is((long) USERS),
            details("echo").successfulRequests().count().is((long) USERS * MESSAGES));
  }

  @Override
  public void after() {
    System.out.println("WebSockets per target: " + backends.stream()
        .map(b -> b.id() + "=" + b.traffic()).collect(Collectors.joining(", ")));
    harness.close();
  }
}
