package io.fulcrum.testing;

import static org.awaitility.Awaitility.await;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The packaged jar ({@code target/fulcrum.jar}) running as a child process, the way a user runs
 * it: {@code java [jvm flags] -jar target/fulcrum.jar [args]}. Stdout and stderr go to files in a
 * work directory (normally a {@code @TempDir}); {@code FULCRUM_DATA_DIR} points into it too.
 * {@link #close()} always leaves no process behind: SIGTERM, then SIGKILL if it does not go.
 *
 * <p>Used from the test thread only.
 */
public final class FulcrumProcess implements AutoCloseable {

  /** JVM start-up plus deployment on a busy two-core machine. */
  public static final Duration START_TIMEOUT = Duration.ofSeconds(60);

  private final Process process;
  private final Path stdout;
  private final Path stderr;
  private final List<String> command;
  private final HttpClient probe = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  private FulcrumProcess(Process process, Path stdout, Path stderr, List<String> command) {
    this.process = process;
    this.stdout = stdout;
    this.stderr = stderr;
    this.command = command;
  }

  /** The project root (failsafe runs with it as the working directory and sets {@code basedir}). */
  public static Path projectRoot() {
    return Path.of(System.getProperty("basedir", "")).toAbsolutePath();
  }

  /** The fat jar {@code mvn package} built; fails with a clear message when it is missing. */
  public static Path jar() {
    Path jar = projectRoot().resolve("target").resolve("fulcrum.jar");
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " does not exist: run `mvn package` first (failsafe runs after it)");
    }
    return jar;
  }

  /** Writes {@code yaml} to {@code workDir/fulcrum.yaml} and starts {@code --config} with it. */
  public static FulcrumProcess start(Path workDir, String yaml, String... jvmArgs) {
    Path config = workDir.resolve("fulcrum.yaml");
    try {
      Files.writeString(config, yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return builder(workDir).jvmArgs(jvmArgs).args("--config", config.toString()).start();
  }

  public static Builder builder(Path workDir) {
    return new Builder(workDir);
  }

  /**
   * What to run. Defaults: working directory = the project root, no arguments, and
   * {@code FULCRUM_DNS__PORT=0}: the DNS responder on a free UDP port (the banner names it), not
   * the fixed 8053 that processes of other tests or builds may hold. Pass
   * {@code env("FULCRUM_DNS__PORT", null)} to keep the file's port.
   */
  public static final class Builder {
    private final Path workDir;
    private Path directory = projectRoot();
    private final List<String> jvmArgs = new ArrayList<>();
    private final List<String> args = new ArrayList<>();
    private final Map<String, String> env = new LinkedHashMap<>();

    private Builder(Path workDir) {
      this.workDir = workDir;
      env.put("FULCRUM_DATA_DIR", workDir.resolve("data").toString());
      env.put("FULCRUM_DNS__PORT", "0");
    }

    public Builder jvmArgs(String... flags) {
      jvmArgs.addAll(List.of(flags));
      return this;
    }

    /** Arguments after {@code -jar fulcrum.jar}. */
    public Builder args(String... a) {
      args.addAll(List.of(a));
      return this;
    }

    /** An environment variable of the child ({@code null} removes it). */
    public Builder env(String name, String value) {
      env.put(name, value);
      return this;
    }

    /** The child's working directory. */
    public Builder directory(Path dir) {
      directory = dir;
      return this;
    }

    public FulcrumProcess start() {
      List<String> cmd = new ArrayList<>();
      cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
      cmd.addAll(jvmArgs);
      cmd.add("-jar");
      cmd.add(jar().toString());
      cmd.addAll(args);
      Path out = workDir.resolve("stdout.txt");
      Path err = workDir.resolve("stderr.txt");
      ProcessBuilder pb = new ProcessBuilder(cmd)
          .directory(directory.toFile())
          .redirectOutput(out.toFile())
          .redirectError(err.toFile())
          .redirectInput(ProcessBuilder.Redirect.from(nullDevice()));
      // Only the overrides a test asks for: none inherited from whoever runs the build.
      pb.environment().keySet().removeIf(k -> k.startsWith("FULCRUM_"));
      env.forEach((k, v) -> {
        if (v == null) {
          pb.environment().remove(k);
        } else {
          pb.environment().put(k, v);
        }
      });
      try {
        return new FulcrumProcess(pb.start(), out, err, List.copyOf(cmd));
      } catch (IOException e) {
        throw new UncheckedIOException("cannot start " + cmd, e);
      }
    }

    private static File nullDevice() {
      return new File(System.getProperty("os.name").startsWith("Windows") ? "NUL" : "/dev/null");
    }
  }

  public String stdout() {
    return read(stdout);
  }

  public String stderr() {
    return read(stderr);
  }

  public long pid() {
    return process.pid();
  }

  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Waits until {@code GET http://127.0.0.1:<controlPort>/health/ready} answers 200; fails at
   * once, with the process's output, when the process exits first.
   */
  public FulcrumProcess waitReady(int controlPort) {
    URI ready = URI.create("http://127.0.0.1:" + controlPort + "/health/ready");
    await("Fulcrum ready at " + ready).atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(100))
        .failFast("the process exited before it was ready", () -> {
          if (!process.isAlive()) {
            throw new AssertionError("the process exited with " + process.exitValue() + " before it was ready\n"
                + describe());
          }
        })
        .until(() -> status(ready) == 200);
    return this;
  }

  /** Waits until stdout contains {@code text} (e.g. the banner's last lines). */
  public FulcrumProcess waitForStdout(String text) {
    await("stdout to contain '" + text + "'").atMost(START_TIMEOUT).pollInterval(Duration.ofMillis(100))
        .failFast("the process exited first", () -> {
          if (!process.isAlive() && !stdout().contains(text)) {
            throw new AssertionError("the process exited with " + process.exitValue() + "\n" + describe());
          }
        })
        .until(() -> stdout().contains(text));
    return this;
  }

  /**
   * The status of {@code GET uri}, or -1 when nothing answers (connection refused or reset).
   */
  public int status(URI uri) {
    try {
      return probe.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET().build(),
          HttpResponse.BodyHandlers.discarding()).statusCode();
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Sends SIGTERM ({@link Process#destroy()} on Linux), as {@code kill PID} or Kubernetes does. */
  public void sigterm() {
    process.destroy();
  }

  /**
   * SIGKILL ({@link Process#destroyForcibly()}), as {@code kill -9}: no shutdown hook runs, nothing
   * is flushed. Returns once the process is gone.
   */
  public void kill() {
    process.destroyForcibly();
    waitForExit(Duration.ofSeconds(30));
  }

  /** Waits for the process to exit and returns its exit code; fails when it is still running after {@code timeout}. */
  public int waitForExit(Duration timeout) {
    try {
      return process.onExit().get(timeout.toMillis(), TimeUnit.MILLISECONDS).exitValue();
    } catch (TimeoutException e) {
      throw new AssertionError("the process is still running after " + timeout.toSeconds() + " s\n" + describe());
    } catch (ExecutionException e) {
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The exit code; fails when the process is still running. */
  public int exitCode() {
    if (process.isAlive()) {
      throw new AssertionError("the process is still running\n" + describe());
    }
    return process.exitValue();
  }

  /** The command line and everything the process printed, for failure messages. */
  public String describe() {
    return "command: " + String.join(" ", command) + "\n--- stdout ---\n" + stdout() + "\n--- stderr ---\n" + stderr();
  }

  /** SIGTERM, then SIGKILL after 20 s; returns once the process is gone. Safe to call twice. */
  @Override
  public void close() {
    if (!process.isAlive()) {
      return;
    }
    process.destroy();
    try {
      if (!process.waitFor(20, TimeUnit.SECONDS)) {
        process.destroyForcibly();
        process.waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      process.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private static String read(Path p) {
    try {
      return Files.exists(p) ? Files.readString(p, StandardCharsets.UTF_8) : "";
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
