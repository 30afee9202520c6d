package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A valid config that cannot start (a port already taken) stops the packaged jar with exit code 1
 * and a message that says which address is taken, without the banner.
 */
class StartupFailureIT {

  @TempDir
  Path work;

  private final int listenerPort = Ports.free();
  private final int controlPort = Ports.free();
  private FulcrumProcess fulcrum;
  private ServerSocket squatter;

  @AfterEach
  void stop() throws IOException {
    if (fulcrum != null) {
      fulcrum.close();
    }
    if (squatter != null) {
      squatter.close();
    }
  }

  @Test
  void listenerPortTaken_exits1NamingTheAddress() throws IOException {
    squatter = occupy(listenerPort);

    String stderr = runExpectingExit1();

    // The final line itself names the address, not only a log line before it.
    assertThat(stderr.lines()).anyMatch(l -> l.startsWith("fulcrum: start-up failed: ")
        && l.contains("cannot listen on 127.0.0.1:" + listenerPort));
  }

  @Test
  void controlPortTaken_exits1NamingTheControlPlaneAddress() throws IOException {
    squatter = occupy(controlPort);

    String stderr = runExpectingExit1();

    assertThat(stderr).contains("fulcrum: start-up failed: ").contains("control plane")
        .contains("127.0.0.1:" + controlPort);
  }

  @Test
  void dnsPortTaken_exits1NamingTheDnsResponderAddress() throws IOException {
    try (DatagramSocket udp = new DatagramSocket(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), 0))) {
      int dnsPort = udp.getLocalPort();

      // The file's DNS port, not the free one FulcrumProcess picks by default.
      String stderr = runExpectingExit1(FulcrumProcess.builder(work).env("FULCRUM_DNS__PORT", null),
          "dns: {port: " + dnsPort + "}\n");

      assertThat(stderr).contains("fulcrum: start-up failed: ").contains("DNS responder")
          .contains("udp://127.0.0.1:" + dnsPort);
    }
  }

  @Test
  void dnsTcpPortTaken_exits1NamingBothAddresses() throws IOException {
    try (ServerSocket tcp = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      int dnsPort = tcp.getLocalPort();

      String stderr = runExpectingExit1(FulcrumProcess.builder(work).env("FULCRUM_DNS__PORT", null),
          "dns: {port: " + dnsPort + "}\n");

      assertThat(stderr).contains("fulcrum: start-up failed: ").contains("DNS responder")
          .contains("udp://127.0.0.1:" + dnsPort + " and tcp://127.0.0.1:" + dnsPort);
    }
  }

  private String runExpectingExit1() {
    return runExpectingExit1(FulcrumProcess.builder(work), "");
  }

  /** Runs {@code builder} with a config of {@code extra} YAML and a listener; expects exit code 1. */
  private String runExpectingExit1(FulcrumProcess.Builder builder, String extra) {
    Path config = work.resolve("fulcrum.yaml");
    try {
      Files.writeString(config, extra + """
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: false}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: fixed-response, status-code: "200"}]
        """.formatted(controlPort, listenerPort));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    fulcrum = builder.args("--config", config.toString()).start();

    int exit = fulcrum.waitForExit(Duration.ofSeconds(30));

    assertThat(exit).as("exit code\n%s", fulcrum.describe()).isEqualTo(Main.EXIT_START);
    assertThat(fulcrum.stdout()).doesNotContain("Fulcrum is ready");
    return fulcrum.stderr();
  }

  private static ServerSocket occupy(int port) throws IOException {
    ServerSocket s = new ServerSocket();
    s.bind(new InetSocketAddress(InetAddress.getByName("127.0.0.1"), port));
    return s;
  }
}
