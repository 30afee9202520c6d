package io.fulcrum.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.grpc.ManagedChannel;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.grpc.testing.integration.Messages.Payload;
import io.grpc.testing.integration.Messages.ResponseParameters;
import io.grpc.testing.integration.Messages.StreamingInputCallRequest;
import io.grpc.testing.integration.Messages.StreamingInputCallResponse;
import io.grpc.testing.integration.Messages.StreamingOutputCallRequest;
import io.grpc.testing.integration.Messages.StreamingOutputCallResponse;
import io.grpc.testing.integration.TestServiceGrpc;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * HTTP/2 flow control end to end: 64 MiB streamed through Fulcrum in either direction while the
 * receiving side reads slowly. Both ends are grpc-java with manual flow control: the sender only
 * sends while its stream is ready, so how far it gets while the receiver is not reading shows how
 * much is buffered on the way. A proxy that buffered whole streams would let the sender finish;
 * Fulcrum must hold it to a few windows, then deliver every byte once the reader resumes.
 */
class GrpcFlowControlTest {

  private static final int MESSAGE = 64 * 1024;
  private static final int MESSAGES = 1024;
  /** Far above what the windows on the way hold (about 1 MiB per grpc-java end, 64 KiB per hop), far below 64 MiB. */
  private static final int MAX_IN_FLIGHT = 16 * 1024 * 1024 / MESSAGE;
  private static final int FIRST_READ = 4;

  private final AtomicInteger serverSent = new AtomicInteger();
  private final AtomicLong serverReceivedBytes = new AtomicLong();
  private final AtomicInteger serverReceived = new AtomicInteger();
  private final AtomicReference<ServerCallStreamObserver<?>> uploadCall = new AtomicReference<>();
  private GrpcJava.Target target;
  private Gateway gateway;
  private ManagedChannel channel;

