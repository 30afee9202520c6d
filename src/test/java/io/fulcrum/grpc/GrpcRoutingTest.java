package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Arns;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.EmptyProtos;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.TestServiceGrpc;
import io.grpc.testing.integration.UnimplementedServiceGrpc;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ALB parses {@code /package.service/method} and routes gRPC calls by package, service and method
 * with path-pattern rules. Four target groups, each a different server that names itself in an
 * {@code x-target} header: one method, the rest of its service (a vertx-grpc server), the rest of
 * the package, and everything else. Through an HTTPS listener, as on ALB.
 */
class GrpcRoutingTest {

  private static final Vertx VERTX = TestVertx.create();
  private static GrpcJava.Target unary;
  private static VertxTestService service;
  private static GrpcJava.Target pkg;
  private static GrpcJava.Target other;
  private static Gateway gateway;
  private static TestCertificates.Pem cert;
  private static int port;

  private final AtomicReference<Metadata> headers = new AtomicReference<>();
  private final AtomicReference<Metadata> trailers = new AtomicReference<>();
  private ManagedChannel channel;

  @BeforeAll
  static void start() throws Exception {
    cert = TestCertificates.pem(Files.createTempDirectory("grpc-routing"), "lb", "127.0.0.1");
    unary = GrpcJava.testService("unary-method");
    service = VertxTestService.start(VERTX, "test-service", null);
    pkg = GrpcJava.server("grpc-testing-package", null, new UnimplementedServiceGrpc.UnimplementedServiceImplBase() {
      @Override
      public void unimplementedCall(EmptyProtos.Empty request, StreamObserver<EmptyProtos.Empty> observer) {
        observer.onNext(request);
        observer.onCompleted();
      }
    });
    other = GrpcJava.server("everything-else", null, new HealthStatusManager().getHealthService());
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: other}]
                rules:
                  - priority: 10
                    conditions: [{field: path-pattern, values: ["/grpc.testing.TestService/UnaryCall"]}]
                    actions: [{type: forward, target-group: unary}]
                  - priority: 20
                    conditions: [{field: path-pattern, values: ["/grpc.testing.TestService/*"]}]
                    actions: [{type: forward, target-group: service}]
                  - priority: 30
                    conditions: [{field: path-pattern, values: ["/grpc.testing.*/*"]}]
                    actions: [{type: forward, target-group: package}]
        target-groups:
          - {name: unary, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: service, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: package, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: other, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, cert.certificate(), cert.privateKey(), unary.port(), service.port(), pkg.port(),
        other.port()));
  }

  @AfterAll
  static void stop() {
    gateway.close();
    unary.close();
    service.close();
    pkg.close();
    other.close();
    VERTX.close();
  }

  @BeforeEach
  void open() {
    channel = GrpcJava.tls(port, cert, MetadataUtils.newCaptureMetadataInterceptor(headers, trailers));
  }

  @AfterEach
  void close() {
    GrpcJava.close(channel);
  }

  private String answeredBy() {
    return headers.get().get(GrpcJava.TARGET);
  }

  private TestServiceGrpc.TestServiceBlockingStub testService() {
    return TestServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @Test
  void oneMethod_goesToItsOwnGroup() {
    testService().unaryCall(SimpleRequest.newBuilder().setResponseSize(3).build());

    assertThat(answeredBy()).isEqualTo("unary-method");
  }

  @Test
  void theServicesOtherMethods_goToTheServiceGroup_streamingIncluded() {
    testService().emptyCall(EmptyProtos.Empty.getDefaultInstance());
    assertThat(answeredBy()).isEqualTo("test-service");

    headers.set(null);
    testService().streamingOutputCall(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(7)).build()).forEachRemaining(r -> { });
    assertThat(answeredBy()).isEqualTo("test-service");
  }

  @Test
  void eachCall_countsAsAGrpcRequestOfItsGroup_inTheMetrics() {
    String arn = gateway.fulcrum().config().resources().targetGroupByName("unary").orElseThrow().arn();
    Map<String, String> unaryGroup = Map.of("TargetGroup", Arns.targetGroupDimension(arn));
    try (Http http = new Http(VERTX)) {
      Scrape before = Scrape.of(http, gateway.controlPort());

      testService().unaryCall(SimpleRequest.newBuilder().setResponseSize(3).build());

      Scrape after = Scrape.of(http, gateway.controlPort());
      for (String metric : new String[] {"GrpcRequestCount", "RequestCount", "HTTPCode_Target_2XX_Count"}) {
        assertThat(after.sum(metric, unaryGroup) - before.sum(metric, unaryGroup)).as(metric).isEqualTo(1);
      }
    }
  }

  @Test
  void anotherServiceOfThePackage_goesToThePackageGroup() {
    UnimplementedServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .unimplementedCall(EmptyProtos.Empty.getDefaultInstance());

    assertThat(answeredBy()).isEqualTo("grpc-testing-package");
  }

  @Test
  void anotherPackage_goesToTheDefaultGroup() {
    HealthCheckResponse r = HealthGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance());

    assertThat(r.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(answeredBy()).isEqualTo("everything-else");
  }
}
