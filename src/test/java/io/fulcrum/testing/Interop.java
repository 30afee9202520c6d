package io.fulcrum.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/**
 * Interop tests run tools nobody here wrote ({@code /usr/bin/aws}, {@code curl}, {@code h2load},
 * {@code /usr/bin/python3} with grpcio or websockets). A missing tool skips the test with a clear
 * message, or fails it when {@code FULCRUM_REQUIRE_INTEROP=1} (as {@code .ci/run} sets).
 */
public final class Interop {

  private Interop() {
  }

  /**
   * Debian's {@code /usr/bin/python3} when it can import {@code module} (from
   * {@code debianPackage}); skips or fails the test as {@link #require} does otherwise.
   */
  public static Path python3With(String module, String debianPackage) {
    Path python = require("/usr/bin/python3", debianPackage);
    Tool.Result probe = Tool.run(Path.of("."), Duration.ofSeconds(30),
        List.of(python.toString(), "-c", "import " + module));
    if (probe.exitCode() != 0) {
      require("/usr/lib/python3/dist-packages/" + module + "/__init__.py", debianPackage);
    }
    return python;
  }

  /** The last line of a tool's output that is a JSON object (what the interop scripts print). */
  public static JsonObject lastJsonLine(Tool.Result result) {
    return new JsonObject(result.output().lines().filter(l -> l.startsWith("{")).reduce((a, b) -> b)
        .orElseThrow(() -> new AssertionError("no JSON line in\n" + result.output())));
  }

  /** The tool's path; skips or fails the test when it is not installed. */
  public static Path require(String path, String debianPackage) {
    Path p = Path.of(path);
    if (!Files.isExecutable(p)) {
      String msg = path + " is not installed (Debian package " + debianPackage + ")";
      if ("1".equals(System.getenv("FULCRUM_REQUIRE_INTEROP"))) {
        fail(msg + ", and FULCRUM_REQUIRE_INTEROP=1");
      }
      abort(msg + ": skipping this interop test");
    }
    return p;
  }
}
