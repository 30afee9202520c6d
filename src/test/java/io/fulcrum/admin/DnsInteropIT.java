package io.fulcrum.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Debian's {@code dig} (dnsutils) against the packaged jar's DNS responder. The load balancer has a
 * node in zone-a (127.0.0.1) and zone-b (127.0.0.2); its target group (cross-zone off) has an
 * embedded demo target in zone-a and, in zone-b, only a port where nothing listens: zone-b never
 * has a healthy target, so once zone-a's first check passes, DNS answers with zone-a's node only.
 * A second load balancer without target groups is advertised in both zones.
 */
@Tag("interop")
class DnsInteropIT {

  private static final Pattern DNS_LINE = Pattern.compile("dns +udp://127\\.0\\.0\\.1:(\\d+)");

  @TempDir
  Path work;

  private FulcrumProcess fulcrum;
  private Path dig;
  private int dnsPort;

  @BeforeEach
  void start() {
    dig = Interop.require("/usr/bin/dig", "dnsutils");
    int controlPort = Ports.free();
    int demoPort = Ports.free();
    fulcrum = FulcrumProcess.start(work, """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: false}
        demo:
          targets:
            - {id: web-a1, address: 127.0.0.1, port: %d, zone: zone-a}
        load-balancers:
          - name: shop
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: web}]}
          - name: static
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: fixed-response, status-code: "200"}]}
        target-groups:
          - name: web
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2}
            attributes: {load_balancing.cross_zone.enabled: "false"}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.2, port: %d, zone: zone-b}
        """.formatted(controlPort, demoPort, Ports.free(), Ports.free(), demoPort, Ports.free()));
    fulcrum.waitReady(controlPort).waitForStdout("dns ");
    Matcher m = DNS_LINE.matcher(fulcrum.stdout());
    assertThat(m.find()).as("the banner names the DNS responder\n%s", fulcrum.describe()).isTrue();
    dnsPort = Integer.parseInt(m.group(1));
  }

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
  }

  /** Runs {@code dig @127.0.0.1 -p <port> args...} and returns its output lines. */
  private List<String> dig(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of(dig.toString(), "@127.0.0.1", "-p", Integer.toString(dnsPort),
        "+time=2", "+tries=2"));
    cmd.addAll(List.of(args));
    Path out = Files.createTempFile(work, "dig", ".out");
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(out.toFile()).start();
    try {
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("dig finished").isTrue();
      String text = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as("dig's exit code; it printed:\n%s", text).isZero();
      return text.lines().toList();
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void digShort_listsTheNodesOfThePassingZonesOnly() {
    await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
        assertThat(dig("shop.us-east-1.elb.localhost", "A", "+short")).as(fulcrum.describe())
            .containsExactly("127.0.0.1"));
  }

  @Test
  void digShort_listsEveryNode_forALoadBalancerWithNothingToFail_inAnyCase() throws Exception {
    assertThat(dig("STATIC.us-east-1.ELB.localhost", "A", "+short")).containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2");
    assertThat(dig("static.us-east-1.elb.localhost", "AAAA", "+short")).as("no IPv6 node").isEmpty();
  }

  @Test
  void dig_showsAnAuthoritativeAnswerWithTtl60_andNxdomainForUnknownNames() throws Exception {
    List<String> full = dig("static.us-east-1.elb.localhost", "A", "+noall", "+comments", "+answer");
    assertThat(full).anyMatch(l -> l.contains("status: NOERROR"));
    assertThat(full).anyMatch(l -> l.matches(".*flags: qr aa.*"));
    assertThat(full).anyMatch(l -> l.matches("static\\.us-east-1\\.elb\\.localhost\\.\\s+60\\s+IN\\s+A\\s+127\\.0\\.0\\.1"));

    List<String> unknown = dig("nothing.us-east-1.elb.localhost", "A");
    assertThat(unknown).anyMatch(l -> l.contains("status: NXDOMAIN"));
    assertThat(unknown).anyMatch(l -> l.matches("elb\\.localhost\\.\\s+60\\s+IN\\s+SOA\\s+.*"));
  }

  @Test
  void digOverTcp_getsTheSameAuthoritativeAnswer() throws Exception {
    List<String> full = dig("+tcp", "static.us-east-1.elb.localhost", "A", "+noall", "+comments", "+answer", "+stats");
    assertThat(full).anyMatch(l -> l.contains("status: NOERROR"));
    assertThat(full).anyMatch(l -> l.matches(".*flags: qr aa.*"));
    assertThat(full).anyMatch(l -> l.contains("(TCP)"));
    assertThat(full).filteredOn(l -> l.matches("static\\.us-east-1\\.elb\\.localhost\\.\\s+60\\s+IN\\s+A\\s+.*"))
        .hasSize(2);
  }
}
