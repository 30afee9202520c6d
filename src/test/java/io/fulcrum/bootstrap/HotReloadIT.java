package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The packaged jar watches its config file: a valid edit applies without a restart, an invalid one is refused. */
class HotReloadIT {

  @TempDir
  Path work;

  private final int listenerPort = Ports.free();
  private final int controlPort = Ports.free();
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private FulcrumProcess fulcrum;

  @BeforeEach
  void start() {
    fulcrum = FulcrumProcess.start(work, config(listenerPort, "first"));
    fulcrum.waitReady(controlPort);
  }

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
  }

  @Test
  void validEdit_appliesWithoutARestart() throws Exception {
    long pid = fulcrum.pid();
    assertThat(body()).isEqualTo("first");

    Files.writeString(work.resolve("fulcrum.yaml"), config(listenerPort, "second"));

    await("the edited answer").atMost(Duration.ofSeconds(20)).until(this::body, "second"::equals);
    assertThat(fulcrum.pid()).isEqualTo(pid);
    assertThat(fulcrum.isAlive()).isTrue();
  }

  @Test
  void invalidEdit_isLoggedWithItsKeyPath_andTheRunningConfigurationStays() throws Exception {
    Files.writeString(work.resolve("fulcrum.yaml"), config(70000, "second"));

    await("the problem in the log").atMost(Duration.ofSeconds(20))
        .until(() -> fulcrum.stderr().contains("load-balancers[0].listeners[0].port: 70000 is above the maximum 65535"));
    assertThat(fulcrum.stderr()).contains("changed but is invalid; the running configuration stays");
    assertThat(body()).isEqualTo("first");
  }

  private String config(int port, String answer) {
    return """
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: true, scan-period-ms: 100}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: fixed-response, status-code: "200", message-body: "%s"}]
        """.formatted(controlPort, port, answer);
  }

  private String body() throws IOException, InterruptedException {
    HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listenerPort + "/"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }
}
