package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.MetadataUtils;
import io.grpc.testing.integration.EmptyProtos;
import io.grpc.testing.integration.TestServiceGrpc;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * gRPC health checks (SPEC §7.4) driving target states, on virtual time: POST of an empty message
 * to the check path over HTTP/2, judged on the {@code grpc-status} returned. By default
 * {@code /AWS.ALB/healthcheck} with code 12, which any gRPC server without that service answers
 * (UNIMPLEMENTED): healthy. Configured: {@code /grpc.health.v1.Health/Check} with code 0, against
 * grpc-java's standard health service. Code lists and ranges; failures name the code.
 */
class GrpcHealthCheckTest {

  private final VirtualTime time = new VirtualTime();
  private final List<String> checkedPaths = new CopyOnWriteArrayList<>();
  private final java.util.concurrent.ScheduledExecutorService executor =
      java.util.concurrent.Executors.newSingleThreadScheduledExecutor();
  private GrpcJava.Target plain;
  private HealthStatusManager healthA;
  private HealthStatusManager healthB;
  private GrpcJava.Target withHealthA;
  private GrpcJava.Target withHealthB;
  private Gateway gateway;
  private int port;
  private int downPort;

  @BeforeEach
  void start() {
    plain = GrpcJava.testService("plain");
    healthA = new HealthStatusManager();
    healthB = new HealthStatusManager();
    withHealthA = GrpcJava.server("health-a", null, recordPaths(healthA.getHealthService().bindService()),
        new io.grpc.testing.integration.TestServiceImpl(executor).bindService());
    withHealthB = GrpcJava.server("health-b", null, recordPaths(healthB.getHealthService().bindService()),
        new io.grpc.testing.integration.TestServiceImpl(executor).bindService());
    port = Ports.free();
    downPort = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: standard}]
                rules:
                  - {priority: 1, conditions: [{field: http-header, http-header-name: x-group, values: [default]}], actions: [{type: forward, target-group: default}]}
                  - {priority: 2, conditions: [{field: http-header, http-header-name: x-group, values: [lists]}], actions: [{type: forward, target-group: lists}]}
                  - {priority: 3, conditions: [{field: http-header, http-header-name: x-group, values: [strict]}], actions: [{type: forward, target-group: strict}]}
        target-groups:
          - name: default
            target-type: ip
            protocol: HTTP
            port: 80
            protocol-version: GRPC
            health-check: {interval-seconds: 10, timeout-seconds: 5, healthy-threshold-count: 2, unhealthy-threshold-count: 2}
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
          - name: standard
            target-type: ip
            protocol: HTTP
            port: 80
            protocol-version: GRPC
            health-check: {path: /grpc.health.v1.Health/Check, interval-seconds: 10, timeout-seconds: 5,
                           healthy-threshold-count: 2, unhealthy-threshold-count: 2, matcher: {grpc-code: "0"}}
            targets: [{id: 127.0.0.1, port: %d}, {id: 127.0.0.1, port: %d}]
          - name: lists
            target-type: ip
            protocol: HTTP
            port: 80
            protocol-version: GRPC
            health-check: {path: /grpc.testing.TestService/UnimplementedCall, interval-seconds: 10, timeout-seconds: 5,
                           matcher: {grpc-code: "0-4,12"}}
            targets: [{id: 127.0.0.1, port: %2$d}]
          - name: strict
            target-type: ip
            protocol: HTTP
            port: 80
            protocol-version: GRPC
            health-check: {path: /grpc.testing.TestService/UnimplementedCall, interval-seconds: 10, timeout-seconds: 5,
                           healthy-threshold-count: 2, unhealthy-threshold-count: 2, matcher: {grpc-code: "0"}}
            targets: [{id: 127.0.0.1, port: %2$d}]
        """.formatted(port, plain.port(), downPort, withHealthA.port(), withHealthB.port()), 1, time);
  }

  @AfterEach
  void stop() {
    gateway.close();
    plain.close();
    withHealthA.close();
    withHealthB.close();
    executor.shutdownNow();
  }

  /** Records the method paths the health service is called on. */
  private io.grpc.ServerServiceDefinition recordPaths(io.grpc.ServerServiceDefinition service) {
    return ServerInterceptors.intercept(service, new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        checkedPaths.add("/" + call.getMethodDescriptor().getFullMethodName() + " "
            + headers.get(Metadata.Key.of("user-agent", Metadata.ASCII_STRING_MARSHALLER)));
        return next.startCall(call, headers);
      }
    });
  }

  private TargetHealth health(String group, int targetPort) {
    String arn = gateway.fulcrum().config().resources().targetGroups().stream().filter(g -> g.name().equals(group))
        .findFirst().orElseThrow().arn();
    return Await.result(gateway.fulcrum().health(arn)).targets().get("127.0.0.1:" + targetPort).health();
  }

  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  @Test
  void defaultCheck_awsAlbHealthcheckAnsweredUnimplemented_isHealthy_andADownTargetFails() {
    tick();
    tick();

    assertThat(health("default", plain.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(health("default", downPort)).isEqualTo(TargetHealth.FAILED);
  }

  @Test
  void standardHealthService_serving_isHealthy_andTheCheckIsAGrpcCallWithElbsUserAgent() {
    tick();

    assertThat(health("standard", withHealthA.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(health("standard", withHealthB.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(checkedPaths).anySatisfy(p -> assertThat(p)
        .startsWith("/grpc.health.v1.Health/Check ELB-HealthChecker/2.0"));
  }

  @Test
  void standardHealthService_failingTheCheck_makesTheTargetUnhealthy_withTheCodeInTheDescription_andTrafficAvoidsIt()
      throws Exception {
    tick();
    // No status for the whole server (service ""): Check answers NOT_FOUND (5).
    healthB.clearStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES);
    tick();
    tick();

    TargetHealth b = health("standard", withHealthB.port());
    assertThat(b.state()).isEqualTo(TargetState.UNHEALTHY);
    assertThat(b.reason()).isEqualTo("Target.ResponseCodeMismatch");
    assertThat(b.description()).isEqualTo("Health checks failed with these codes: [5]");
    assertThat(answeringTargets(20)).containsExactly("health-a");

    healthB.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    tick();
    tick();
    assertThat(health("standard", withHealthB.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(answeringTargets(20)).containsExactlyInAnyOrder("health-a", "health-b");
  }

  @Test
  void notServing_isStillHealthy_becauseOnlyTheGrpcStatusIsJudged() {
    healthA.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.NOT_SERVING);
    tick();
    tick();

    assertThat(health("standard", withHealthA.port())).as("grpc-status 0 with NOT_SERVING in the body")
        .isEqualTo(TargetHealth.HEALTHY);
  }

  @Test
  void codeListsAndRanges_decide_unimplementedIsHealthyUnder0to4And12_butNotUnder0() {
    tick();
    tick();

    assertThat(health("lists", plain.port())).isEqualTo(TargetHealth.HEALTHY);
    assertThat(health("strict", plain.port())).isEqualTo(TargetHealth.responseCodeMismatch(12));
  }

  /** Which targets answer {@code n} EmptyCalls through Fulcrum (the x-target header of each). */
  private Set<String> answeringTargets(int n) throws InterruptedException {
    Set<String> seen = new HashSet<>();
    AtomicReference<Metadata> headers = new AtomicReference<>();
    ManagedChannel channel = GrpcJava.h2c(port, MetadataUtils.newCaptureMetadataInterceptor(headers,
        new AtomicReference<>()));
    try {
      for (int i = 0; i < n; i++) {
        TestServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
            .emptyCall(EmptyProtos.Empty.getDefaultInstance());
        seen.add(headers.get().get(GrpcJava.TARGET));
      }
    } finally {
      channel.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
    }
    return seen;
  }
}
