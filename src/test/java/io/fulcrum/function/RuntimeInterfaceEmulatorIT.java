package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.function.handlers.GreetingHandler;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.condition.EnabledIf;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.utility.DockerImageName;
import org.testcontainers.utility.MountableFile;

/**
 * A real Lambda runtime behind Fulcrum: AWS's Lambda base image for Java, whose Runtime Interface
 * Emulator serves the Invoke API, runs {@link GreetingHandler} from its task directory as a remote
 * function, and every response equals the same handler's run in-process. Needs a Docker engine;
 * skipped, saying so, where there is none.
 */
@EnabledIf(value = "dockerAvailable", disabledReason = "skipped: no Docker engine is reachable here; this test runs"
    + " public.ecr.aws/lambda/java:17 (AWS's Lambda base image with its Runtime Interface Emulator) and needs Docker")
class RuntimeInterfaceEmulatorIT {

  static final DockerImageName IMAGE = DockerImageName.parse("public.ecr.aws/lambda/java:17");

  @TempDir
  static Path task;
  private static GenericContainer<?> lambda;
  private static Gateway gateway;
  private static int port;

  @BeforeAll
  static void start() throws IOException {
    // The task directory as Lambda's Java runtime reads it: classes at the top, libraries in lib/.
    copyClass(GreetingHandler.class);
    Path lib = Files.createDirectories(task.resolve("lib"));
    for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
      if (entry.contains("aws-lambda-java-events") || entry.contains("joda-time")) {
        Files.copy(Path.of(entry), lib.resolve(Path.of(entry).getFileName()), StandardCopyOption.REPLACE_EXISTING);
      }
    }
    lambda = new GenericContainer<>(IMAGE)
        .withCopyFileToContainer(MountableFile.forHostPath(task), "/var/task")
        .withCommand(GreetingHandler.class.getName() + "::handleRequest")
        .withExposedPorts(8080)
        .waitingFor(Wait.forListeningPort());
    lambda.start();
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          greeter: {handler: %s}
          emulated: {endpoint: "http://%s:%d", function-name: function, timeout-seconds: 30}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: local}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/remote/*"]}], actions: [{type: forward, target-group: remote}]}
        target-groups:
          - {name: local, target-type: lambda, targets: [{id: greeter}]}
          - {name: remote, target-type: lambda, targets: [{id: emulated}]}
        """.formatted(GreetingHandler.class.getName(), lambda.getHost(), lambda.getMappedPort(8080), port));
  }

  static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static void copyClass(Class<?> type) throws IOException {
    String file = type.getName().replace('.', '/') + ".class";
    Path target = task.resolve(file);
    Files.createDirectories(target.getParent());
    try (var in = type.getClassLoader().getResourceAsStream(file)) {
      Files.copy(in, target);
    }
  }

  @AfterAll
  static void stop() throws IOException {
    if (gateway != null) {
      gateway.close();
    }
    if (lambda != null) {
      lambda.stop();
    }
    try (Stream<Path> files = Files.walk(task)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
  }

  private static RawConnection.Response get(String uri) {
    try (RawConnection c = RawConnection.open(port)) {
      return c.send("GET " + uri + " HTTP/1.1\r\nHost: greeter.example.com\r\n\r\n").read();
    }
  }

  private static List<String> headers(RawConnection.Response r) {
    return r.headers().stream().map(h -> h[0].toLowerCase() + ": " + h[1]).sorted().toList();
  }

  @ParameterizedTest
  @ValueSource(strings = {"hello?name=Ada", "cookies", "teapot", "unknown"})
  void handlerInTheLambdaRuntime_answersLikeTheSameHandlerInProcess(String rest) {
    RawConnection.Response local = get("/local/" + rest);
    RawConnection.Response remote = get("/remote/" + rest);

    assertThat(remote.statusLine()).isEqualTo(local.statusLine());
    // The runtime's function name is "function"; everything else is the same.
    assertThat(headers(remote)).isEqualTo(headers(local).stream()
        .map(h -> h.equals("x-function: greeter") ? "x-function: function" : h).sorted().toList());
    assertThat(remote.body()).isEqualTo(local.body());
  }

  @ParameterizedTest
  @ValueSource(strings = {"fail"})
  void handlerThatThrowsInTheLambdaRuntime_gets502(String rest) {
    assertThat(get("/remote/" + rest).statusLine()).isEqualTo("HTTP/1.1 502 Bad Gateway");
  }
}
