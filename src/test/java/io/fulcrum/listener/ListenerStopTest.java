package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.deployment.DeploymentContext;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A graceful stop of several listener verticles (DESIGN §5: SIGTERM drains, then exits). Vert.x
 * shares a listening socket among the verticles that listen on it; the first to bind owns it, and
 * the last to let go of it has its shutdown completed on the owner's context. The stop once hung
 * until the drain limit when the owner's context closed in the middle of that (see
 * {@link SocketHandover}): about one stop in thirty in a test with three listeners and two
 * verticles. The exact moment cannot be forced from outside, so this holds the order that makes it
 * possible (one verticle's event loop is held while the other binds a new listener, so the other
 * owns it, and again while the other stops) and checks that the owner's context stays open until
 * the late verticle has drained, and that the stop then ends at once with every socket let go.
 */
class ListenerStopTest {

  /** Far below the drain limit (30 s): nothing is in flight, so the stop takes milliseconds. */
  private static final int STOP_SECONDS = 10;
  /** Enough event loops for each listener verticle to have one to itself. */
  private static final int EVENT_LOOPS = 32;

  private Gateway gateway;
  private CountDownLatch release = new CountDownLatch(0);

  @AfterEach
  void stop() {
    release.countDown();
    if (gateway != null) {
      gateway.close();
    }
  }

  @Test
  void theOwnerOfASharedSocket_staysUntilAVerticleStoppingAfterIt_hasDrained_andTheStopEndsAtOnce() {
    int first = Ports.free();
    int added = Ports.free();
    gateway = Gateway.start(TestVertx.create(EVENT_LOOPS), yaml(first), 2, Clock.systemUTC());
    List<ListenerVerticle> verticles = listenerVerticles(gateway.vertx());
    assertThat(verticles).hasSize(2);
    ListenerVerticle owner = verticles.get(0);
    ListenerVerticle late = verticles.get(1);
    assertThat(verticlesOnTheLoopOf(late)).as("verticles on the late one's event loop").isOne();

    // While the late verticle's loop is held, the owner alone binds the added listener's socket;
    // the late one joins it once let go.
    hold(late);
    Future<Void> reloaded = gateway.fulcrum().reload(Gateway.config(yaml(first, added)));
    await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> connects(added));
    release.countDown();
    Await.result(reloaded);
    long version = Await.result(gateway.fulcrum().snapshotVersion());
    await().atMost(Duration.ofSeconds(10)).until(() -> gateway.fulcrum().appliedVersion() >= version);

    // The owner stops first and gets as far as it can before the late one starts to: drained, it
    // waits for the late one; its context, where Vert.x completes the late one's shutdown of the
    // socket the owner bound, stays open.
    hold(late);
    Future<Void> stopped = gateway.fulcrum().shutdown();
    await().atMost(Duration.ofSeconds(10)).until(() -> owner.handover().departing() == 1 || closed(owner));
    assertThat(closed(owner)).as("the owner's context closed before the late verticle drained").isFalse();
    release.countDown();

    Await.result(stopped, STOP_SECONDS);
    for (int port : List.of(first, added)) {
      assertThatThrownBy(() -> connects(port)).as("port %d", port).isInstanceOf(IOException.class);
    }
  }

  private static String yaml(int... ports) {
    StringBuilder yaml = new StringBuilder("""
        load-balancers:
          - name: web
            listeners:
        """);
    for (int port : ports) {
      yaml.append("""
              - {protocol: HTTP, port: %d, default-actions: [{type: fixed-response, status-code: "200"}]}
          """.formatted(port));
    }
    return yaml.toString();
  }

  /** Holds {@code verticle}'s event loop until {@link #release} (a test thread waits for it to be held). */
  private void hold(ListenerVerticle verticle) {
    CountDownLatch held = new CountDownLatch(1);
    CountDownLatch until = new CountDownLatch(1);
    release = until;
    verticle.context().runOnContext(v -> {
      held.countDown();
      try {
        until.await(STOP_SECONDS, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    try {
      assertThat(held.await(STOP_SECONDS, TimeUnit.SECONDS)).as("the loop is held").isTrue();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  private static List<ListenerVerticle> listenerVerticles(Vertx vertx) {
    return ((VertxInternal) vertx).deploymentManager().deployments().stream()
        .flatMap(d -> d.deployment().instances().stream())
        .filter(ListenerVerticle.class::isInstance).map(ListenerVerticle.class::cast).toList();
  }

  private long verticlesOnTheLoopOf(ListenerVerticle verticle) {
    Object loop = ((ContextInternal) verticle.context()).nettyEventLoop();
    return ((VertxInternal) gateway.vertx()).deploymentManager().deployments().stream()
        .map(DeploymentContext::deployment)
        .flatMap(d -> d.contexts().stream())
        .map(c -> ((ContextInternal) c).nettyEventLoop())
        .filter(loop::equals).count();
  }

  private static boolean closed(ListenerVerticle verticle) {
    return ((ContextInternal) verticle.context()).closeFuture().isClosed();
  }

  private static boolean connects(int port) throws IOException {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
      return true;
    }
  }
}
