package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.bus.HealthReport.TargetReport;
import io.fulcrum.health.ScriptedTarget.Exchange;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PfxOptions;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.Date;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What an ALB health check looks like on the wire (SPEC §1.5), read byte for byte by raw targets:
 * the request line and headers, one new connection per check that the checker closes, the port
 * probed, and HTTPS checks that do not validate the target's certificate.
 */
class HealthCheckWireTest {

  private static final String PASSWORD = "changeit";

  @TempDir
  Path dir;

  private final HealthHarness h = new HealthHarness();

  @AfterEach
  void stop() {
    h.close();
  }

  /** The header lines of a raw request, as "name: value" with the name lower-cased. */
  private static List<String> headers(String request) {
    return request.lines().skip(1).filter(l -> !l.isEmpty())
        .map(l -> l.substring(0, l.indexOf(':')).toLowerCase(Locale.ROOT) + ": "
            + l.substring(l.indexOf(':') + 1).strip())
        .toList();
  }

  @Test
  void check_isGetOfThePathWithItsQuery_withElbUserAgentAndHostIpPort_onANewConnectionClosedAfterEachCheck() {
    ScriptedTarget target = h.scripted(ScriptedTarget.status(200));
    h.start("""
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: "/status/check?probe=alb&v=2", interval-seconds: 5, timeout-seconds: 2}
            targets:
              - {id: 127.0.0.1, port: %d}
        """.formatted(h.listenerPort, target.port()));

    // Checks at j, j+5, j+10 and j+15 s, with the first one's jitter j within 5 s.
    h.advanceSeconds(20);

    TargetReport report = h.report("tg").get("127.0.0.1:" + target.port());
    assertThat(report.health()).isEqualTo(TargetHealth.HEALTHY);
    long checks = report.history().stream().filter(c -> !c.transition()).count();
    assertThat(checks).isEqualTo(4);
    assertThat(target.connections()).as("connections, one per check").isEqualTo(4);
    for (Exchange x : target.exchanges()) {
      String request = x.request;
      assertThat(request).as("request %d", x.index)
          .startsWith("GET /status/check?probe=alb&v=2 HTTP/1.1\r\n")
          .endsWith("\r\n\r\n");
      assertThat(request.replace("\r\n", "")).as("every line ends with CRLF").doesNotContain("\n", "\r");
      List<String> headers = headers(request);
      assertThat(headers).contains("user-agent: ELB-HealthChecker/2.0", "host: 127.0.0.1:" + target.port());
      assertThat(headers).filteredOn(l -> l.startsWith("host:")).hasSize(1);
      assertThat(headers).filteredOn(l -> l.startsWith("user-agent:")).hasSize(1);
      assertThat(headers).filteredOn(l -> l.startsWith("upgrade:")).as("no WebSocket or h2c upgrade").isEmpty();
    }
    // The target answered and left its connections open: the checker closed every one of them.
    await().atMost(Duration.ofSeconds(10))
        .until(() -> target.exchanges().stream().allMatch(x -> x.closedByChecker));
  }

  @Test
  void fixedHealthCheckPort_isProbedInsteadOfTheTrafficPort_trafficPortFollowsEachTargetsPort() {
    AtomicInteger trafficPortChecks = new AtomicInteger();
    Backend traffic = h.backend("traffic", req -> {
      if (req.path().equals("/health")) {
        trafficPortChecks.incrementAndGet();
      }
      req.response().end("traffic");
    });
    ScriptedTarget healthPort = h.scripted(ScriptedTarget.status(200));
    ScriptedTarget ownPort = h.scripted(ScriptedTarget.status(200));
    h.start("""
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: fixed}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/own/*"]}]
                    actions: [{type: forward, target-group: own}]
        target-groups:
          - name: fixed
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, port: "%d", interval-seconds: 5, timeout-seconds: 2}
            targets:
              - {id: 127.0.0.1, port: %d}
          - name: own
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, port: traffic-port, interval-seconds: 5, timeout-seconds: 2}
            targets:
              - {id: 127.0.0.1, port: %d}
        """.formatted(h.listenerPort, healthPort.port(), traffic.port(), ownPort.port()));

    h.advanceSeconds(10);

    TargetReport fixed = h.report("fixed").get("127.0.0.1:" + traffic.port());
    assertThat(fixed.health()).isEqualTo(TargetHealth.HEALTHY);
    assertThat(fixed.healthCheckPort()).isEqualTo(healthPort.port());
    assertThat(healthPort.connections()).isEqualTo(2);
    assertThat(trafficPortChecks.get()).as("checks sent to the traffic port").isZero();
    assertThat(headers(healthPort.exchanges().get(0).request)).contains("host: 127.0.0.1:" + healthPort.port());

    TargetReport own = h.report("own").get("127.0.0.1:" + ownPort.port());
    assertThat(own.health()).isEqualTo(TargetHealth.HEALTHY);
    assertThat(own.healthCheckPort()).as("the target's own port, not the group's 80").isEqualTo(ownPort.port());
    assertThat(ownPort.connections()).isEqualTo(2);
    assertThat(headers(ownPort.exchanges().get(0).request)).contains("host: 127.0.0.1:" + ownPort.port());

    // Requests still go to the traffic port.
    h.awaitDataPlane();
    assertThat(h.spread(3)).containsOnlyKeys("traffic");
    assertThat(traffic.hits()).isEqualTo(3);
  }

