package io.fulcrum.testing;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs an interop tool ({@code curl}, {@code h2load}, {@code python3}) to completion, from a test thread. */
public final class Tool {

  private Tool() {
  }

  /** What the tool did: its exit code and everything it printed (stdout and stderr together). */
  public record Result(int exitCode, String output) {
  }

  /** Runs {@code command} in {@code workDir}; fails the test when it runs past {@code timeout}. */
  public static Result run(Path workDir, Duration timeout, List<String> command) {
    try {
      Path out = Files.createTempFile(workDir, "tool", ".out");
      Process p = new ProcessBuilder(command).directory(workDir.toFile()).redirectErrorStream(true)
          .redirectOutput(out.toFile()).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
          .start();
      try {
        boolean done = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(done).as("%s finished within %s; it printed:%n%s", command, timeout, text).isTrue();
        return new Result(p.exitValue(), text);
      } finally {
        p.destroyForcibly();
        Files.deleteIfExists(out);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
