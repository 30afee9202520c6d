package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.grpc.ClientInterceptor;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.EmptyProtos;
import io.grpc.testing.integration.Messages.EchoStatus;
import io.grpc.testing.integration.Messages.Payload;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.SimpleRequest;
import io.grpc.testing.integration.Messages.SimpleResponse;
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The four kinds of gRPC call through Fulcrum, with grpc-java as the client and two independent
 * servers as targets: grpc-java's interop TestServiceImpl and a TestService written with
 * vertx-grpc-server. Each runs through an HTTPS listener (ALPN h2, as on ALB) and an h2c listener.
 * Request metadata (ASCII and -bin) reaches the target, which echoes it into the response headers
 * and trailers; statuses and messages come back as the target sent them.
 */
class GrpcCallsTest {

  enum TargetKind { GRPC_JAVA, VERTX_GRPC }

  enum ListenerKind { HTTPS, H2C }

  private static final Vertx VERTX = TestVertx.create();
  private static final Metadata.Key<String> GROUP = Metadata.Key.of("x-group", Metadata.ASCII_STRING_MARSHALLER);
  private static GrpcJava.Target javaTarget;
  private static VertxTestService vertxTarget;
  private static Gateway gateway;
  private static TestCertificates.Pem cert;
  private static int h2cPort;
  private static int httpsPort;

  private final AtomicReference<Metadata> headers = new AtomicReference<>();
  private final AtomicReference<Metadata> trailers = new AtomicReference<>();
  private ManagedChannel channel;
  private String expectedTarget;

