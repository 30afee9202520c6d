package io.fulcrum.testing;

import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.abort;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Interop tests run tools nobody here wrote ({@code /usr/bin/aws}, {@code curl}, {@code h2load},
 * {@code /usr/bin/python3} with grpcio). A missing tool skips the test with a clear message, or
 * fails it when {@code FULCRUM_REQUIRE_INTEROP=1} (as {@code .ci/run} sets).
 */
public final class Interop {

  private Interop() {
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