  @Test
  void httpsCheck_passesOnTargetsWithSelfSignedAndExpiredCertificates() throws Exception {
    Path selfSigned = keyStore("self-signed", "-10d", 365);
    Path expired = keyStore("expired", "-30d", 1);
    assertThat(notAfter(selfSigned)).isAfter(new Date());
    assertThat(notAfter(expired)).as("the expired certificate's end of validity").isBefore(new Date());

    AtomicInteger selfSignedChecks = new AtomicInteger();
    AtomicInteger expiredChecks = new AtomicInteger();
    int selfSignedPort = tlsServer(selfSigned, selfSignedChecks);
    int expiredPort = tlsServer(expired, expiredChecks);
    h.start("""
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tls}]}
        target-groups:
          - name: tls
            target-type: ip
            protocol: HTTPS
            port: 443
            health-check: {protocol: HTTPS, path: /health, interval-seconds: 5, timeout-seconds: 2,
                           unhealthy-threshold-count: 2}
            targets:
              - {id: 127.0.0.1, port: %d}
              - {id: 127.0.0.1, port: %d}
        """.formatted(h.listenerPort, selfSignedPort, expiredPort));

    h.advanceSeconds(10);

    assertThat(h.health("tls", selfSignedPort)).isEqualTo(TargetHealth.HEALTHY);
    assertThat(h.health("tls", expiredPort)).isEqualTo(TargetHealth.HEALTHY);
    // The servers only speak TLS: each check that reached them completed a handshake.
    assertThat(selfSignedChecks.get()).isEqualTo(2);
    assertThat(expiredChecks.get()).isEqualTo(2);
  }

  /** A TLS-only Vert.x server with the key pair of {@code store}; counts the requests that reach it. */
  private int tlsServer(Path store, AtomicInteger requests) {
    HttpServer server = h.backends.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setSsl(true).setKeyCertOptions(new PfxOptions().setPath(store.toString()).setPassword(PASSWORD)));
    server.requestHandler(req -> {
      requests.incrementAndGet();
      req.response().end("tls");
    });
    return Await.result(server.listen()).actualPort();
  }

  /** A PKCS12 key store with a self-signed EC certificate for 127.0.0.1, made by the JDK's keytool. */
  private Path keyStore(String name, String startDate, int validityDays) throws IOException, InterruptedException {
    Path file = dir.resolve(name + ".p12");
    Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
    Process p = new ProcessBuilder(keytool.toString(), "-genkeypair", "-alias", "target", "-keyalg", "EC",
        "-groupname", "secp256r1", "-dname", "CN=127.0.0.1", "-ext", "SAN=IP:127.0.0.1",
        "-startdate", startDate, "-validity", Integer.toString(validityDays),
        "-keystore", file.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD, "-keypass", PASSWORD)
        .redirectErrorStream(true).start();
    String output;
    try (InputStream in = p.getInputStream()) {
      output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("keytool finished").isTrue();
    assertThat(p.exitValue()).as("keytool: %s", output).isZero();
    return file;
  }

  private static Date notAfter(Path store) throws IOException, GeneralSecurityException {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, PASSWORD.toCharArray());
    }
    return ((X509Certificate) ks.getCertificate("target")).getNotAfter();
  }
}
