package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.forward.ElbResponses;
import io.fulcrum.testing.Await;
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
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingInputCallResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.impl.ConnectionBase;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
  /** An HTTP/2 target that answers a call's head and one message, then drops its connection. */
  private static HttpServer cutting;
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

    /** Takes every message the client streams, and answers with their count once the client is done. */
    @Override
    public StreamObserver<StreamingInputCallRequest> streamingInputCall(
        StreamObserver<StreamingInputCallResponse> observer) {
      return new StreamObserver<>() {
        private int size;

        @Override
        public void onNext(StreamingInputCallRequest message) {
          size += message.getPayload().getBody().size();
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
          observer.onNext(StreamingInputCallResponse.newBuilder().setAggregatedPayloadSize(size).build());
          observer.onCompleted();
        }
      };
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
    cutting = Await.result(CLIENTS.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true))
        .requestHandler(req -> req.response().putHeader("content-type", "application/grpc")
            .write(GrpcWire.message(new byte[] {8, 1}))
            .onSuccess(v -> ((ConnectionBase) req.connection()).channel().close()))
        .listen(0, "127.0.0.1"));
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
                  - priority: 3
                    conditions: [{field: http-header, http-header-name: x-group, values: [cutting]}]
                    actions: [{type: forward, target-group: cutting}]
                  - priority: 4
                    conditions: [{field: http-header, http-header-name: x-group, values: [cutting-rewritten]}]
                    transforms: [{type: url-rewrite, regex: '^/grpc\\.testing\\.(.*)$', replace: '/grpc.testing.$1'}]
                    actions: [{type: forward, target-group: cutting}]
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
          - {name: cutting, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, shortIdlePort, slow.port(), Ports.free(), cutting.actualPort()));
  }

  @AfterAll
  static void stop() {
    gateway.close();
    slow.close();
    Await.result(cutting.close());
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

  /**
   * A target silent for the idle timeout after its response began: too late for a 504, but the
   * call still ends with a status, DEADLINE_EXCEEDED in its trailers, not a reset (INTERNAL).
   */
  @Test
  void targetSilentMidStream_pastTheIdleTimeout_endsWithDeadlineExceededTrailers() {
    wire = new GrpcWire(CLIENTS);
    int cancelledBefore = CANCELLED.get();
    StreamingOutputCallRequest req = StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(5)).build();

    GrpcWire.Answer a = wire.callAndWait(shortIdlePort, SERVER_STREAM, Map.of(), GrpcWire.message(req.toByteArray()));

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.headers().get("x-target")).isEqualTo("slow");
    assertThat(a.messages()).as("the message sent before it went silent").isEqualTo(1);
    assertThat(a.grpcStatus()).as("DEADLINE_EXCEEDED in the trailers").isEqualTo("4");
    assertThat(a.grpcMessage()).isEqualTo("504 Gateway Time-out: target sent nothing before the idle timeout");
    await().atMost(Duration.ofSeconds(10)).until(() -> CANCELLED.get() == cancelledBefore + 1);
  }

  /**
   * A target that drops its connection mid-response: the call ends UNAVAILABLE (which a client may
   * retry), in its trailers; on the direct path, and on Vert.x's (a rule with transforms).
   */
  @ParameterizedTest
  @ValueSource(strings = {"cutting", "cutting-rewritten"})
  void targetGoneMidStream_endsWithUnavailableTrailers(String group) {
    wire = new GrpcWire(CLIENTS);

    GrpcWire.Answer a = wire.callAndWait(port, SERVER_STREAM, Map.of("x-group", group), GrpcWire.emptyMessage());

    assertThat(a.status()).isEqualTo(200);
    assertThat(a.messages()).as("the message sent before it went").isEqualTo(1);
    assertThat(a.grpcStatus()).as("UNAVAILABLE in the trailers").isEqualTo("14");
    assertThat(a.grpcMessage()).isEqualTo("502 Bad Gateway: target reset or closed the connection");
  }

  /**
   * The idle timeout runs while nothing goes either way: a client streaming its messages more
   * slowly than the timeout, to a target that answers once it has them all, is not cut.
   */
  @Test
  void aClientStreamSlowerThanTheIdleTimeout_goesOnWhileItsMessagesFlow() throws Exception {
    channel = GrpcJava.h2c(shortIdlePort);
    CompletableFuture<StreamingInputCallResponse> answer = new CompletableFuture<>();
    StreamObserver<StreamingInputCallRequest> requests = TestServiceGrpc.newStub(channel)
        .withDeadlineAfter(30, TimeUnit.SECONDS).streamingInputCall(new StreamObserver<>() {
          @Override
          public void onNext(StreamingInputCallResponse value) {
            answer.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            answer.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
          }
        });
    StreamingInputCallRequest message = StreamingInputCallRequest.newBuilder()
        .setPayload(Payload.newBuilder().setBody(com.google.protobuf.ByteString.copyFrom(new byte[10]))).build();
    ScheduledExecutorService clock = Executors.newSingleThreadScheduledExecutor();
    try {
      // 8 messages 250 ms apart: 2 s of a stream whose target says nothing, against an idle timeout of 1 s.
      AtomicInteger sent = new AtomicInteger();
      clock.scheduleAtFixedRate(() -> {
        if (sent.incrementAndGet() <= 8) {
          requests.onNext(message);
        } else if (sent.get() == 9) {
          requests.onCompleted();
        }
      }, 0, 250, TimeUnit.MILLISECONDS);
      assertThat(answer.get(30, TimeUnit.SECONDS).getAggregatedPayloadSize()).isEqualTo(80);
    } finally {
      clock.shutdownNow();
    }
  }
}
