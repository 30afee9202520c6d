package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The keep-alive pool toward HTTP/1.1 targets (Netty channels on one event loop), against a real
 * TCP server that counts the connections it accepts and sees close: reuse, the cap per target,
 * keep-alive timeouts the target announced, and connections that close.
 */
class ChannelPoolTest {

  private final Vertx vertx = TestVertx.create();
  private final AtomicInteger accepted = new AtomicInteger();
  private final AtomicInteger closedAtServer = new AtomicInteger();
  /** The pool's clock, moved by the tests. */
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private NetServer server;
  private Context loop;
  private ChannelPool pool;
  private Upstream target;

  @BeforeEach
  void setUp() {
    // The pool only opens connections: a TCP server that counts them is target enough.
    server = vertx.createNetServer(new NetServerOptions().setHost("127.0.0.1").setPort(0));
    server.connectHandler(socket -> {
      accepted.incrementAndGet();
      socket.closeHandler(v -> closedAtServer.incrementAndGet());
    });
    Await.result(server.listen());
    target = new Upstream("127.0.0.1:" + server.actualPort(), "127.0.0.1", "127.0.0.1", server.actualPort(), "zone-a");
    loop = vertx.getOrCreateContext();
    pool = new ChannelPool(((ContextInternal) loop).nettyEventLoop(),
        ((VertxInternal) vertx).transport().channelFactory(false), 60_000, 10_000, null, 2, nanos::get);
  }

  @AfterEach
  void tearDown() {
    Await.result(vertx.close());
  }

  /** Runs {@code action} on the pool's event loop and waits for the future it returns. */
  private <T> T onLoop(Supplier<Future<T>> action) {
    Promise<T> done = Promise.promise();
    loop.runOnContext(v -> action.get().onComplete(done));
    return Await.result(done.future());
  }

  @Test
  void aReleasedConnection_servesTheNextRequest_withoutANewConnect() {
    TargetConnection first = onLoop(() -> pool.connect(target, false));
    onLoop(() -> {
      pool.release(target, first, null);
      return Future.succeededFuture();
    });

    TargetConnection again = onLoop(() -> Future.succeededFuture(pool.idle(target)));
    TargetConnection none = onLoop(() -> Future.succeededFuture(pool.idle(target)));

    assertThat(again).isSameAs(first);
    assertThat(none).as("taken connections are not handed out twice").isNull();
    await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() == 1); // accepted on the server's loop
  }

  @Test
  void aConnectionWhoseTargetAnnouncedAKeepAliveTimeout_isNotReusedNearItsEnd_butClosed() {
    TargetConnection c = onLoop(() -> pool.connect(target, false));
    onLoop(() -> {
      pool.release(target, c, "timeout=5, max=1000");
      return Future.succeededFuture();
    });
    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(4_400));
    TargetConnection stillFresh = onLoop(() -> Future.succeededFuture(pool.idle(target)));
    assertThat(stillFresh).isSameAs(c);
    onLoop(() -> {
      pool.release(target, c, "timeout=5, max=1000");
      return Future.succeededFuture();
    });

    nanos.addAndGet(TimeUnit.MILLISECONDS.toNanos(4_600)); // within half a second of the target's 5 s
    TargetConnection expired = onLoop(() -> Future.succeededFuture(pool.idle(target)));

    assertThat(expired).isNull();
    await().atMost(Duration.ofSeconds(10)).until(() -> closedAtServer.get() == 1);
  }

  @Test
  void keepAliveTimeout_isReadFromTheHeadersParameters() {
    assertThat(KeepAlivePool.keepAliveTimeoutSeconds("timeout=5, max=1000")).isEqualTo(5);
    assertThat(KeepAlivePool.keepAliveTimeoutSeconds("max=100,Timeout = 30")).isEqualTo(30);
    assertThat(KeepAlivePool.keepAliveTimeoutSeconds("max=100")).isEqualTo(-1);
    assertThat(KeepAlivePool.keepAliveTimeoutSeconds("timeout=soon")).isEqualTo(-1);
  }

  @Test
  void atTheCap_aRequestWaitsForTheNextReleasedConnection_insteadOfConnectingAgain() {
    TargetConnection a = onLoop(() -> pool.connect(target, false));
    onLoop(() -> pool.connect(target, false));
    Promise<TargetConnection> third = Promise.promise();
    loop.runOnContext(v -> pool.connect(target, false).onComplete(third));
    onLoop(() -> Future.succeededFuture()); // the third request has been queued on the loop

    assertThat(third.future().isComplete()).isFalse();
    onLoop(() -> {
      pool.release(target, a, null);
      return Future.succeededFuture();
    });

    assertThat(Await.result(third.future())).isSameAs(a);
    await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() == 2); // accepted on the server's loop
  }

  @Test
  void aConnectionThatCloses_freesItsPlaceUnderTheCap_forAWaiter() {
    TargetConnection a = onLoop(() -> pool.connect(target, false));
    TargetConnection b = onLoop(() -> pool.connect(target, false));
    onLoop(() -> {
      pool.release(target, a, null);
      return Future.succeededFuture();
    });
    Promise<TargetConnection> waiting = Promise.promise();
    loop.runOnContext(v -> {
      pool.idle(target); // a leaves the stack: the pool is at its cap, both connections taken
      pool.connect(target, false).onComplete(waiting);
    });
    onLoop(() -> Future.succeededFuture());
    assertThat(waiting.future().isComplete()).isFalse();

    onLoop(() -> pool.close(b)); // closing b frees a place under the cap

    TargetConnection fresh = Await.result(waiting.future());
    assertThat(fresh).isNotSameAs(a).isNotSameAs(b);
    await().atMost(Duration.ofSeconds(10)).until(() -> accepted.get() == 3); // accepted on the server's loop
  }

  @Test
  void close_closesEveryConnection() {
    onLoop(() -> pool.connect(target, false));
    TargetConnection b = onLoop(() -> pool.connect(target, false));
    onLoop(() -> {
      pool.release(target, b, null);
      return Future.succeededFuture();
    });

    onLoop(() -> pool.close());

    TargetConnection afterClose = onLoop(() -> Future.succeededFuture(pool.idle(target)));
    assertThat(afterClose).isNull();
    await().atMost(Duration.ofSeconds(10)).until(() -> closedAtServer.get() == 2);
  }
}
