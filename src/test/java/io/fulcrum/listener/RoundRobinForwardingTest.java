package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RoundRobinForwardingTest {

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  @Test
  void roundRobin_givesTheExactSequenceOverRealBackends() {
    Backend a = Backend.start(backends, "a");
    Backend b = Backend.start(backends, "b");
    Backend c = Backend.start(backends, "c");
    int port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
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
              - {id: 127.0.0.1, port: %d}
              - {id: 127.0.0.1, port: %d}
              - {id: 127.0.0.1, port: %d}
        """.formatted(port, a.port(), b.port(), c.port()));

    List<String> seen = new ArrayList<>();
    try (Http http = new Http(backends)) {
      for (int i = 0; i < Integer.getInteger("n", 9); i++) {
        seen.add(http.get(port, "/").body());
      }
    }
    assertThat(seen).containsExactly("a", "b", "c", "a", "b", "c", "a", "b", "c");
  }
}
