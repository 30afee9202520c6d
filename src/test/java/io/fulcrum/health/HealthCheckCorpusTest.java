package io.fulcrum.health;

import static io.fulcrum.health.ScriptedTarget.CLOSE;
import static io.fulcrum.health.ScriptedTarget.HANG;
import static io.fulcrum.health.ScriptedTarget.HOST_IS_ME;
import static io.fulcrum.health.ScriptedTarget.raw;
import static io.fulcrum.health.ScriptedTarget.rawThenClose;
import static io.fulcrum.health.ScriptedTarget.status;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.health.ScriptedTarget.Step;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The scenarios of Envoy's health-check fuzz corpus ({@code test/common/upstream/health_check_corpus}),
 * replayed against a real scripted target with ALB semantics (SPEC §1.5, §1.6, §2.2): each row says
 * what the target does with each check (one connection per check) and the health after each check.
 * Thresholds are the corpus's (healthy 2, unhealthy 2); a new target is healthy after one pass.
 *
 * <p>Left out, because ALB has no counterpart: {@code Degraded}/{@code http_Degraded} (Envoy's
 * {@code x-envoy-degraded} state); {@code LargeNanos}, {@code ZeroRetryInterval} and
 * {@code number_overflow_config} (interval and timeout values outside ALB's validated ranges, which
 * the config tests reject); {@code http_raise-go-away} and every {@code grpc_*} row (HTTP/2 GOAWAY and
 * gRPC checks: Fulcrum's ALB checks are HTTP/1.1 and the GRPC protocol version is not available yet);
 * every {@code tcp_*} row (TCP checks are for NLB target groups, not available yet); {@code
 * http_success_expected_response} and {@code custom_health_check} (ALB matches only the status code,
 * never a body, and has no check extensions); the {@code crash*}, {@code clusterfuzz-*}, {@code
 * testcase_*} and {@code many_actions} rows (crash reproducers of random action sequences that name
 * no behaviour).
 */
class HealthCheckCorpusTest {

  private static final String HEALTHY = "healthy";
  private static final String CHECKING = "initial/Elb.InitialHealthChecking";
  private static final String TIMED_OUT = "unhealthy/Target.Timeout";
  private static final String FAILED = "unhealthy/Target.FailedHealthChecks";

  private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n";

  private final HealthHarness h = new HealthHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  private static Arguments row(String name, List<Step> script, List<String> states) {
    return Arguments.of(name, script, states);
  }

  static Stream<Arguments> corpus() {
    return Stream.of(
        row("Success", List.of(status(200)), List.of(HEALTHY, HEALTHY, HEALTHY)),
        // Envoy starts the host as failed; a new ALB target needs one pass, even after a failure.
        row("SuccessStartFailedSuccessFirst", List.of(status(500), status(200)), List.of(CHECKING, HEALTHY)),
        row("Timeout", List.of(HANG), List.of(CHECKING, TIMED_OUT, TIMED_OUT)),
        row("TimeoutThenSuccess", List.of(HANG, status(200)), List.of(CHECKING, HEALTHY)),
        // The reason follows the latest failure.
        row("TimeoutThenRemoteClose", List.of(HANG, CLOSE), List.of(CHECKING, FAILED)),
        row("RemoteCloseBetweenChecks", List.of(rawThenClose(OK + "\r\n")), List.of(HEALTHY, HEALTHY, HEALTHY)),
        row("ConnectionClose", List.of(rawThenClose(OK + "Connection: close\r\n\r\n")), List.of(HEALTHY, HEALTHY)),
        row("Disconnect", List.of(CLOSE), List.of(CHECKING, FAILED)),
        // An HTTP status is three digits from 100 to 599: anything else is a malformed answer.
        row("http_status-over-600", List.of(raw("HTTP/1.1 601 Beyond\r\nContent-Length: 0\r\n\r\n")),
            List.of(CHECKING, FAILED)),
        row("http_status-under-100", List.of(raw("HTTP/1.1 99 Below\r\nContent-Length: 0\r\n\r\n")),
            List.of(CHECKING, FAILED)),
        row("http_out_of_range_status", List.of(raw("HTTP/1.1 1500 Out\r\nContent-Length: 0\r\n\r\n")),
            List.of(CHECKING, FAILED)),
        row("http_headers-with-connection", List.of(raw(OK + "Connection: close\r\n\r\n")), List.of(HEALTHY, HEALTHY)),
        row("http_headers-with-proxy-connection", List.of(raw(OK + "Proxy-Connection: close\r\n\r\n")),
            List.of(HEALTHY, HEALTHY)),
        // ALB sends Host: <target ip>:<port>, never a configured value.
        row("http_host_value", List.of(HOST_IS_ME), List.of(HEALTHY, HEALTHY)),
        // Not in the corpus: unhealthy at the unhealthy threshold, healthy again at the healthy threshold.
        row("SuccessThenTimeoutThenSuccess", List.of(status(200), HANG, HANG, status(200), status(200)),
            List.of(HEALTHY, HEALTHY, TIMED_OUT, TIMED_OUT, HEALTHY)));
  }

  @ParameterizedTest(name = "{0}: {2}")
  @MethodSource("corpus")
  void corpusScenario_endsInTheAlbState(String name, List<Step> script, List<String> states) {
    ScriptedTarget target = h.scripted(script);
    h.start("""
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /healthcheck, interval-seconds: 10, timeout-seconds: 2, healthy-threshold-count: 2,
                           unhealthy-threshold-count: 2}
            targets:
              - {id: 127.0.0.1, port: %d}
        """.formatted(h.listenerPort, target.port()));

    List<String> seen = new ArrayList<>();
    for (int i = 0; i < states.size(); i++) {
      // One interval: exactly one check (the first within 5 s of start) and its 2 s timeout.
      h.advanceSeconds(10);
      seen.add(h.state("tg", target.port()));
    }
    assertThat(seen).isEqualTo(states);
    assertThat(target.connections()).as("one new connection per check").isEqualTo(states.size());
  }
}