  @BeforeAll
  static void start() throws Exception {
    Path dir = Files.createTempDirectory("grpc-calls");
    cert = TestCertificates.pem(dir, "lb", "localhost", "127.0.0.1");
    javaTarget = GrpcJava.testService("grpc-java");
    vertxTarget = VertxTestService.start(VERTX, "vertx-grpc", null);
    h2cPort = Ports.free();
    httpsPort = Ports.free();
    String rules = """
                    - priority: 1
                      conditions: [{field: http-header, http-header-name: x-group, values: [vertx]}]
                      actions: [{type: forward, target-group: vertx}]
        """;
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: java}]
                rules:
        %s
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: java}]
                rules:
        %s
        target-groups:
          - {name: java, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %d}]}
          - {name: vertx, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(h2cPort, rules, httpsPort, cert.certificate(), cert.privateKey(), rules, javaTarget.port(),
        vertxTarget.port()));
  }

  @AfterAll
  static void stop() {
    gateway.close();
    javaTarget.close();
    vertxTarget.close();
    VERTX.close();
  }

  @AfterEach
  void closeChannel() {
    if (channel != null) {
      GrpcJava.close(channel);
    }
  }

  static Stream<Arguments> combinations() {
    List<Arguments> all = new ArrayList<>();
    for (TargetKind t : TargetKind.values()) {
      for (ListenerKind l : ListenerKind.values()) {
        all.add(Arguments.of(t, l));
      }
    }
    return all.stream();
  }

  /** A stub through Fulcrum to {@code target}, capturing the response headers and trailers. */
  private TestServiceGrpc.TestServiceBlockingStub blocking(TargetKind target, ListenerKind listener) {
    return TestServiceGrpc.newBlockingStub(channel(target, listener)).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private TestServiceGrpc.TestServiceStub async(TargetKind target, ListenerKind listener) {
    return TestServiceGrpc.newStub(channel(target, listener)).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  private ManagedChannel channel(TargetKind target, ListenerKind listener) {
    Metadata sent = new Metadata();
    if (target == TargetKind.VERTX_GRPC) {
      sent.put(GROUP, "vertx");
    }
    expectedTarget = target == TargetKind.VERTX_GRPC ? "vertx-grpc" : "grpc-java";
    sent.put(GrpcJava.ECHO_INITIAL, "initial value, ASCII");
    sent.put(GrpcJava.ECHO_TRAILING, new byte[] {(byte) 0xab, 0x00, (byte) 0xff, 0x0a});
    ClientInterceptor[] interceptors = {MetadataUtils.newAttachHeadersInterceptor(sent),
        MetadataUtils.newCaptureMetadataInterceptor(headers, trailers)};
    channel = listener == ListenerKind.H2C ? GrpcJava.h2c(h2cPort, interceptors)
        : GrpcJava.tls(httpsPort, cert, interceptors);
    return channel;
  }

  private void assertMetadataEchoed() {
    // Trailers are captured when the call closes, which may follow the last message a moment later.
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> trailers.get() != null);
    assertThat(headers.get().get(GrpcJava.TARGET)).as("the target that answered").isEqualTo(expectedTarget);
    assertThat(headers.get().get(GrpcJava.ECHO_INITIAL)).as("ASCII metadata, echoed into the headers")
        .isEqualTo("initial value, ASCII");
    assertThat(trailers.get().get(GrpcJava.ECHO_TRAILING)).as("binary metadata, echoed into the trailers")
        .containsExactly((byte) 0xab, 0x00, (byte) 0xff, 0x0a);
  }

  private static Payload payload(int size) {
    return Payload.newBuilder().setBody(ByteString.copyFrom(new byte[size])).build();
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("combinations")
  void unary_carriesPayloadsBothWays_andMetadataInHeadersAndTrailers(TargetKind target, ListenerKind listener) {
    TestServiceGrpc.TestServiceBlockingStub stub = blocking(target, listener);

    assertThat(stub.emptyCall(EmptyProtos.Empty.getDefaultInstance())).isEqualTo(EmptyProtos.Empty.getDefaultInstance());
    SimpleResponse r = stub.unaryCall(SimpleRequest.newBuilder().setResponseSize(314_159).setPayload(payload(271_828))
        .build());

    assertThat(r.getPayload().getBody().size()).isEqualTo(314_159);
    assertMetadataEchoed();
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("combinations")
  void unary_errorStatus_reachesTheClientWithItsMessageAndTrailingMetadata(TargetKind target, ListenerKind listener) {
    String message = "test status message\twith ünicode, 100% and a\nnew line";
    TestServiceGrpc.TestServiceBlockingStub stub = blocking(target, listener);

    assertThatThrownBy(() -> stub.unaryCall(SimpleRequest.newBuilder()
        .setResponseStatus(EchoStatus.newBuilder().setCode(Status.Code.FAILED_PRECONDITION.value()).setMessage(message))
        .build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.FAILED_PRECONDITION);
          assertThat(e.getStatus().getDescription()).isEqualTo(message);
        });
    assertThat(trailers.get().get(GrpcJava.ECHO_TRAILING)).as("custom trailing metadata with an error")
        .containsExactly((byte) 0xab, 0x00, (byte) 0xff, 0x0a);
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("combinations")
  void serverStreaming_deliversEveryResponseInOrder(TargetKind target, ListenerKind listener) {
    int[] sizes = {31_415, 9, 2_653, 58_979};
    StreamingOutputCallRequest.Builder req = StreamingOutputCallRequest.newBuilder();
    for (int s : sizes) {
      req.addResponseParameters(ResponseParameters.newBuilder().setSize(s));
    }

    Iterator<StreamingOutputCallResponse> it = blocking(target, listener).streamingOutputCall(req.build());
    List<Integer> got = new ArrayList<>();
    it.forEachRemaining(r -> got.add(r.getPayload().getBody().size()));

    assertThat(got).containsExactly(31_415, 9, 2_653, 58_979);
    assertMetadataEchoed();
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("combinations")
  void clientStreaming_deliversEveryRequest(TargetKind target, ListenerKind listener) throws Exception {
    CompletableFuture<Integer> total = new CompletableFuture<>();
    StreamObserver<StreamingInputCallRequest> requests = async(target, listener).streamingInputCall(
        new StreamObserver<>() {
          @Override
          public void onNext(io.grpc.testing.integration.Messages.StreamingInputCallResponse value) {
            total.complete(value.getAggregatedPayloadSize());
          }

          @Override
          public void onError(Throwable t) {
            total.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
          }
        });
    for (int size : new int[] {27_182, 8, 1_828, 45_904}) {
      requests.onNext(StreamingInputCallRequest.newBuilder().setPayload(payload(size)).build());
    }
    requests.onCompleted();

    assertThat(total.get(30, TimeUnit.SECONDS)).isEqualTo(74_922);
    assertMetadataEchoed();
  }

  /** Collects a response stream for a test thread to take from. */
  private static final class Responses implements StreamObserver<StreamingOutputCallResponse> {
    final BlockingQueue<Object> events = new LinkedBlockingQueue<>();
    static final Object COMPLETED = new Object();

    @Override
    public void onNext(StreamingOutputCallResponse value) {
      events.add(value);
    }

    @Override
    public void onError(Throwable t) {
      events.add(t);
    }

    @Override
    public void onCompleted() {
      events.add(COMPLETED);
    }

    Object next() throws InterruptedException {
      Object e = events.poll(30, TimeUnit.SECONDS);
      assertThat(e).as("an event within 30 s").isNotNull();
      return e;
    }
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("combinations")
  void bidiStreaming_answersEachRequestBeforeTheNextIsSent(TargetKind target, ListenerKind listener)
      throws Exception {
    Responses responses = new Responses();
    StreamObserver<StreamingOutputCallRequest> requests = async(target, listener).fullDuplexCall(responses);
    int[] sizes = {31_415, 9, 2_653, 58_979};
    for (int size : sizes) {
      requests.onNext(StreamingOutputCallRequest.newBuilder()
          .addResponseParameters(ResponseParameters.newBuilder().setSize(size)).setPayload(payload(size / 2)).build());
      // Ping-pong: the answer arrives while the call is still open in both directions.
      Object r = responses.next();
      assertThat(r).isInstanceOf(StreamingOutputCallResponse.class);
      assertThat(((StreamingOutputCallResponse) r).getPayload().getBody().size()).isEqualTo(size);
    }
    requests.onCompleted();

    assertThat(responses.next()).isSameAs(Responses.COMPLETED);
    assertMetadataEchoed();
  }

  @ParameterizedTest(name = "{0} via {1}")
  @MethodSource("combinations")
  void bidiStreaming_errorMidStream_endsTheCallWithTheTargetsStatus(TargetKind target, ListenerKind listener)
      throws Exception {
    Responses responses = new Responses();
    StreamObserver<StreamingOutputCallRequest> requests = async(target, listener).fullDuplexCall(responses);
    requests.onNext(StreamingOutputCallRequest.newBuilder()
        .addResponseParameters(ResponseParameters.newBuilder().setSize(10)).build());
    assertThat(responses.next()).isInstanceOf(StreamingOutputCallResponse.class);

    requests.onNext(StreamingOutputCallRequest.newBuilder()
        .setResponseStatus(EchoStatus.newBuilder().setCode(Status.Code.RESOURCE_EXHAUSTED.value()).setMessage("enough"))
        .build());

    Object end = responses.next();
    assertThat(end).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(e.getStatus().getDescription()).isEqualTo("enough");
    });
    requests.onCompleted();
  }
}
