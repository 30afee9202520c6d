package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.model.TargetType;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.time.VertxTimers;
import io.grpc.Grpc;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.StreamObserver;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * gRPC checks of one target made at once (the target is in several target groups: blue/green, a
 * group per method) are each judged alone, each on a connection of its own, as every HTTP check is.
 * They shared a pooled HTTP/2 connection, which the first check to be judged closed under the
 * others: healthy targets failed checks, and flapped under load.
 */
class GrpcChecksOfOneTargetTest {

  private static final int CHECKS = 3;

  private final Vertx vertx = TestVertx.create();
  /** The checks the target holds until all have come, so that they are in flight together. */
  private final List<StreamObserver<HealthCheckResponse>> held = new ArrayList<>();
  private final Set<SocketAddress> checkedFrom = ConcurrentHashMap.newKeySet();
  private final AtomicInteger arrived = new AtomicInteger();
  private Server target;

  @AfterEach
  void stop() {
    if (target != null) {
      target.shutdownNow();
    }
    Await.result(vertx.close());
  }

  /** Answers SERVING to the checks it holds once {@link #CHECKS} of them are in, the first first. */
  private final class HeldUntilAllCame extends HealthGrpc.HealthImplBase {
    @Override
    public void check(HealthCheckRequest request, StreamObserver<HealthCheckResponse> answer) {
      List<StreamObserver<HealthCheckResponse>> all = null;
      arrived.incrementAndGet();
      synchronized (held) {
        held.add(answer);
        if (held.size() == CHECKS) {
          all = List.copyOf(held);
          held.clear();
        }
      }
      if (all != null) {
        for (StreamObserver<HealthCheckResponse> a : all) {
          a.onNext(HealthCheckResponse.newBuilder().setStatus(HealthCheckResponse.ServingStatus.SERVING).build());
          a.onCompleted();
        }
      }
    }
  }

  /** Records where each check came from: the client's address and port, that is its connection. */
  private final class RecordConnection implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
        ServerCallHandler<Q, R> next) {
      checkedFrom.add(call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR));
      return next.startCall(call, headers);
    }
  }

  @Test
  void checksOfOneTargetAtOnce_eachOnItsOwnConnection_allPass() throws IOException {
    target = NettyServerBuilder.forAddress(new InetSocketAddress("127.0.0.1", 0))
        .addService(ServerInterceptors.intercept(new HeldUntilAllCame().bindService(), new RecordConnection()))
        .build().start();
    Problems problems = new Problems();
    HealthCheck check = HealthCheck.resolve(new HealthCheck.Input(null, "HTTP", null, "/grpc.health.v1.Health/Check",
        10, 5, null, null, null, "0"), TargetType.IP, Protocol.HTTP, ProtocolVersion.GRPC, problems);
    assertThat(problems.list()).isEmpty();
    HttpProber prober = new HttpProber(vertx, new VertxTimers(vertx, Clock.systemUTC()));

    // Each check sent once the one before is at the target: a client that pools connections would
    // have its connection up by then, and send the next check on it.
    List<Promise<CheckResult>> results = new ArrayList<>();
    for (int i = 0; i < CHECKS; i++) {
      Promise<CheckResult> result = Promise.promise();
      results.add(result);
      vertx.runOnContext(v -> prober.probe("127.0.0.1", target.getPort(), check, false, result::complete));
      int atTarget = i + 1;
      await().atMost(Duration.ofSeconds(10)).until(() -> arrived.get() == atTarget);
    }

    for (Promise<CheckResult> result : results) {
      CheckResult r = Await.result(result.future());
      assertThat(r.passed()).as("%s", r).isTrue();
      assertThat(r.code()).isZero();
    }
    assertThat(checkedFrom).as("a connection per check").hasSize(CHECKS);
  }
}
