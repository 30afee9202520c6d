package io.fulcrum.loadtest;

import static io.gatling.javaapi.core.CoreDsl.ByteArrayBody;
import static io.gatling.javaapi.core.CoreDsl.atOnceUsers;
import static io.gatling.javaapi.core.CoreDsl.details;
import static io.gatling.javaapi.core.CoreDsl.global;
import static io.gatling.javaapi.core.CoreDsl.rampUsers;
import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.header;
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
import java.util.SplittableRandom;
import java.util.stream.Collectors;

/**
 * HTTP/2 end to end: clients speak HTTP/2 over TLS (ALPN h2) to an HTTPS listener with the
 * self-signed certificate Fulcrum generates, and the target group has protocol version
 * {@code HTTP2}, so Fulcrum speaks HTTP/2 (h2c) to the targets too.
 *
 * <p>An HTTP2 group answers HTTP/1.x requests with 464 (SPEC §7.1), so a 200 proves the client's
 * side was HTTP/2; each target reports the protocol it was reached with, and the checks require
 * {@code HTTP_2}. Each virtual user sends its requests over one connection, alternating a GET and
 * a POST of a 32 KB body whose SHA-256 the target returns (the body arrived whole and unchanged).
 *
 * <p>Expected, exactly: every request succeeds ({@code users x requests x 2}), and round robin
 * spreads the requests of each connection over every target (a verdict request). Nothing here
 * asserts on timings.
 *
 * <p>Knobs: {@code -Dusers=50 -Drequests=20 -DrampSeconds=10}.
 */
public class Http2Simulation extends Simulation {

  static final int USERS = Integer.getInteger("users", 50);
  static final int REQUESTS = Integer.getInteger("requests", 20);
  static final int RAMP_SECONDS = Integer.getInteger("rampSeconds", 10);
  static final int TARGETS = 3;
  static final byte[] BODY = new byte[32 * 1024];
  static final String BODY_SHA256;

  static {
    new SplittableRandom(8).nextBytes(BODY);
    BODY_SHA256 = ControlledBackend.sha256(BODY);
  }

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
          - name: h2
            listeners: [{protocol: HTTPS, port: %d, default-actions: [{type: forward, target-group: h2}]}]
        target-groups:
          - name: h2
            target-type: ip
            protocol: HTTP
            protocol-version: HTTP2
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2,
                           unhealthy-threshold-count: 2}
            targets:
        %s
        """.formatted(port, ControlledBackend.yamlTargets(backends)), 2);
  }

  private final HttpProtocolBuilder protocol = http
      .baseUrl("https://127.0.0.1:" + port)
      .enableHttp2()
      .http2PriorKnowledge(Map.of("127.0.0.1:" + port, true))
      .userAgentHeader("Gatling (Fulcrum Http2Simulation)");

  private final ScenarioBuilder h2 = scenario("HTTP/2 client, HTTP/2 targets")
      .repeat(REQUESTS, "n").on(
          exec(http("GET over HTTP/2").get("/item/#{n}")
              .check(status().is(200), header("X-Backend-Protocol").is("HTTP_2"), header("X-Backend-Id").exists()))
          .exec(http("POST 32 KB over HTTP/2").post("/echo/#{n}").body(ByteArrayBody(BODY))
              .header("Content-Type", "application/octet-stream")
              .check(status().is(200), header("X-Backend-Protocol").is("HTTP_2"),
                  header("X-Body-Sha256").is(BODY_SHA256))));

  private final ScenarioBuilder verdicts = harness.everyBackendServed(backends, "no request reached",
      "verdict: every target served requests");

  private static io.gatling.javaapi.core.ChainBuilder exec(io.gatling.javaapi.http.HttpRequestActionBuilder request) {
    return io.gatling.javaapi.core.CoreDsl.exec(request);
  }

  {
    setUp(h2.injectOpen(rampUsers(USERS).during(Duration.ofSeconds(RAMP_SECONDS)))
        .andThen(verdicts.injectOpen(atOnceUsers(1))))
        .protocols(protocol)
        .assertions(
            global().failedRequests().count().is(0L),
            details("GET over HTTP/2").successfulRequests().count().is((long) USERS * REQUESTS),
            details("POST 32 KB over HTTP/2").successfulRequests().count().is((long) USERS * REQUESTS));
  }

  @Override
  public void after() {
    System.out.println("requests per target: " + backends.stream()
        .map(b -> b.id() + "=" + b.traffic()).collect(Collectors.joining(", ")));
    harness.close();
  }
}
