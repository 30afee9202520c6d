package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.keys.KeyRingFile;
import io.fulcrum.sticky.KeyRing;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code java -jar fulcrum.jar rotate-stickiness-key}: the command as Main runs it. */
class RotateKeyCommandTest {

  @TempDir
  Path dir;

  private final ByteArrayOutputStream out = new ByteArrayOutputStream();
  private final ByteArrayOutputStream err = new ByteArrayOutputStream();

  private int run(Map<String, String> env, String... args) {
    return RotateKeyCommand.run(args, env, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
  }

  @Test
  void rotate_withADataDir_addsAKeyInFront_keepingTheOldOne() throws Exception {
    Path data = dir.resolve("data");
    KeyRing before = KeyRingFile.loadOrCreate(KeyRingFile.in(data), new java.security.SecureRandom());

    assertThat(run(Map.of(), "rotate-stickiness-key", "--data-dir", data.toString())).isZero();
    assertThat(err.toString(StandardCharsets.UTF_8)).isEmpty();

    KeyRing after = KeyRingFile.load(KeyRingFile.in(data));
    assertThat(after.keys()).hasSize(2);
    assertThat(after.keys().get(1)).isEqualTo(before.newest());
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("new key " + after.newest(), "keys kept: "
        + after.newest() + " " + before.newest());
  }

  @Test
  void rotate_findsTheDataDirInTheConfig_withEnvironmentOverrides() throws Exception {
    Path config = dir.resolve("fulcrum.yaml");
    Files.writeString(config, "data-dir: " + dir.resolve("from-file") + "\n");
    assertThat(run(Map.of(), "rotate-stickiness-key", "--config", config.toString())).isZero();
    assertThat(KeyRingFile.load(KeyRingFile.in(dir.resolve("from-file"))).keys()).hasSize(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).as("no ring was there: said, in case the data dir is wrong")
        .contains("there was no key ring at " + KeyRingFile.in(dir.resolve("from-file")) + ": a new one was made");

    Path overridden = dir.resolve("from-env");
    assertThat(run(Map.of("FULCRUM_DATA_DIR", overridden.toString()), "rotate-stickiness-key", "--config",
        config.toString())).isZero();
    assertThat(Files.exists(KeyRingFile.in(overridden))).isTrue();
  }

  @Test
  void badArguments_orABadConfig_exitWith2_andChangeNothing() throws Exception {
    assertThat(run(Map.of(), "rotate-stickiness-key", "--bogus")).isEqualTo(Main.EXIT_CONFIG);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("unknown or incomplete argument '--bogus'", "usage:");

    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, "data-dir: " + dir.resolve("never") + "\nreload: {scan-period-ms: 1}\n");
    assertThat(run(Map.of(), "rotate-stickiness-key", "--config", config.toString())).isEqualTo(Main.EXIT_CONFIG);
    assertThat(Files.exists(dir.resolve("never"))).isFalse();
  }
}
