package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code FULCRUM_*} environment variables override the config file's keys in the packaged jar. */
class EnvOverrideIT {

  @TempDir
  Path work;

  private final int filePort = Ports.free();
  private final int envPort = Ports.free();
  private FulcrumProcess fulcrum;

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
  }

  @Test
  void fulcrumControlPort_overridesControlPortOfTheFile() {
    fulcrum = start(FulcrumProcess.builder(work).env("FULCRUM_CONTROL__PORT", Integer.toString(envPort)));

    fulcrum.waitReady(envPort);

    assertThat(fulcrum.status(URI.create("http://127.0.0.1:" + filePort + "/health/ready")))
        .as("nothing answers on the file's control port").isEqualTo(-1);
    assertThat(fulcrum.stdout()).contains("control plane  http://127.0.0.1:" + envPort + "/health/ready");
  }

  @Test
  void fulcrumDataDir_decidesWhereTheDataDirIsCreated() {
    Path dataDir = work.resolve("elsewhere").resolve("state");
    fulcrum = start(FulcrumProcess.builder(work).env("FULCRUM_DATA_DIR", dataDir.toString()));

    fulcrum.waitReady(filePort);

    assertThat(dataDir).isDirectory();
    assertThat(work.resolve("data")).doesNotExist();
  }

  private FulcrumProcess start(FulcrumProcess.Builder builder) {
    try {
      Path config = Files.writeString(work.resolve("fulcrum.yaml"), """
          control: {address: 127.0.0.1, port: %d}
          reload: {enabled: false}
          """.formatted(filePort));
      return builder.directory(work).args("--config", config.toString()).start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
