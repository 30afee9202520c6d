package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.PortWatch;
import io.fulcrum.testing.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A bad command line or configuration stops the packaged jar with exit code 2 and one line per
 * problem naming its key path, and nothing starts: no listener, no demo target, no control
 * plane, no data dir.
 */
class BadConfigIT {

  /** JVM start-up and validation only; generous for a busy machine. */
  private static final Duration EXIT_WITHIN = Duration.ofSeconds(15);

  @TempDir
  Path work;

  private final int listenerPort = Ports.free();
  private final int controlPort = Ports.free();
  private final int demoPort = Ports.free();
  private final List<AutoCloseable> cleanup = new ArrayList<>();

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable c : cleanup) {
      c.close();
    }
  }

  @Test
  void healthCheckIntervalAboveMaximum_exits2WithTheKeyPath() {
    String stderr = runExpectingExit2(config("""
        health-check: {path: /health, interval-seconds: 301}
        """, "/*"));

    assertThat(stderr).contains("has 1 problem; nothing was started")
        .contains("  target-groups[0].health-check.interval-seconds: 301 is above the maximum 300");
  }

  @Test
  void everyProblemIsReported_eachWithItsKeyPath() {
    String stderr = runExpectingExit2(config("""
        health-check: {interval-seconds: 301, timeout-seconds: 0}
            helth-check: {path: /}
        """, "/caret^") + """
          - name: second
            target-type: ip
            protocol: HTTPX
            port: 80
        """);

    assertThat(stderr).contains("fulcrum.yaml has 5 problems; nothing was started:");
    assertThat(problemLines(stderr)).satisfiesExactly(
        l -> assertThat(l).isEqualTo("target-groups[0].health-check.interval-seconds: 301 is above the maximum 300"),
        l -> assertThat(l).isEqualTo("target-groups[0].health-check.timeout-seconds: 0 is below the minimum 2"),
        l -> assertThat(l).startsWith("target-groups[0].helth-check: unknown key (expected one of: ")
            .contains("health-check"),
        l -> assertThat(l).startsWith("target-groups[1].protocol: 'HTTPX' is not one of: HTTP, HTTPS"),
        l -> assertThat(l).startsWith("load-balancers[0].listeners[0].rules[0].conditions[0].values[0]: '/caret^'"
            + " contains '^'"));
  }

  @Test
  void functionHandlerThatCannotBeLoaded_exits2WithTheFunctionsKeyPath() {
    String stderr = runExpectingExit2("functions:\n  orders: {handler: com.example.NoSuchHandler}\n"
        + config("", "/*"));

    assertThat(stderr).contains("has 1 problem; nothing was started")
        .contains("  functions.orders.handler: class 'com.example.NoSuchHandler' not found on the class path");
  }

  @Test
  void unreadableYaml_exits2AndSaysWhy() {
    String stderr = runExpectingExit2("control: {address: 127.0.0.1, port: [\n");

    assertThat(stderr).contains("fulcrum.yaml: cannot read the configuration");
  }

  @Test
  void badEnvironmentOverride_exits2WithTheKeyPathItSets() {
    Path config = write(config("", "/*"));
    String stderr = runExpectingExit2(FulcrumProcess.builder(work).env("FULCRUM_CONTROL__PORT", "not-a-port")
        .args("--config", config.toString()));

    assertThat(stderr).contains("  control.port: expected an integer, found 'not-a-port'");
  }

  @Test
  void unknownNetworkTransport_exits2NamingTheVariableAndItsValues() {
    Path config = write(config("", "/*"));
    String stderr = runExpectingExit2(FulcrumProcess.builder(work).env("FULCRUM_TRANSPORT", "dpdk")
        .args("--config", config.toString()));

    assertThat(stderr).contains("fulcrum: FULCRUM_TRANSPORT=dpdk: not a transport; use one of auto, io_uring, epoll, nio");
  }

  @Test
  void missingConfigFile_exits2WithAClearMessage() {
    Path missing = work.resolve("nowhere").resolve("fulcrum.yaml");
    String stderr = runExpectingExit2(FulcrumProcess.builder(work).args("--config", missing.toString()));

    assertThat(stderr).contains(missing + ": cannot read the configuration: the file does not exist");
  }

  @ParameterizedTest
  @ValueSource(strings = {"--bogus", "--instances 0", "--instances many", "--config"})
  void badCommandLine_exits2WithTheUsage(String argv) {
    String stderr = runExpectingExit2(FulcrumProcess.builder(work).args(argv.split(" ")));

    assertThat(stderr).startsWith("fulcrum: ").contains("usage: java -jar fulcrum.jar [--config PATH] [--instances N]");
  }

  /**
   * A valid config (a listener, a demo target, a target group) with {@code healthCheck} as the
   * group's health-check line(s) and {@code pathPattern} in a rule.
   */
  private String config(String healthCheck, String pathPattern) {
    return """
        control: {address: 127.0.0.1, port: %d}
        demo:
          targets:
            - {id: demo, address: 127.0.0.1, port: %d}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: web}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["%s"]}]
                    actions: [{type: fixed-response, status-code: "200"}]
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            %s
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(controlPort, demoPort, listenerPort, pathPattern, healthCheck.strip(), demoPort);
  }

  /** The indented problem lines that follow the summary line. */
  private static List<String> problemLines(String stderr) {
    return stderr.lines().filter(l -> l.startsWith("  ")).map(String::strip).toList();
  }

  private Path write(String yaml) {
    try {
      return Files.writeString(work.resolve("fulcrum.yaml"), yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private String runExpectingExit2(String yaml) {
    return runExpectingExit2(FulcrumProcess.builder(work).args("--config", write(yaml).toString()));
  }

  /** Starts the process, watching every port the config names, and checks it exits 2 having bound nothing. */
  private String runExpectingExit2(FulcrumProcess.Builder builder) {
    PortWatch watch = PortWatch.loopback(listenerPort, controlPort, demoPort);
    cleanup.add(watch);
    FulcrumProcess process = builder.start();
    cleanup.add(0, process);

    int exit = process.waitForExit(EXIT_WITHIN);
    long rounds = watch.rounds();
    watch.close();

    assertThat(exit).as("exit code\n%s", process.describe()).isEqualTo(Main.EXIT_CONFIG);
    assertThat(rounds).as("the ports were watched while the process ran").isPositive();
    assertThat(watch.accepted()).as("ports that accepted a connection\n%s", process.describe()).isEmpty();
    assertThat(process.stdout()).as("stdout").doesNotContain("Fulcrum is ready");
    assertThat(work.resolve("data")).as("the data dir").doesNotExist();
    return process.stderr();
  }
}
