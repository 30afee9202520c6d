package io.fulcrum.api;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.testing.ElbClients;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.AbstractThrowableAssert;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.client.config.ClientOverrideConfiguration;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.elasticloadbalancingv2.ElasticLoadBalancingV2Client;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeTargetHealthRequest;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ElasticLoadBalancingV2Exception;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroup;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetTypeEnum;

/**
 * A Fulcrum whose resources the API owns ({@code resources.source: api}, state in a temporary data
 * dir), with the load balancer {@code lb} whose HTTP listener forwards to the {@code ip} target
 * group {@code web} (and has one fixed-response rule), and the real AWS SDK's ELBv2 client pointed
 * at it. Either on a real clock with the control plane's timers frozen (no health checks,
 * deregistration delays never end) or on a {@link VirtualTime} that starts now (so the SDK's
 * signatures stay within 15 minutes).
 */
final class ApiGateway implements AutoCloseable {

  static final String VPC = "vpc-fulcrum";

  final int listenerPort = Ports.free();
  final VirtualTime time;
  final Gateway gateway;
  final ElasticLoadBalancingV2Client elb;
  /** DescribeTargetHealth calls answered through {@link #elb} (the waiters' polls included). */
  final AtomicInteger healthCalls = new AtomicInteger();

  private ApiGateway(Path dataDir, String source, String extraYaml, VirtualTime time) {
    this.time = time;
    String yaml = yaml(dataDir, listenerPort, source) + extraYaml;
    this.gateway = time == null ? Gateway.start(TestVertx.create(), yaml) : Gateway.start(TestVertx.create(), yaml, 1, time);
    this.elb = client(gateway.controlPort(), healthCalls);
  }

  /** Real clock, timers frozen. */
  static ApiGateway start(Path dataDir) {
    return new ApiGateway(dataDir, "api", "", null);
  }

  static ApiGateway start(Path dataDir, String source, String extraYaml) {
    return new ApiGateway(dataDir, source, extraYaml, null);
  }

  /** Health checks and deregistration delays on virtual time that starts now. */
  static ApiGateway onVirtualTime(Path dataDir, String extraYaml) {
    return new ApiGateway(dataDir, "api", extraYaml, new VirtualTime(System.currentTimeMillis()));
  }

  static String yaml(Path dataDir, int listenerPort, String source) {
    return ElbClients.CREDENTIALS_YAML
        + "resources: {source: " + source + "}\n"
        + "data-dir: \"" + dataDir + "\"\n"
        + "nodes:\n"
        + "  - {zone: zone-a, address: 127.0.0.1}\n"
        + "  - {zone: zone-b, address: 127.0.0.2}\n"
        + "instances:\n"
        + "  i-0123456789abcdef0: {address: 127.0.0.1, zone: zone-a}\n"
        + "  i-0fedcba9876543210: {address: 127.0.0.1, zone: zone-b, state: stopped}\n"
        + "load-balancers:\n"
        + "  - name: lb\n"
        + "    listeners:\n"
        + "      - protocol: HTTP\n"
        + "        port: " + listenerPort + "\n"
        + "        default-actions: [{type: forward, target-group: web}]\n"
        + "        rules:\n"
        + "          - priority: 10\n"
        + "            conditions: [{field: path-pattern, values: [\"/static/*\"]}]\n"
        + "            actions: [{type: fixed-response, status-code: \"404\"}]\n"
        + "target-groups:\n"
        + "  - name: web\n"
        + "    target-type: ip\n"
        + "    protocol: HTTP\n"
        + "    port: 80\n"
        + "    health-check: {interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2, unhealthy-threshold-count: 2}\n"
        + "    attributes: {deregistration_delay.timeout_seconds: \"30\"}\n"
        + "    targets: []\n";
  }

  /** The SDK's client with an interceptor counting DescribeTargetHealth calls. */
  static ElasticLoadBalancingV2Client client(int port, AtomicInteger healthCalls) {
    ExecutionInterceptor counter = new ExecutionInterceptor() {
      @Override
      public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
        if (context.request() instanceof DescribeTargetHealthRequest) {
          healthCalls.incrementAndGet();
        }
      }
    };
    return ElasticLoadBalancingV2Client.builder()
        .endpointOverride(URI.create("http://127.0.0.1:" + port))
        .region(Region.US_EAST_1)
        .credentialsProvider(StaticCredentialsProvider.create(
            AwsBasicCredentials.create(ElbClients.ACCESS_KEY, ElbClients.SECRET_KEY)))
        .httpClient(UrlConnectionHttpClient.builder().socketTimeout(Duration.ofSeconds(30)).build())
        .overrideConfiguration(ClientOverrideConfiguration.builder().retryStrategy(b -> b.maxAttempts(1))
            .addExecutionInterceptor(counter).build())
        .build();
  }

  /** The group a name names (through the API). */
  TargetGroup group(String name) {
    return elb.describeTargetGroups(b -> b.names(name)).targetGroups().get(0);
  }

  String arn(String name) {
    return group(name).targetGroupArn();
  }

  /** Creates an {@code ip} HTTP group on port 80 and returns its ARN. */
  String createIpGroup(String name) {
    return elb.createTargetGroup(b -> b.name(name).protocol("HTTP").port(80).vpcId(VPC).targetType(TargetTypeEnum.IP))
        .targetGroups().get(0).targetGroupArn();
  }

  /** Every target group, all pages. */
  List<TargetGroup> allGroups() {
    return elb.describeTargetGroupsPaginator(b -> { }).targetGroups().stream().toList();
  }

  /**
   * Moves virtual time on, each health check's real answer in before time moves further. First
   * waits until the health checker watches what the API changed last (it learns of a change just
   * after the listeners do), so the checks of a new registration fall in this advance.
   */
  void advance(Duration d) {
    org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(gateway.fulcrum()::healthCheckerCaughtUp);
    time.advance(d, () -> gateway.fulcrum().healthChecksInFlight() == 0);
  }

  /** Asserts that a call fails with an AWS error code and HTTP status; gives the assertion for more. */
  static AbstractThrowableAssert<?, ? extends Throwable> assertAwsError(ThrowingCallable call, String code,
      int status) {
    return assertThatThrownBy(call).isInstanceOfSatisfying(ElasticLoadBalancingV2Exception.class, e -> {
      org.assertj.core.api.Assertions.assertThat(e.awsErrorDetails().errorCode()).as(e.getMessage()).isEqualTo(code);
      org.assertj.core.api.Assertions.assertThat(e.statusCode()).isEqualTo(status);
    });
  }

  /** Asserts that a call fails with {@code code} (HTTP 400) and exactly {@code message}. */
  static void assertAwsError(ThrowingCallable call, String code, String message) {
    assertThatThrownBy(call).isInstanceOfSatisfying(ElasticLoadBalancingV2Exception.class, e -> {
      org.assertj.core.api.Assertions.assertThat(e.awsErrorDetails().errorCode()).as(e.getMessage()).isEqualTo(code);
      org.assertj.core.api.Assertions.assertThat(e.statusCode()).isEqualTo(400);
      org.assertj.core.api.Assertions.assertThat(e.awsErrorDetails().errorMessage()).isEqualTo(message);
    });
  }

  @Override
  public void close() {
    elb.close();
    gateway.close();
  }
}
