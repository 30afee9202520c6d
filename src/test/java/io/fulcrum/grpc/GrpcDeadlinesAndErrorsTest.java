package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.forward.ElbResponses;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.EmptyProtos;
import io.grpc.testing.integration.Messages.Payload;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code grpc-timeout} is honoured by Fulcrum itself, and the failures Fulcrum generates for a
 * gRPC call are gRPC answers (HTTP 200, trailers-only, {@code grpc-status} and a percent-encoded
 * {@code grpc-message}): UNAVAILABLE (14) when no target can serve, DEADLINE_EXCEEDED (4) when
 * the target or the deadline runs out. The target is grpc-java with methods that never answer.
 */
class GrpcDeadlinesAndErrorsTest {

  private static final String UNARY = "/grpc.testing.TestService/UnaryCall";
  private static final String SERVER_STREAM = "/grpc.testing.TestService/StreamingOutputCall";
  private static final String EMPTY = "/grpc.testing.TestService/EmptyCall";
  private static final Metadata.Key<String> GROUP = Metadata.Key.of("x-group", Metadata.ASCII_STRING_MARSHALLER);

  private static final AtomicInteger CANCELLED = new AtomicInteger();
  private static final Vertx CLIENTS = TestVertx.create();
  private static GrpcJava.Target slow;
  private static Gateway gateway;
  private static int port;
  private static int shortIdlePort;
  private GrpcWire wire;
  private ManagedChannel channel;

  /** UnaryCall never answers; StreamingOutputCall sends one message and stalls; EmptyCall answers at once. */
  private static final class SlowService extends TestServiceGrpc.TestServiceImplBase {
    @Override
    public void emptyCall(EmptyProtos.Empty request, StreamObserver<EmptyProtos.Empty> observer) {
      observer.onNext(request);
      observer.onCompleted();
    }

    @Override
    public void unaryCall(SimpleRequest request, StreamObserver<SimpleResponse> observer) {
      ((ServerCallStreamObserver<SimpleResponse>) observer).setOnCancelHandler(CANCELLED::incrementAndGet);
    }

    @Override
    public void streamingOutputCall(StreamingOutputCallRequest request,
        StreamObserver<StreamingOutputCallResponse> observer) {
      ((ServerCallStreamObserver<StreamingOutputCallResponse>) observer).setOnCancelHandler(CANCELLED::incrementAndGet);
      observer.onNext(StreamingOutputCallResponse.newBuilder()
          .setPayload(Payload.newBuilder().setBody(com.google.protobuf.ByteString.copyFromUtf8("first"))).build());
    }
  }

