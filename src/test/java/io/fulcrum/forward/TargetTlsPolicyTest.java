package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * TLS toward HTTPS targets follows ALB: ELBSecurityPolicy-2016-08 (TLS 1.2 here) unless an HTTPS
 * listener of the load balancer uses a TLS 1.3 policy. A target that speaks only TLS 1.3 is
 * reached through the second load balancer and not through the first (502).
 */
class TargetTlsPolicyTest {

  private final Vertx targets = TestVertx.create();
  private Gateway gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    targets.close();
  }

  @Test
  void tls13OnlyTarget_isReachedOnlyByALoadBalancerWithATls13Listener() throws Exception {
    Path dir = Files.createTempDirectory("tls13-target");
    TestCertificates.Pem pem = TestCertificates.pem(dir, "target", "127.0.0.1");
    HttpServer target = targets.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pem.certificate().toString())
            .setKeyPath(pem.privateKey().toString()))
        .setEnabledSecureTransportProtocols(Set.of("TLSv1.3")));
    target.requestHandler(req -> req.response().end("tls13"));
    Await.result(target.listen());
    int legacy = Ports.free();
    int modern = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: legacy
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: a}]}
          - name: modern
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: b}]}
              - {protocol: HTTPS, port: %d, ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06,
                 default-actions: [{type: forward, target-group: b}]}
        target-groups:
          - {name: a, target-type: ip, protocol: HTTPS, port: 443, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: b, target-type: ip, protocol: HTTPS, port: 443, targets: [{id: 127.0.0.1, port: %4$d}]}
        """.formatted(legacy, modern, Ports.free(), target.actualPort()));

    try (Http http = new Http(targets)) {
      assertThat(http.get(legacy, "/").status()).as("ELBSecurityPolicy-2016-08 toward the target").isEqualTo(502);
      Http.Response ok = http.get(modern, "/");
      assertThat(ok.status()).isEqualTo(200);
      assertThat(ok.body()).isEqualTo("tls13");
    }
  }
}
