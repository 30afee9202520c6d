package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.fulcrum.bus.HealthReport.Check;
import io.fulcrum.bus.HealthReport.TargetReport;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Ports;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Every result a check can have, provoked by a real target, and the health (state, reason code and
 * exact description) that {@code Fulcrum.health(arn)} reports for it (SPEC §2.2): the first
 * failure leaves a new target in {@code initial}, the second (unhealthy threshold 2) decides it.
 * A failed check is its reason code, not an ERROR line in the log.
 */
class HealthReasonCodeTest {

  private static final int INTERVAL = 10;
  private static final int TIMEOUT = 5;

  private final HealthHarness h = new HealthHarness();
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();

  private static Logger rootLogger() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }

  @BeforeEach
  void captureLog() {
    log.start();
    rootLogger().addAppender(log);
  }

  @AfterEach
  void stop() {
    rootLogger().detachAppender(log);
    h.close();
  }

  /** Starts the target of a row and returns the port it is registered on. */
  private interface Target extends ToIntFunction<HealthHarness> {
  }

  private static Arguments row(String name, Target target, TargetHealth expected, String description) {
    return Arguments.of(name, target, expected, description);
  }

  static Stream<Arguments> targets() {
    return Stream.of(
        row("answers 200", h -> h.backend("ok").port(), TargetHealth.HEALTHY, null),
        row("answers 404", h -> status(h, 404), TargetHealth.responseCodeMismatch(404),
            "Health checks failed with these codes: [404]"),
        row("answers 503", h -> status(h, 503), TargetHealth.responseCodeMismatch(503),
            "Health checks failed with these codes: [503]"),
        row("answers 302 (the matcher is 200)", h -> status(h, 302), TargetHealth.responseCodeMismatch(302),
            "Health checks failed with these codes: [302]"),
        row("accepts the connection and never answers", h -> h.scripted(ScriptedTarget.HANG).port(),
            TargetHealth.TIMEOUT, "Request timed out"),
        row("answers 200 one second after the timeout", h -> delayed(h, TIMEOUT + 1), TargetHealth.TIMEOUT,
            "Request timed out"),
        row("answers 200 one second before the timeout", h -> delayed(h, TIMEOUT - 1), TargetHealth.HEALTHY, null),
        row("refuses the connection (nothing listens)", h -> Ports.free(), TargetHealth.FAILED,
            "Health checks failed"),
        row("resets the connection (SO_LINGER 0)", h -> h.scripted(ScriptedTarget.RESET).port(),
            TargetHealth.FAILED, "Health checks failed"),
        row("answers with a malformed status line", h -> h.scripted(ScriptedTarget.raw("HTTP/1.1 OK\r\n\r\n")).port(),
            TargetHealth.FAILED, "Health checks failed"),
        row("answers with bytes that are not HTTP", h -> h.scripted(ScriptedTarget.raw("SSH-2.0-OpenSSH_9.2\r\n\r\n"))
            .port(), TargetHealth.FAILED, "Health checks failed"),
        row("answers with a head over 32 KB", h -> h.scripted(ScriptedTarget.raw("HTTP/1.1 200 OK\r\nX-Big: "
            + "a".repeat(33 * 1024) + "\r\nContent-Length: 0\r\n\r\n")).port(), TargetHealth.FAILED,
            "Health checks failed"),
        row("answers 200 and never sends the rest of its body", h -> h.scripted(ScriptedTarget.raw(
            "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc")).port(), TargetHealth.HEALTHY, null),
        row("closes the connection without answering", h -> h.scripted(ScriptedTarget.CLOSE).port(),
            TargetHealth.FAILED, "Health checks failed"));
  }

  private static int status(HealthHarness h, int code) {
    return h.backend("status-" + code, req -> req.response().setStatusCode(code).end()).port();
  }

  /**
   * A Vert.x target that answers 200 {@code seconds} of virtual time after the request arrives
   * (the delay runs on the same virtual clock as the check's timeout). A request it still holds on
   * an open connection counts as held on purpose.
   */
  private static int delayed(HealthHarness h, int seconds) {
    AtomicInteger held = new AtomicInteger();
    h.holding(held::get);
    return h.backend("delayed-" + seconds, req -> {
      held.incrementAndGet();
      AtomicInteger mine = new AtomicInteger(1);
      req.connection().closeHandler(v -> held.addAndGet(-mine.getAndSet(0)));
      h.time.setTimer(seconds * 1000L, id -> {
        held.addAndGet(-mine.getAndSet(0));
        req.response().end("late or not");
      });
    }).port();
  }

  private String yaml(int port) {
    return """
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: %d, timeout-seconds: %d, healthy-threshold-count: 3,
                           unhealthy-threshold-count: 2}
            targets:
              - {id: 127.0.0.1, port: %d}
        """.formatted(h.listenerPort, INTERVAL, TIMEOUT, port);
  }

  @ParameterizedTest(name = "a target that {0} is {2}")
  @MethodSource("targets")
  void checkResult_decidesStateReasonAndDescription(String name, Target target, TargetHealth expected,
      String description) {
    int port = target.applyAsInt(h);
    h.start(yaml(port));

    // Each advance covers one check (first one within 5 s of start) and its timeout.
    h.advanceSeconds(INTERVAL);
    TargetHealth afterOne = expected.healthy() ? TargetHealth.HEALTHY : TargetHealth.INITIAL_HEALTH_CHECKING;
    assertThat(h.health("tg", port)).isEqualTo(afterOne);
    h.advanceSeconds(INTERVAL);

    TargetReport report = h.report("tg").get("127.0.0.1:" + port);
    assertThat(report.health()).isEqualTo(expected);
    assertThat(report.health().description()).isEqualTo(description);
    assertThat(report.healthCheckPort()).isEqualTo(port);
    List<Check> checks = report.history().stream().filter(c -> !c.transition()).toList();
    assertThat(checks).as("checks decided").hasSize(2).allMatch(c -> c.passed() == expected.healthy());
    assertThat(List.copyOf(log.list)).filteredOn(e -> e.getLevel() == Level.ERROR)
        .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).as("ERROR lines").isEmpty();
  }
}
