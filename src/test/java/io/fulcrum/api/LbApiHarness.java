package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fulcrum.model.Resources;
import io.fulcrum.registry.StateStore;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.awaitility.Awaitility;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Action;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ActionTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ElasticLoadBalancingV2Exception;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.FixedResponseActionConfig;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RuleCondition;

/**
 * A Fulcrum whose resources the API owns ({@code resources.source: api}, state in a temporary data
 * dir), with two nodes (zone-a on 127.0.0.1, zone-b on 127.0.0.2), the target groups {@code blue}
 * and {@code green} (each one real backend answering with its name) and the real AWS SDK client.
 * Target groups come from the config file, which seeds the empty store.
 */
final class LbApiHarness implements AutoCloseable {

  final Vertx backends = TestVertx.create();
  final Backend blue;
  final Backend green;
  final Gateway gateway;
  final ElasticLoadBalancingV2Client elb;
  final Path dataDir;

  /** The control plane's time when health checks run; null: frozen (targets stay initial). */
  private final VirtualTime time;

  private LbApiHarness(Path dataDir, String extraYaml, int listenerInstances, VirtualTime time) {
    this.dataDir = dataDir;
    this.time = time;
    blue = Backend.start(backends, "blue");
    green = Backend.start(backends, "green");
    String yaml = yaml(dataDir, blue.port(), green.port(), extraYaml);
    gateway = time == null ? Gateway.start(TestVertx.create(), yaml, listenerInstances, Clock.systemUTC())
        : Gateway.start(TestVertx.create(), yaml, listenerInstances, time);
    elb = ElbClients.client(gateway.controlPort());
  }

  static LbApiHarness start(Path dataDir) {
    return new LbApiHarness(dataDir, "", 1, null);
  }

  /** With more YAML after the seed (more target groups, load balancers) and several listener verticles. */
  static LbApiHarness start(Path dataDir, String extraYaml, int listenerInstances) {
    return new LbApiHarness(dataDir, extraYaml, listenerInstances, null);
  }

  /** With health checks on virtual time that starts now (the SDK's signatures stay within 15 minutes). */
  static LbApiHarness onVirtualTime(Path dataDir) {
    return new LbApiHarness(dataDir, "", 1, new VirtualTime(System.currentTimeMillis()));
  }

  /**
   * Moves virtual time on, each health check's real answer in before time moves further, once the
   * health checker watches what the API changed last.
   */
  void advance(Duration d) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).until(gateway.fulcrum()::healthCheckerCaughtUp);
    time.advance(d, () -> gateway.fulcrum().healthChecksInFlight() == 0);
  }

  static String yaml(Path dataDir, int bluePort, int greenPort, String extraYaml) {
    return ElbClients.CREDENTIALS_YAML + """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
          - {zone: zone-b, address: 127.0.0.2}
        resources: {source: api}
        data-dir: %s
        target-groups:
          - {name: blue, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]}
          - {name: green, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]}
        """.formatted(dataDir, bluePort, greenPort) + extraYaml;
  }

  Resources resources() {
    return gateway.fulcrum().registry().resources();
  }

  String tg(String name) {
    return resources().targetGroupByName(name).orElseThrow().arn();
  }

  /** An application load balancer in both zones. */
  String createLoadBalancer(String name) {
    return elb.createLoadBalancer(b -> b.name(name).subnets("zone-a", "zone-b")).loadBalancers().get(0)
        .loadBalancerArn();
  }

  String createListener(String lbArn, int port, Action defaultAction) {
    return elb.createListener(b -> b.loadBalancerArn(lbArn).protocol(ProtocolEnum.HTTP).port(port)
        .defaultActions(defaultAction)).listeners().get(0).listenerArn();
  }

  String createRule(String listenerArn, int priority, Action action, RuleCondition... conditions) {
    return elb.createRule(b -> b.listenerArn(listenerArn).priority(priority).conditions(conditions).actions(action))
        .rules().get(0).ruleArn();
  }

  static Action forward(String tgArn) {
    return Action.builder().type(ActionTypeEnum.FORWARD).targetGroupArn(tgArn).build();
  }

  static Action fixed(int status, String body) {
    return Action.builder().type(ActionTypeEnum.FIXED_RESPONSE).fixedResponseConfig(FixedResponseActionConfig.builder()
        .statusCode(String.valueOf(status)).contentType("text/plain").messageBody(body).build()).build();
  }

  static RuleCondition path(String... patterns) {
    return RuleCondition.builder().field("path-pattern").pathPatternConfig(c -> c.values(patterns)).build();
  }

  /** A request without a body on a new connection to {@code address:port}; Host is example.com unless given. */
  static RawConnection.Response send(String method, String address, int port, String path, Map<String, String> headers) {
    StringBuilder request = new StringBuilder(method + " " + path + " HTTP/1.1\r\n");
    if (headers.keySet().stream().noneMatch("Host"::equalsIgnoreCase)) {
      request.append("Host: example.com\r\n");
    }
    headers.forEach((k, v) -> request.append(k).append(": ").append(v).append("\r\n"));
    try (RawConnection c = RawConnection.open(address, port)) {
      return c.send(request.append("Connection: close\r\n\r\n").toString()).read();
    }
  }

  /** A GET on a new connection to {@code address:port}. */
  static RawConnection.Response get(String address, int port, String path, Map<String, String> headers) {
    return send("GET", address, port, path, headers);
  }

  static RawConnection.Response get(String address, int port, String path) {
    return get(address, port, path, Map.of());
  }

  static String body(String address, int port, String path) {
    return get(address, port, path).bodyText();
  }

  /** Whether a TCP connection to {@code address:port} is refused now. */
  static boolean refuses(String address, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(address, port), 2000);
      return false;
    } catch (ConnectException e) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Waits (polling, bounded) until nothing listens on {@code address:port} any more. */
  static void awaitRefused(String address, int port) {
    Awaitility.await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20))
        .until(() -> refuses(address, port));
  }

  /** The error a refused call answered, asserting its AWS code and HTTP status 400. */
  static ElasticLoadBalancingV2Exception refused(ThrowingCallable call, String code) {
    ElasticLoadBalancingV2Exception e = catchThrowableOfType(ElasticLoadBalancingV2Exception.class, call);
    assertThat(e).as("expected %s", code).isNotNull();
    assertThat(e.awsErrorDetails().errorCode()).isEqualTo(code);
    assertThat(e.statusCode()).isEqualTo(400);
    return e;
  }

  /**
   * Asserts that a call is refused with {@code code} and changes nothing: the registry keeps the very
   * same resources and the state file is byte for byte the same.
   */
  ElasticLoadBalancingV2Exception refusedUnchanged(ThrowingCallable call, String code) {
    Resources before = resources();
    byte[] state = state();
    ElasticLoadBalancingV2Exception e = refused(call, code);
    assertThat(resources()).isSameAs(before);
    assertThat(state()).isEqualTo(state);
    return e;
  }

  byte[] state() {
    try {
      return Files.readAllBytes(dataDir.resolve(StateStore.FILE));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static List<String> bodies(String address, int port, String path, int n) {
    return java.util.stream.IntStream.range(0, n).mapToObj(i -> body(address, port, path)).toList();
  }

  @Override
  public void close() {
    elb.close();
    gateway.close();
    blue.close();
    green.close();
    backends.close();
  }
}
