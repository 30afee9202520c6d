package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Resources;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * ALB's health check log ({@code health_check_logs.s3}), read from the gzip files a running
 * gateway writes under the data dir as ALB writes them to S3, on a virtual clock: one line per
 * check, its ten fields in ALB's order, with ALB's reason codes for checks that fail (an answer
 * with a 5xx status, another status, a refused connection, no answer in time), and a Lambda
 * target's checks; a load balancer without the log writes none.
 */
class HealthCheckLogTest {

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  @TempDir
  Path data;
  private Gateway gateway;
  private String lb;
  private final Map<String, Integer> ports = new java.util.HashMap<>();
  /** Checks the silent target holds: in flight until their timeout, which only the virtual clock brings. */
  private final AtomicInteger silentOpen = new AtomicInteger();

  @BeforeEach
  void start() {
    for (String status : List.of("200", "503", "404")) {
      ports.put(status, Backend.start(backends, "t" + status, "127.0.0.1",
          req -> req.response().setStatusCode(Integer.parseInt(status)).end()).port());
    }
    // Answers nothing to a check: it times out, on the virtual clock, and the prober closes its connection.
    ports.put("silent", Backend.start(backends, "silent", "127.0.0.1", req -> {
      silentOpen.incrementAndGet();
      req.connection().closeHandler(v -> silentOpen.decrementAndGet());
    }).port());
    ports.put("refused", Ports.free());
    String yaml = """
        data-dir: '%s'
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        functions:
          echo: {handler: io.fulcrum.demo.EchoEventFunction}
        load-balancers:
          - name: web
            zones: [zone-a, zone-b]
            attributes:
              health_check_logs.s3.enabled: "true"
              health_check_logs.s3.bucket: hc-logs
              health_check_logs.s3.prefix: team
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: app}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: [/fn]}],
                     actions: [{type: forward, target-group: fn}]}
          - name: quiet
            zones: [zone-a]
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: other}]}
        target-groups:
          - name: app
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 5}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-a}
          - name: fn
            target-type: lambda
            health-check: {enabled: true, interval-seconds: 10, timeout-seconds: 5}
            targets: [{id: echo}]
          - name: other
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {interval-seconds: 10}
            targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]
        """.formatted(data, Ports.free(), Ports.free(), ports.get("200"), ports.get("503"), ports.get("404"),
        ports.get("silent"), ports.get("refused"), ports.get("200"));
    gateway = Gateway.start(TestVertx.create(), yaml, 1, time);
    Resources resources = gateway.fulcrum().config().resources();
    lb = resources.loadBalancers().stream().filter(l -> l.name().equals("web")).findFirst().orElseThrow().arn();
  }

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    Await.result(backends.close());
  }

  /**
   * Moves the clock to the end of the current 5-minute period, health checks running on the way:
   * after each timer, every check in flight has its answer but those the silent target holds.
   */
  private void endPeriod() {
    long left = LogDestination.periodEnd(time.millis()) - time.millis();
    time.advance(Duration.ofMillis(left), () -> gateway.fulcrum().healthChecksInFlight() == silentOpen.get());
  }

  /** The complete log files, once {@code count} are there. */
  private List<Path> files(int count) {
    return LogFiles.await(data.resolve("s3"), count);
  }

  @Test
  void eachCheck_isALine_withAlbsFieldsAndReasonCodes_inTheFileOfItsPeriod() {
    endPeriod();

    List<Path> files = files(1);
    String id = lb.substring(lb.lastIndexOf('/') + 1);
    assertThat(data.relativize(files.get(0)).toString()).as("only the load balancer with the log writes one")
        .matches(Pattern.quote("s3/hc-logs/team/AWSLogs/000000000000/elasticloadbalancing/us-east-1/2026/01/01/"
            + "health_check_log_000000000000_elasticloadbalancing_us-east-1_app.web." + id
            + "_20260101T0005Z_127.0.0.1_") + "[a-z0-9]{8}\\.log\\.gz");
    List<String[]> lines = LogFiles.lines(files.get(0)).stream().map(l -> l.split(" ")).toList();
    // Every target checked about every 10 s for 5 minutes.
    Map<String, List<String[]>> byTarget = lines.stream().collect(Collectors.groupingBy(f -> f[3]));
    assertThat(byTarget).hasSize(6);
    byTarget.values().forEach(checks -> assertThat(checks).hasSizeBetween(29, 31));
    String elb = lb.substring(lb.indexOf("loadbalancer/") + "loadbalancer/".length());
    for (String[] f : lines) {
      assertThat(f).as(String.join(" ", f)).hasSize(10);
      assertThat(f[1]).matches("2026-01-01T00:0[0-4]:[0-5][0-9]\\.[0-9]{6}Z");
      assertThat(f[2]).matches("[0-9]+\\.[0-9]{3}");
      assertThat(f[8]).isEqualTo(elb);
      assertThat(f[9]).as("the first zone's node").isEqualTo("127.0.0.1");
    }
    assertThat(only(byTarget, "127.0.0.1:" + ports.get("200"))).containsExactly("http", "app", "PASS", "200", "-");
    assertThat(only(byTarget, "127.0.0.1:" + ports.get("503"))).containsExactly("http", "app", "FAIL", "503",
        "TargetError");
    assertThat(only(byTarget, "127.0.0.1:" + ports.get("404"))).containsExactly("http", "app", "FAIL", "404",
        "ResponseCodeMismatch");
    assertThat(only(byTarget, "127.0.0.1:" + ports.get("refused"))).containsExactly("http", "app", "FAIL", "-",
        "ConnectionReset");
    assertThat(only(byTarget, "127.0.0.1:" + ports.get("silent"))).containsExactly("http", "app", "FAIL", "-",
        "TimedOut");
    assertThat(byTarget.get("127.0.0.1:" + ports.get("silent"))).allSatisfy(f -> assertThat(f[2]).isEqualTo("5.000"));
    assertThat(only(byTarget, "arn:aws:lambda:us-east-1:000000000000:function:echo"))
        .containsExactly("lambda", "fn", "PASS", "200", "-");
  }

  /** The type, group, status, status code and reason of a target's checks, which must all agree. */
  private static List<String> only(Map<String, List<String[]>> byTarget, String target) {
    List<List<String>> distinct = byTarget.get(target).stream()
        .map(f -> Arrays.asList(f[0], f[4], f[5], f[6], f[7])).distinct().toList();
    assertThat(distinct).as(target).hasSize(1);
    return distinct.get(0);
  }
}
