package io.fulcrum.listener;

import static io.fulcrum.testing.ElbAssertions.assertElbPage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.forward.ElbError;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One node per zone (127.0.0.1 for zone-a, 127.0.0.2 for zone-b: all of 127/8 is loopback): a
 * listener answers on the node of every zone its load balancer is enabled in, and only there.
 */
class NodeZonesTest {

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private static String config(int port, String lbZones, String targetZone, int targetPort) {
    return """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        load-balancers:
          - name: lb
            %s
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: tg}]
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            targets:
              - {id: 127.0.0.1, port: %d, zone: %s}
        """.formatted(lbZones, port, targetPort, targetZone);
  }

  private static Response get(String address, int port) {
    try (RawConnection c = RawConnection.open(address, port)) {
      return c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
    }
  }

  @Test
  void listener_answersOnTheNodeOfEveryZone() {
    Backend backend = Backend.start(backends, "b");
    int port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), config(port, "zones: [zone-a, zone-b]", "zone-a", backend.port()));

    Response viaA = get("127.0.0.1", port);
    Response viaB = get("127.0.0.2", port);

    assertThat(viaA.status()).isEqualTo(200);
    assertThat(viaA.bodyText()).isEqualTo("b");
    assertThat(viaB.status()).isEqualTo(200);
    assertThat(viaB.bodyText()).isEqualTo("b");
    assertThat(backend.trafficHits()).isEqualTo(2);
  }

  @Test
  void listener_doesNotListenOnTheNodeOfAZoneItsLoadBalancerIsNotEnabledIn() {
    Backend backend = Backend.start(backends, "b");
    int port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), config(port, "zones: [zone-a]", "zone-a", backend.port()));

    assertThat(get("127.0.0.1", port).status()).isEqualTo(200);
    assertThatThrownBy(() -> get("127.0.0.2", port))
        .isInstanceOf(UncheckedIOException.class)
        .hasCauseInstanceOf(ConnectException.class);
  }

  @Test
  void listener_returns503_whenTheOnlyTargetIsInAZoneTheLoadBalancerIsNotEnabledIn() {
    Backend backend = Backend.start(backends, "b");
    int port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), config(port, "zones: [zone-a]", "zone-b", backend.port()));

    assertElbPage(get("127.0.0.1", port), ElbError.NO_TARGETS_IN_ZONE);
    assertThat(backend.trafficHits()).isZero();
  }
}
