package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fulcrum.bootstrap.NetworkTransport;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.FlowClient;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TcpTarget;
import io.fulcrum.testing.TestCertificates;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client that sends something other than TLS to a TLS port is closed on io_uring as on epoll.
 * On io_uring (Netty 4.2.18, one-shot polls) a channel closed from inside the TLS handler's
 * decoding, where a failed handshake is reported, kept its socket open: the client waited for
 * good, and the socket leaked. Checked on an HTTPS listener (Vert.x's server) and a TLS listener
 * (Fulcrum's own accept), two instances each.
 */
class IoUringTlsTest {

  private Vertx vertx;
  private Gateway gateway;
  private Backend backend;
  private TcpTarget tcp;
  private int https;
  private int tls;

  @BeforeEach
  void start() throws Exception {
    assumeTrue(NetworkTransport.ioUringAvailable(), "io_uring is not available here");
    vertx = NetworkTransport.vertx(Map.of(NetworkTransport.ENV, "io_uring"));
    backend = Backend.start(vertx, "app");
    tcp = TcpTarget.start(vertx, "a");
    https = Ports.free();
    tls = Ports.free();
    TestCertificates.Pem cert = TestCertificates.pem(Files.createTempDirectory("uring-tls"), "lb", "127.0.0.1");
    gateway = Gateway.start(vertx, """
        load-balancers:
          - name: web
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: app}]
          - name: nlb
            type: network
            listeners:
              - protocol: TLS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: tcp}]
        target-groups:
          - {name: app, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: tcp, target-type: ip, protocol: TCP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(https, cert.certificate(), cert.privateKey(), tls, cert.certificate(), cert.privateKey(),
        backend.port(), tcp.port()), 2, java.time.Clock.systemUTC());
  }

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    if (tcp != null) {
      tcp.close();
    }
  }

  @Test
  void anHttpsListener_closesACleartextClient() {
    for (int i = 0; i < 4; i++) { // each instance's loop at least once
      try (RawConnection c = RawConnection.open("127.0.0.1", https)) {
        c.send("GET / HTTP/1.1\r\nHost: web\r\n\r\n");
        assertThat(c.readUntilClosed()).as("no TLS record: closed without an HTTP answer").doesNotContain("HTTP/1.1");
      }
    }
    assertThat(backend.trafficHits()).isZero();
  }

  @Test
  void aTlsListener_closesAClientThatDoesNotSpeakTls() throws Exception {
    for (int i = 0; i < 4; i++) {
      try (FlowClient plain = FlowClient.connect(tls)) {
        plain.socket().getOutputStream().write("hello\n".getBytes(StandardCharsets.US_ASCII));
        assertThat(plain.ending()).isIn(FlowClient.Ending.CLOSED, FlowClient.Ending.RESET);
      }
    }
  }
}