  /** A TestService whose streams respect flow control: it sends only while ready, reads only what it requested. */
  private final class FlowControlledService extends TestServiceGrpc.TestServiceImplBase {
    @Override
    public void streamingOutputCall(StreamingOutputCallRequest request,
        StreamObserver<StreamingOutputCallResponse> observer) {
      ServerCallStreamObserver<StreamingOutputCallResponse> call =
          (ServerCallStreamObserver<StreamingOutputCallResponse>) observer;
      int count = request.getResponseParametersCount();
      StreamingOutputCallResponse chunk = StreamingOutputCallResponse.newBuilder()
          .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[MESSAGE]))).build();
      boolean[] done = {false};
      call.setOnReadyHandler(() -> {
        while (call.isReady() && serverSent.get() < count) {
          call.onNext(chunk);
          serverSent.incrementAndGet();
        }
        if (serverSent.get() == count && !done[0]) {
          done[0] = true;
          call.onCompleted();
        }
      });
    }

    @Override
    public StreamObserver<StreamingInputCallRequest> streamingInputCall(
        StreamObserver<StreamingInputCallResponse> observer) {
      ServerCallStreamObserver<StreamingInputCallResponse> call =
          (ServerCallStreamObserver<StreamingInputCallResponse>) observer;
      call.disableAutoRequest();
      call.request(FIRST_READ);
      uploadCall.set(call);
      return new StreamObserver<>() {
        @Override
        public void onNext(StreamingInputCallRequest value) {
          serverReceived.incrementAndGet();
          serverReceivedBytes.addAndGet(value.getPayload().getBody().size());
        }

        @Override
        public void onError(Throwable t) {
        }

        @Override
        public void onCompleted() {
          call.onNext(StreamingInputCallResponse.newBuilder()
              .setAggregatedPayloadSize((int) serverReceivedBytes.get()).build());
          call.onCompleted();
        }
      };
    }
  }

  @BeforeEach
  void start() {
    target = GrpcJava.server("flow", null, new FlowControlledService());
    int port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners: [{protocol: HTTP, port: %d, h2c: true, default-actions: [{type: forward, target-group: grpc}]}]
        target-groups:
          - {name: grpc, target-type: ip, protocol: HTTP, port: 80, protocol-version: GRPC,
             targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, target.port()));
    channel = GrpcJava.h2c(port);
  }

  @AfterEach
  void stop() {
    GrpcJava.close(channel);
    gateway.close();
    target.close();
  }

  @Test
  void serverStream_ofSixtyFourMiB_isHeldBackWhileTheClientDoesNotRead_andArrivesWholeAfterwards() throws Exception {
    StreamingOutputCallRequest.Builder req = StreamingOutputCallRequest.newBuilder();
    for (int i = 0; i < MESSAGES; i++) {
      req.addResponseParameters(ResponseParameters.newBuilder().setSize(MESSAGE));
    }
    AtomicReference<ClientCallStreamObserver<?>> callRef = new AtomicReference<>();
    AtomicInteger received = new AtomicInteger();
    AtomicLong bytes = new AtomicLong();
    CompletableFuture<Void> done = new CompletableFuture<>();
    TestServiceGrpc.newStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS).streamingOutputCall(req.build(),
        new ClientResponseObserver<StreamingOutputCallRequest, StreamingOutputCallResponse>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<StreamingOutputCallRequest> call) {
            call.disableAutoRequestWithInitial(FIRST_READ);
            callRef.set(call);
          }

          @Override
          public void onNext(StreamingOutputCallResponse value) {
            received.incrementAndGet();
            bytes.addAndGet(value.getPayload().getBody().size());
          }

          @Override
          public void onError(Throwable t) {
            done.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {
            done.complete(null);
          }
        });

    await().atMost(Duration.ofSeconds(30)).until(() -> received.get() == FIRST_READ);
    // The client reads nothing more: the server gets only as far as the windows on the way allow.
    await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10))
        .until(() -> serverSent.get() <= MAX_IN_FLIGHT);
    int heldAt = serverSent.get();
    assertThat(heldAt).as("messages the server could send while the client read %d", FIRST_READ)
        .isGreaterThan(FIRST_READ).isLessThanOrEqualTo(MAX_IN_FLIGHT);

    callRef.get().request(Integer.MAX_VALUE);
    done.get(120, TimeUnit.SECONDS);

    assertThat(received.get()).isEqualTo(MESSAGES);
    assertThat(bytes.get()).isEqualTo((long) MESSAGES * MESSAGE);
    System.out.printf("server stream: %d of %d messages (%d KiB) sent while the client paused%n", heldAt, MESSAGES,
        heldAt * MESSAGE / 1024);
  }

  @Test
  void clientStream_ofSixtyFourMiB_isHeldBackWhileTheServerDoesNotRead_andArrivesWholeAfterwards() throws Exception {
    AtomicInteger sent = new AtomicInteger();
    CompletableFuture<Integer> total = new CompletableFuture<>();
    StreamingInputCallRequest chunk = StreamingInputCallRequest.newBuilder()
        .setPayload(Payload.newBuilder().setBody(ByteString.copyFrom(new byte[MESSAGE]))).build();
    TestServiceGrpc.newStub(channel).withDeadlineAfter(120, TimeUnit.SECONDS).streamingInputCall(
        new ClientResponseObserver<StreamingInputCallRequest, StreamingInputCallResponse>() {
          @Override
          public void beforeStart(ClientCallStreamObserver<StreamingInputCallRequest> call) {
            boolean[] completed = {false};
            call.setOnReadyHandler(() -> {
              while (call.isReady() && sent.get() < MESSAGES) {
                call.onNext(chunk);
                sent.incrementAndGet();
              }
              if (sent.get() == MESSAGES && !completed[0]) {
                completed[0] = true;
                call.onCompleted();
              }
            });
          }

          @Override
          public void onNext(StreamingInputCallResponse value) {
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

    await().atMost(Duration.ofSeconds(30)).until(() -> serverReceived.get() == FIRST_READ);
    await().during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(10)).until(() -> sent.get() <= MAX_IN_FLIGHT);
    int heldAt = sent.get();
    assertThat(heldAt).as("messages the client could send while the server read %d", FIRST_READ)
        .isGreaterThan(FIRST_READ).isLessThanOrEqualTo(MAX_IN_FLIGHT);

    uploadCall.get().request(Integer.MAX_VALUE);

    assertThat(total.get(120, TimeUnit.SECONDS)).isEqualTo(MESSAGES * MESSAGE);
    assertThat(serverReceived.get()).isEqualTo(MESSAGES);
    System.out.printf("client stream: %d of %d messages (%d KiB) sent while the server paused%n", heldAt, MESSAGES,
        heldAt * MESSAGE / 1024);
  }
}
