package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Certificate;
import io.fulcrum.model.Listener;
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
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The access logs' {@code chosen_cert_arn}: the ARN of the listener certificate a client's session
 * was given (the default one, or the one its server name chose), on an application load balancer's
 * HTTPS listener and a network load balancer's TLS listener; {@code session-reused} on the ALB's for
 * a session that resumed an earlier one.
 */
class ChosenCertificateLogTest {

  private final Vertx targets = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final Http http = new Http(targets);
  private Gateway gateway;
  private TcpTarget echo;
  private Path data;
  /** Clients, each with a session cache of its own. */
  private final SSLContext[] clients = new SSLContext[2];
  private int https;
  private int tls;

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createTempDirectory("chosen-cert");
    data = dir.resolve("data");
    TestCertificates.Pem first = TestCertificates.pem(dir, "first", "first.example", "127.0.0.1");
    TestCertificates.Pem second = TestCertificates.pem(dir, "second", "second.example");
    clients[0] = TestCertificates.trusting(first.x509(), second.x509());
    clients[1] = TestCertificates.trusting(first.x509(), second.x509());
    echo = TcpTarget.start(targets, "a");
    https = Ports.free();
    tls = Ports.free();
    String certificates = "[{certificate: '%s', private-key: '%s'}, {certificate: '%s', private-key: '%s'}]"
        .formatted(first.certificate(), first.privateKey(), second.certificate(), second.privateKey());
    gateway = Gateway.start(TestVertx.create(), """
        data-dir: '%s'
        load-balancers:
          - name: web
            attributes: {access_logs.s3.enabled: "true", access_logs.s3.bucket: app-logs}
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: %s
                default-actions: [{type: fixed-response, status-code: "200", content-type: text/plain}]
          - name: net
            type: network
            attributes: {access_logs.s3.enabled: "true", access_logs.s3.bucket: net-logs}
            listeners:
              - protocol: TLS
                port: %d
                certificates: %s
                default-actions: [{type: forward, target-group: echo}]
        target-groups:
          - {name: echo, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(data, https, certificates, tls, certificates, echo.port()), 1, time);
  }

  @AfterEach
  void stop() {
    gateway.close();
    http.close();
    echo.close();
    targets.close();
  }

  @Test
  void theAlbsLine_namesTheCertificateTheServerNameChose_orSaysTheSessionWasReused() throws Exception {
    List<String> arns = certificateArns("web");
    assertThat(arns).hasSize(2).doesNotHaveDuplicates();
    get(clients[0], "/default", null);
    byte[] named = get(clients[1], "/named", "second.example");
    // A JDK client offers the session it has for the address again: a TLS 1.2 one is resumed by its id.
    assertThat(get(clients[1], "/resumed", "second.example")).as("the client resumed its session").isEqualTo(named);

    List<String> lines = lines("app-logs");
    assertThat(lines).hasSize(3);
    assertThat(chosen(lines, "/default")).isEqualTo(arns.get(0));
    assertThat(chosen(lines, "/named")).isEqualTo(arns.get(1));
    assertThat(chosen(lines, "/resumed")).isEqualTo("session-reused");
  }

  @Test
  void theNlbsLine_namesTheCertificateTheServerNameChose() throws Exception {
    List<String> arns = certificateArns("net");
    ask(clients[0], null);
    ask(clients[1], "second.example");
    Awaitility.await().atMost(Duration.ofSeconds(10))
        .until(() -> Scrape.of(http, gateway.controlPort()).sum("ActiveFlowCount", Map.of()) == 0);

    List<String> lines = lines("net-logs");
    assertThat(lines).hasSize(2);
    // Field 13 of NLB's 22: chosen_cert_arn, after incoming_tls_alert.
    assertThat(LogFiles.fields(lines.get(0)).get(13)).as(lines.get(0)).isEqualTo(arns.get(0));
    assertThat(LogFiles.fields(lines.get(1)).get(13)).as(lines.get(1)).isEqualTo(arns.get(1));
  }

  /** The ARNs of the only listener of load balancer {@code name}'s certificates, the default first. */
  private List<String> certificateArns(String name) {
    Listener listener = gateway.fulcrum().config().resources().loadBalancers().stream()
        .filter(lb -> lb.name().equals(name)).findFirst().orElseThrow().listeners().get(0);
    return listener.certificates().stream().map(Certificate::arn).toList();
  }

  /** A GET over a new TLS 1.2 connection of {@code client}, with {@code serverName} (null: none); the session's id. */
  private byte[] get(SSLContext client, String path, String serverName) throws Exception {
    try (SSLSocket socket = socket(client, https, serverName)) {
      socket.setEnabledProtocols(new String[] {"TLSv1.2"});
      OutputStream out = socket.getOutputStream();
      out.write(("GET " + path + " HTTP/1.1\r\nHost: web.example\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = socket.getInputStream();
      assertThat(new String(in.readAllBytes(), StandardCharsets.US_ASCII)).startsWith("HTTP/1.1 200");
      return socket.getSession().getId();
    }
  }

  /** A line through the TLS listener over a new connection of {@code client}, with {@code serverName} (null: none). */
  private void ask(SSLContext client, String serverName) throws Exception {
    try (FlowClient flow = FlowClient.over(socket(client, tls, serverName))) {
      assertThat(flow.ask("hello")).isEqualTo("a:hello");
    }
  }

  private static SSLSocket socket(SSLContext client, int port, String serverName) throws Exception {
    SSLSocket socket = (SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port);
    if (serverName != null) {
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setServerNames(List.of(new SNIHostName(serverName)));
      socket.setSSLParameters(parameters);
    }
    return socket;
  }

  /** The lines of {@code bucket}'s log, once the period ends and its file is written. */
  private List<String> lines(String bucket) {
    time.advance(Duration.ofMillis(LogDestination.periodEnd(time.millis()) - time.millis()));
    return LogFiles.lines(LogFiles.await(data.resolve("s3").resolve(bucket), 1).get(0));
  }

  /** Field 20 of ALB's line for {@code path}: chosen_cert_arn. */
  private static String chosen(List<String> lines, String path) {
    return lines.stream().map(LogFiles::fields).filter(f -> f.get(13).contains(path)).findFirst().orElseThrow().get(20);
  }
}