  @BeforeAll
  static void start() {
    slow = GrpcJava.server("slow", null, new SlowService());
    port = Ports.free();
    shortIdlePort = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: slow}]
                rules:
                  - priority: 1
                    conditions: [{field: http-header, http-header-name: x-group, values: [empty]}]
                    actions: [{type: forward, target-group: empty}]
                  - priority: 2
                    conditions: [{field: http-header, http-header-name: x-group, values: [refused]}]
                    actions: [{type: forward, target-group: refused}]
          - name: short
            attributes: {idle_timeout.timeout_seconds: 1}
            listeners:
              - {protocol: HTTP, port: %d, h2c: true, default-actions: [{type: forward, target-group: slow-too}]}
        target-groups:
          - {name: slow-too, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %3$d}]}
          - {name: slow, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %d}]}
          - {name: empty, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC, targets: []}
          - {name: refused, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, shortIdlePort, slow.port(), Ports.free()));
  }

  @AfterAll
  static void stop() {
    gateway.close();
    slow.close();
    CLIENTS.close();
  }

  @AfterEach
  void closeClients() {
    if (wire != null) {
      wire.close();
    }
    if (channel != null) {
      GrpcJava.close(channel);
    }
  }

  @Test
  void grpcTimeout_beforeAnyAnswer_endsTheCallWithDeadlineExceeded_andCancelsItAtTheTarget() {
    wire = new GrpcWire(CLIENTS);
    int cancelledBefore = CANCELLED.get();

    // The client itself enforces nothing: only Fulcrum reads this grpc-timeout.
    GrpcWire.Answer a = wire.callAndWait(port, UNARY, Map.of("grpc-timeout", "300m"), GrpcWire.emptyMessage());

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.trailersOnly()).isTrue();
    assertThat(a.headers().get("content-type")).isEqualTo("application/grpc");
    assertThat(a.grpcStatus()).isEqualTo("4");
    assertThat(a.grpcMessage()).isEqualTo("504 Gateway Time-out: the gRPC call's grpc-timeout passed");
    await().atMost(Duration.ofSeconds(10)).until(() -> CANCELLED.get() == cancelledBefore + 1);
  }

  @Test
  void grpcTimeout_afterTheFirstMessage_endsTheStreamWithDeadlineExceededTrailers_andTheConnectionServesOn() {
    wire = new GrpcWire(CLIENTS);
    int cancelledBefore = CANCELLED.get();
    StreamingOutputCallRequest req = StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(5)).build();

    GrpcWire.Answer a = wire.callAndWait(port, SERVER_STREAM, Map.of("grpc-timeout", "500m"),
        GrpcWire.message(req.toByteArray()));

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.headers().get("x-target")).as("the target's own head came through").isEqualTo("slow");
    assertThat(a.messages()).as("the message sent before the deadline").isEqualTo(1);
    assertThat(a.grpcStatus()).as("DEADLINE_EXCEEDED in the trailers").isEqualTo("4");
    await().atMost(Duration.ofSeconds(10)).until(() -> CANCELLED.get() == cancelledBefore + 1);

    GrpcWire.Answer next = wire.callAndWait(port, EMPTY, Map.of(), GrpcWire.emptyMessage());
    assertThat(next.grpcStatus()).isEqualTo("0");
    assertThat(wire.connections()).as("the other call used the same connection").isEqualTo(1);
  }

  @Test
  void grpcJavaDeadline_onASlowCall_isDeadlineExceeded() {
    channel = GrpcJava.h2c(port);
    int cancelledBefore = CANCELLED.get();

    assertThatThrownBy(() -> TestServiceGrpc.newBlockingStub(channel).withDeadlineAfter(400, TimeUnit.MILLISECONDS)
        .unaryCall(SimpleRequest.getDefaultInstance()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
    // Cancelled at the target too (by Fulcrum's deadline or the client's reset, whichever came first).
    await().atMost(Duration.ofSeconds(10)).until(() -> CANCELLED.get() == cancelledBefore + 1);
  }

  private StatusRuntimeException failure(int listenerPort, String group) {
    Metadata m = new Metadata();
    if (group != null) {
      m.put(GROUP, group);
    }
    channel = GrpcJava.h2c(listenerPort, MetadataUtils.newAttachHeadersInterceptor(m));
    try {
      TestServiceGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS)
          .unaryCall(SimpleRequest.getDefaultInstance());
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("the call succeeded");
  }

  @Test
  void groupWithoutTargets_isUnavailable_withTheElbStatusInTheMessage() {
    StatusRuntimeException e = failure(port, "empty");

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).isEqualTo("503 Service Temporarily Unavailable: no registered targets");
    assertThat(e.getTrailers().get(Metadata.Key.of("server", Metadata.ASCII_STRING_MARSHALLER)))
        .isEqualTo(ElbResponses.SERVER);
  }

  @Test
  void groupWithoutTargets_onTheWire_isHttp200TrailersOnly_withGrpcStatus14() {
    wire = new GrpcWire(CLIENTS);

    GrpcWire.Answer a = wire.callAndWait(port, UNARY, Map.of("x-group", "empty"), GrpcWire.emptyMessage());

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.trailersOnly()).isTrue();
    assertThat(a.body().length()).isZero();
    assertThat(a.grpcStatus()).isEqualTo("14");
    assertThat(a.headers().get("grpc-message")).as("percent-encoded on the wire")
        .isEqualTo("503 Service Temporarily Unavailable: no registered targets");
  }

  @Test
  void targetRefusingTheConnection_isUnavailable() {
    StatusRuntimeException e = failure(port, "refused");

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).isEqualTo("502 Bad Gateway: target refused the connection");
  }

  @Test
  void targetSilentPastTheIdleTimeout_isDeadlineExceeded() {
    int cancelledBefore = CANCELLED.get();

    StatusRuntimeException e = failure(shortIdlePort, null);

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(e.getStatus().getDescription())
        .isEqualTo("504 Gateway Time-out: target sent nothing before the idle timeout");
    await().atMost(Duration.ofSeconds(10)).until(() -> CANCELLED.get() == cancelledBefore + 1);
  }
}
