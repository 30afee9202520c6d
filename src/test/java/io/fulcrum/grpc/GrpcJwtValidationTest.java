package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.JwksServer;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestJwts;
import io.fulcrum.testing.TestVertx;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.TestServiceGrpc;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A gRPC service behind a jwt-validation action, called with grpc-java: a call whose metadata
 * carries a valid bearer token reaches the service; one without, or with a bad one, ends
 * UNAUTHENTICATED at the load balancer.
 */
class GrpcJwtValidationTest {

  private static final String ISSUER = "https://issuer.example.com";
  private static final TestJwts.Key KEY = TestJwts.Key.rsa("k1");
  private static final Metadata.Key<String> AUTHORIZATION =
      Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER);

  private final Vertx vertx = TestVertx.create();
  private GrpcJava.Target service;
  private JwksServer idp;
  private Gateway gateway;
  private TestCertificates.Pem cert;
  private int port;

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createTempDirectory("grpc-jwt");
    cert = TestCertificates.pem(dir, "lb", "127.0.0.1");
    service = GrpcJava.testService("service");
    idp = JwksServer.start(vertx, dir, TestJwts.jwks(KEY));
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        jwks: {ca-certificates: '%s'}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions:
                  - {type: jwt-validation, jwks-endpoint: '%s/jwks', issuer: '%s'}
                  - {type: forward, target-group: service}
        target-groups:
          - {name: service, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(idp.caFile(), port, cert.certificate(), cert.privateKey(), idp.origin(), ISSUER, service.port()));
  }

  @AfterEach
  void stop() {
    gateway.close();
    service.close();
    vertx.close();
  }

  private int call(String authorization) {
    Metadata metadata = new Metadata();
    if (authorization != null) {
      metadata.put(AUTHORIZATION, authorization);
    }
    ManagedChannel channel = GrpcJava.tls(port, cert, MetadataUtils.newAttachHeadersInterceptor(metadata));
    try {
      return TestServiceGrpc.newBlockingStub(channel).unaryCall(SimpleRequest.newBuilder().setResponseSize(3).build())
          .getPayload().getBody().size();
    } finally {
      GrpcJava.close(channel);
    }
  }

  @Test
  void aCallWithAValidToken_reachesTheService_othersEndUnauthenticated() {
    String token = KEY.sign(TestJwts.claims(ISSUER, System.currentTimeMillis()));
    assertThat(call("Bearer " + token)).isEqualTo(3);

    StatusRuntimeException none = catchThrowableOfType(StatusRuntimeException.class, () -> call(null));
    assertThat(none.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(none.getStatus().getDescription()).contains("401");
    StatusRuntimeException bad = catchThrowableOfType(StatusRuntimeException.class,
        () -> call("Bearer " + TestJwts.Key.rsa("k1").sign(TestJwts.claims(ISSUER, System.currentTimeMillis()))));
    assertThat(bad.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED);
  }
}
