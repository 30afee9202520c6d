package io.fulcrum.function;

import static io.fulcrum.function.EventAssertions.assertSameEvent;
import static io.fulcrum.function.EventAssertions.golden;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.bus.HealthReport;
import io.fulcrum.function.handlers.HealthProbedHandler;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Health of Lambda targets (SPEC §1.2, §1.5, §2): off by default, the target is
 * {@code unavailable} ({@code Target.HealthCheckDisabled}), gets no health-check events and takes
 * traffic; on, the health-check event is sent every interval and the function's statusCode is
 * judged by the matcher through the usual state machine. On virtual time.
 */
class FunctionHealthTest {

  private final Vertx clients = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private Gateway gateway;
  private Http http;
  private int port;
  private String arn;

  @BeforeEach
  void reset() {
    HealthProbedHandler.reset();
    http = new Http(clients);
  }

  @AfterEach
  void stop() {
    http.close();
    if (gateway != null) {
      gateway.close();
    }
    clients.close();
  }

  private void start(String healthCheck) {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          probed: {handler: io.fulcrum.function.handlers.HealthProbedHandler}
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: fn}]}
        target-groups:
          - name: fn
            target-type: lambda
            %s
            targets: [{id: probed}]
        """.formatted(port, healthCheck), 1, time);
    arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
  }

  private TargetHealth health() {
    HealthReport r = Await.result(gateway.fulcrum().health(arn));
    assertThat(r.targets()).containsOnlyKeys("probed:0");
    return r.targets().get("probed:0").health();
  }

  /** Advances one interval, with every check's answer in before time moves on. */
  private void interval() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  @Test
  void checksOffByDefault_targetIsUnavailable_getsNoHealthEvents_andTakesTraffic() {
    start("");

    assertThat(health()).isEqualTo(TargetHealth.CHECKS_DISABLED);
    assertThat(health().state()).isEqualTo(TargetState.UNAVAILABLE);
    assertThat(health().reason()).isEqualTo("Target.HealthCheckDisabled");
    time.advance(Duration.ofMinutes(5));
    assertThat(HealthProbedHandler.HEALTH_EVENTS).isEmpty();
    assertThat(Await.result(gateway.fulcrum().health(arn)).targets().get("probed:0").history())
        .as("no check was made").isEmpty();

    Http.Response r = http.get(port, "/anything");
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("served");
  }

  @Test
  void checksOn_sendTheHealthCheckEvent_andAPassMakesTheTargetHealthy() {
    start("health-check: {enabled: true, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 2,"
        + " unhealthy-threshold-count: 2}");
    assertThat(health()).isEqualTo(TargetHealth.REGISTRATION_IN_PROGRESS);
    // Nothing healthy yet: the group fails open to its initial target.
    assertThat(http.get(port, "/").status()).isEqualTo(200);

    interval();

    assertThat(health()).isEqualTo(TargetHealth.HEALTHY);
    assertThat(HealthProbedHandler.HEALTH_EVENTS).hasSize(1);
    assertSameEvent(golden("health_check", Map.of("arn", arn)), HealthProbedHandler.HEALTH_EVENTS.peek());
    assertThat(http.get(port, "/").body()).isEqualTo("served");
  }

  @Test
  void checksOn_statusOutsideTheMatcher_makesTheTargetUnhealthyAtTheThreshold_andItRecovers() {
    start("health-check: {enabled: true, interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 2,"
        + " unhealthy-threshold-count: 2, path: /healthz, matcher: {http-code: \"200-299\"}}");
    interval();
    assertThat(health()).isEqualTo(TargetHealth.HEALTHY);
    assertThat(HealthProbedHandler.HEALTH_EVENTS.peek().getString("path")).isEqualTo("/healthz");

    HealthProbedHandler.HEALTH_STATUS.set(503);
    interval();
    assertThat(health()).as("one failure below the threshold").isEqualTo(TargetHealth.HEALTHY);
    interval();
    assertThat(health()).isEqualTo(TargetHealth.responseCodeMismatch(503));
    assertThat(health().description()).isEqualTo("Health checks failed with these codes: [503]");
    // Its only target is unhealthy: the group fails open, so requests still reach the function.
    assertThat(http.get(port, "/").body()).isEqualTo("served");

    HealthProbedHandler.HEALTH_STATUS.set(204);
    interval();
    assertThat(health().state()).isEqualTo(TargetState.UNHEALTHY);
    interval();
    assertThat(health()).isEqualTo(TargetHealth.HEALTHY);
    assertThat(HealthProbedHandler.HEALTH_EVENTS).hasSize(5);
  }

  @Test
  void checksOn_functionError_failsTheCheck() {
    start("health-check: {enabled: true, interval-seconds: 10, timeout-seconds: 5, unhealthy-threshold-count: 2}");
    HealthProbedHandler.HEALTH_STATUS.set(HealthProbedHandler.THROW);

    interval();
    interval();

    assertThat(health()).isEqualTo(TargetHealth.FAILED);
  }
}
