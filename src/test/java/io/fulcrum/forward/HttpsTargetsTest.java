package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.grpc.VertxTestService;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.ProtocolClient;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * HTTPS targets (SPEC §1.5): their certificates are not validated, so a target whose self-signed
 * certificate expired yesterday passes HTTPS health checks and serves; HTTP2 and GRPC groups reach
 * HTTPS targets with ALPN h2 (HTTP/2 clients' streams relayed on the direct path), and a target
 * that does not speak HTTP/2 fails their requests with 502. Health runs on virtual time.
 */
class HttpsTargetsTest {

  private final Vertx targets = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final List<String> seen = new CopyOnWriteArrayList<>();
  private TestCertificates.Pem expired;
  private HttpServer https;
  /** HTTP/1.1 only over TLS: no ALPN. */
  private HttpServer http1Only;
  private VertxTestService grpcTls;
  private Gateway gateway;
  private int port;

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createTempDirectory("https-targets");
    expired = TestCertificates.expired(dir, "target", "127.0.0.1");
    assertThat(expired.x509().getNotAfter()).isInThePast();
    PemKeyCertOptions pem = new PemKeyCertOptions().setCertPath(expired.certificate().toString())
        .setKeyPath(expired.privateKey().toString());
    https = targets.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
        .setUseAlpn(true).setKeyCertOptions(pem));
    https.requestHandler(req -> {
      seen.add(req.path() + " " + req.version() + " " + req.getHeader("user-agent"));
      req.response().end(req.path().equals("/health") ? "ok" : "expired-but-serving " + req.version());
    });
    Await.result(https.listen());
    http1Only = targets.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
        .setKeyCertOptions(pem));
    http1Only.requestHandler(req -> req.response().end("http/1.1 only"));
    Await.result(http1Only.listen());
    grpcTls = VertxTestService.start(targets, "grpc-tls", pem);
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: h1}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/h2*"]}], actions: [{type: forward, target-group: h2}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/grpc.testing.*"]}], actions: [{type: forward, target-group: grpc}]}
                  - {priority: 3, conditions: [{field: path-pattern, values: ["/no-h2*"]}], actions: [{type: forward, target-group: no-h2}]}
        target-groups:
          - name: h1
            target-type: ip
            protocol: HTTPS
            port: 443
            health-check: {protocol: HTTPS, path: /health, interval-seconds: 10, timeout-seconds: 5}
            targets: [{id: 127.0.0.1, port: %d}]
          - name: h2
            target-type: ip
            protocol: HTTPS
            port: 443
            protocol-version: HTTP2
            health-check: {protocol: HTTPS, path: /health, interval-seconds: 10, timeout-seconds: 5}
            targets: [{id: 127.0.0.1, port: %2$d}]
          - name: grpc
            target-type: ip
            protocol: HTTPS
            port: 443
            protocol-version: GRPC
            # ALB's default health-check protocol is HTTP whatever the group's: HTTPS is asked for.
            health-check: {protocol: HTTPS, interval-seconds: 10, timeout-seconds: 5}
            targets: [{id: 127.0.0.1, port: %d}]
          - name: no-h2
            target-type: ip
            protocol: HTTPS
            port: 443
            protocol-version: HTTP2
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(port, https.actualPort(), grpcTls.port(), http1Only.actualPort()), 1, time);
  }

  @AfterEach
  void stop() {
    gateway.close();
    grpcTls.close();
    targets.close();
  }

  private TargetHealth health(String group, int targetPort) {
    String arn = gateway.fulcrum().config().resources().targetGroups().stream().filter(g -> g.name().equals(group))
        .findFirst().orElseThrow().arn();
    return Await.result(gateway.fulcrum().health(arn)).targets().get("127.0.0.1:" + targetPort).health();
  }

  private void checkOnce() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  @Test
  void targetWithAnExpiredSelfSignedCertificate_isHealthyOverHttps_andServes() {
    checkOnce();

    assertThat(health("h1", https.actualPort())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(seen).contains("/health HTTP_1_1 ELB-HealthChecker/2.0");
    try (Http http = new Http(targets)) {
      Http.Response r = http.get(port, "/page");
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("expired-but-serving HTTP_1_1");
    }
  }

  @Test
  void http2Group_reachesAnHttpsTargetWithAlpnH2() {
    checkOnce();

    assertThat(health("h2", https.actualPort())).isEqualTo(TargetHealth.HEALTHY);
    long relayed = DirectForwarder.forwarded();
    try (ProtocolClient h2c = ProtocolClient.of(ProtocolClient.Kind.H2C_PRIOR_KNOWLEDGE, targets)) {
      ProtocolClient.Response r = h2c.send("GET", "127.0.0.1", port, "/h2/page", Map.of(), null);
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.text()).as("the target negotiated h2 over TLS").isEqualTo("expired-but-serving HTTP_2");
    }
    assertThat(DirectForwarder.forwarded() - relayed).as("relayed on the direct path").isEqualTo(1);
  }

  /**
   * An HTTP2 group's target that speaks only HTTP/1.1 over TLS: the HTTP/2 connection fails (the
   * target answers the connection preface as a bad HTTP/1.1 request) and the request gets 502.
   */
  @Test
  void http2Group_toAnHttpsTargetWithoutHttp2_answers502() {
    checkOnce();

    long relayed = DirectForwarder.forwarded();
    try (ProtocolClient h2c = ProtocolClient.of(ProtocolClient.Kind.H2C_PRIOR_KNOWLEDGE, targets)) {
      ProtocolClient.Response r = h2c.send("GET", "127.0.0.1", port, "/no-h2/page", Map.of(), null);
      assertThat(r.status()).isEqualTo(502);
    }
    assertThat(DirectForwarder.forwarded() - relayed).isEqualTo(1);
  }

  @Test
  void grpcGroup_checksAnHttpsTargetOverTlsWithAlpnH2() {
    checkOnce();

    assertThat(health("grpc", grpcTls.port())).as("/AWS.ALB/healthcheck answered 12 over TLS")
        .isEqualTo(TargetHealth.HEALTHY);
    assertThat(grpcTls.grpcCalls).contains("/AWS.ALB/healthcheck HTTP_2");

    long relayed = DirectForwarder.forwarded();
    io.grpc.ManagedChannel channel = io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext()
        .build();
    try {
      io.grpc.testing.integration.Messages.SimpleResponse r = io.grpc.testing.integration.TestServiceGrpc
          .newBlockingStub(channel).withDeadlineAfter(30, java.util.concurrent.TimeUnit.SECONDS)
          .unaryCall(io.grpc.testing.integration.Messages.SimpleRequest.newBuilder().setResponseSize(42).build());
      assertThat(r.getPayload().getBody().size()).isEqualTo(42);
      assertThat(grpcTls.grpcCalls).contains("/grpc.testing.TestService/UnaryCall HTTP_2");
      assertThat(DirectForwarder.forwarded() - relayed).as("relayed on the direct path").isEqualTo(1);
    } finally {
      channel.shutdownNow();
    }
  }
}
