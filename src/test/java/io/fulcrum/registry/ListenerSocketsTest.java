package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.testing.Gateway;
import org.junit.jupiter.api.Test;

/**
 * Which targets are a load balancer's own listening sockets ({@code Target.IpUnusable}): a node
 * address of one of its zones with one of its listeners' ports, any address of this host with the
 * port of a node bound to the wildcard address; never an {@code alb} target.
 */
class ListenerSocketsTest {

  private static final String YAML = """
      nodes:
        - {zone: zone-a, address: 127.0.0.1}
        - {zone: zone-b, address: "0:0:0:0:0:0:0:1"}
        - {zone: zone-c, address: 127.0.0.3}
      load-balancers:
        - name: web
          zones: [zone-a, zone-b]
          listeners:
            - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: ip}]}
        - name: edge
          type: network
          zones: [zone-a]
          listeners:
            - {protocol: TCP, port: 9000, default-actions: [{type: forward, target-group: front}]}
            - {protocol: UDP, port: 5353, default-actions: [{type: forward, target-group: dns}]}
      target-groups:
        - {name: ip, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9001}]}
        - {name: front, target-type: alb, protocol: TCP, port: 8080, targets: [{id: web}]}
        - {name: dns, target-type: ip, protocol: UDP, port: 53, targets: [{id: 127.0.0.1, port: 53}]}
      """;

  @Test
  void aNodeAddressOfTheLoadBalancersZones_withOneOfItsListenersPorts_isItsSocket() {
    FulcrumConfig config = Gateway.config(YAML);
    ListenerSockets sockets = ListenerSockets.of(config.environment(), config.resources());
    TargetGroup ip = config.resources().targetGroupByName("ip").orElseThrow();

    assertThat(sockets.holds(ip, target("127.0.0.1", 8080))).isTrue();
    assertThat(sockets.holds(ip, target("::1", 8080))).as("the same address, written otherwise").isTrue();
    assertThat(sockets.holds(ip, target("127.0.0.1", 9000))).as("the network load balancer's").isTrue();
    assertThat(sockets.holds(ip, target("127.0.0.1", 8081))).as("another port").isFalse();
    assertThat(sockets.holds(ip, target("127.0.0.3", 8080))).as("a node of a zone web has not enabled").isFalse();
    assertThat(sockets.holds(ip, target("::1", 9000))).as("edge is not in zone-b").isFalse();
    assertThat(sockets.holds(ip, target("127.0.0.2", 8080))).as("another address").isFalse();

    assertThat(sockets.holds(ip, target("127.0.0.1", 5353))).as("a TCP target at a UDP listener's port").isFalse();
    TargetGroup dns = config.resources().targetGroupByName("dns").orElseThrow();
    assertThat(sockets.holds(dns, target("127.0.0.1", 5353))).as("a UDP target there").isTrue();
    assertThat(sockets.holds(dns, target("127.0.0.1", 9000))).as("a UDP target at a TCP listener's port").isFalse();

    TargetGroup front = config.resources().targetGroupByName("front").orElseThrow();
    assertThat(sockets.holds(front, front.targets().get(0))).as("an alb target is a listener by design").isFalse();
  }

  @Test
  void aWildcardNode_listensOnEveryAddressOfThisHost() {
    FulcrumConfig config = Gateway.config("""
        nodes:
          - {zone: zone-a, address: 0.0.0.0}
        load-balancers:
          - name: web
            listeners:
              - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: ip}]}
        target-groups:
          - {name: ip, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9001}]}
        """);
    ListenerSockets sockets = ListenerSockets.of(config.environment(), config.resources());
    TargetGroup ip = config.resources().targetGroupByName("ip").orElseThrow();

    assertThat(sockets.holds(ip, target("127.0.0.1", 8080))).isTrue();
    assertThat(sockets.holds(ip, target("127.0.0.9", 8080))).as("all of 127/8 is this host's").isTrue();
    assertThat(sockets.holds(ip, target("127.0.0.1", 9001))).isFalse();
    assertThat(sockets.holds(ip, target("10.255.255.254", 8080))).as("not an address of this host").isFalse();
  }

  private static Target target(String address, int port) {
    return new Target(address, port, "all", address, false);
  }
}
