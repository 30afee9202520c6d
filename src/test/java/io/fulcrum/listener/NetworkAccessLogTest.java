package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.observe.LogDestination;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TcpTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A network load balancer's access log ({@code access_logs.s3.*}): a line in NLB's format for every
 * TLS connection of its TLS listeners, as it ends (times, bytes each way, cipher, protocol, the
 * server name and application protocol agreed); its TCP listeners' connections have none.
 */
class NetworkAccessLogTest {

  private final Vertx targets = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final Http http = new Http(targets);
  private Gateway gateway;
  private TcpTarget a;
  private Path data;
  private TestCertificates.Pem cert;
  private int tls;
  private int tcp;

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createTempDirectory("nlb-log");
    data = dir.resolve("data");
    cert = TestCertificates.pem(dir, "nlb", "nlb.example", "127.0.0.1");
    a = TcpTarget.start(targets, "a");
    tls = Ports.free();
    tcp = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        data-dir: '%s'
        load-balancers:
          - name: nlb
            type: network
            attributes: {access_logs.s3.enabled: "true", access_logs.s3.bucket: flows, access_logs.s3.prefix: net}
            listeners:
              - protocol: TLS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                alpn-policy: HTTP2Preferred
                default-actions: [{type: forward, target-group: tcp}]
              - {protocol: TCP, port: %d, default-actions: [{type: forward, target-group: tcp}]}
        target-groups:
          - {name: tcp, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(data, tls, cert.certificate(), cert.privateKey(), tcp, a.port()), 1, time);
  }

  @AfterEach
  void stop() {
    gateway.close();
    http.close();
    a.close();
    targets.close();
  }

  @Test
  void everyTlsConnection_isALine_inNlbsFormat_asItEnds() throws Exception {
    FlowClient secure = FlowClient.tls(TestCertificates.trusting(cert.x509()), tls, "h2", "http/1.1");
    assertThat(secure.ask("hello")).isEqualTo("a:hello");
    assertThat(secure.applicationProtocol()).isEqualTo("h2");
    int clientPort = secure.localPort();
    secure.close();
    FlowClient plain = FlowClient.connect(tcp);
    assertThat(plain.ask("clear")).isEqualTo("a:clear");
    plain.close();
    SSLSocket named = (SSLSocket) TestCertificates.trusting(cert.x509()).getSocketFactory()
        .createSocket("127.0.0.1", tls);
    SSLParameters sni = named.getSSLParameters();
    sni.setServerNames(List.of(new SNIHostName("nlb.example")));
    named.setSSLParameters(sni);
    FlowClient withName = FlowClient.over(named);
    assertThat(withName.ask("sni")).isEqualTo("a:sni");
    withName.close();
    // Both flows have ended (the TLS one's line is written as it ends).
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> metric("ActiveFlowCount") == 0);

    time.advance(Duration.ofMillis(LogDestination.periodEnd(time.millis()) - time.millis()));
    List<Path> files = LogFiles.await(data.resolve("s3").resolve("flows"), 1);
    assertThat(files.get(0).toString()).contains("/net/AWSLogs/000000000000/elasticloadbalancing/us-east-1/2026/01/01/"
        + "000000000000_elasticloadbalancing_us-east-1_net.nlb.");
    List<String> lines = LogFiles.lines(files.get(0));
    assertThat(lines).as("the TLS connections' only").hasSize(2);
    assertThat(lines.get(1)).as("a client that offers no protocol").contains(" nlb.example - - - ");
    // The regular expression of AWS's Athena table for NLB access logs reads it.
    Matcher m = Pattern.compile("([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*):([0-9]*) ([^ ]*):([0-9]*) ([-.0-9]*)"
        + " ([-.0-9]*) ([-0-9]*) ([-0-9]*) ([-0-9]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*)"
        + " ([^ ]*) ([^ ]*)$").matcher(lines.get(0));
    assertThat(m.matches()).as(lines.get(0)).isTrue();
    assertThat(m.group(1)).isEqualTo("tls");
    assertThat(m.group(2)).isEqualTo("2.0");
    assertThat(m.group(3)).isEqualTo("2026-01-01T00:00:00");
    assertThat(m.group(4)).matches("net/nlb/[0-9a-f]{16}");
    assertThat(m.group(5)).matches("[0-9a-f]{16}");
    assertThat(m.group(6)).isEqualTo("127.0.0.1");
    assertThat(m.group(7)).isEqualTo(String.valueOf(clientPort));
    assertThat(m.group(8) + ":" + m.group(9)).isEqualTo("127.0.0.1:" + tls);
    assertThat(Long.parseLong(m.group(10))).as("connection_time ms").isGreaterThanOrEqualTo(
        Long.parseLong(m.group(11)));
    assertThat(m.group(12)).as("received: 'hello\\n'").isEqualTo("6");
    assertThat(m.group(13)).as("sent: 'a:hello\\n'").isEqualTo("8");
    assertThat(m.group(14)).as("incoming_tls_alert").isEqualTo("-");
    assertThat(m.group(15)).as("chosen_cert_arn").isEqualTo(gateway.fulcrum().config().resources().loadBalancers()
        .get(0).listeners().stream().filter(l -> l.port() == tls).findFirst().orElseThrow().certificates().get(0).arn());
    assertThat(m.group(16)).as("the listener certificate's serial").isEqualTo(hex(cert.x509().getSerialNumber()));
    assertThat(m.group(17)).matches("[A-Z0-9_-]+");
    assertThat(m.group(18)).matches("tlsv1[23]");
    assertThat(m.group(19)).as("tls_named_group").isEqualTo("-");
    assertThat(m.group(20)).as("no server name for an address").isEqualTo("-");
    assertThat(m.group(21)).isEqualTo("h2");
    assertThat(m.group(22)).as("alpn_be_protocol").isEqualTo("-");
    assertThat(m.group(23)).as("the client's ALPN list, in its order").isEqualTo("\"h2\",\"http/1.1\"");
    assertThat(m.group(24)).isEqualTo("2026-01-01T00:00:00");
  }

  private double metric(String name) {
    return Scrape.of(http, gateway.controlPort()).sum(name, Map.of());
  }

  /** Upper-case hex, two digits a byte, without a sign byte. */
  private static String hex(java.math.BigInteger serial) {
    String hex = serial.toString(16).toUpperCase(java.util.Locale.ROOT);
    return hex.length() % 2 == 0 ? hex : "0" + hex;
  }
}
