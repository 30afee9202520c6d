package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SIGTERM (as {@code kill PID} or Kubernetes sends it) stops the packaged jar gracefully: it
 * stops accepting at once, turns not-ready, lets in-flight requests finish within
 * {@code shutdown.timeout-seconds}, cuts those that take longer, and exits 0 (not 143).
 */
class GracefulShutdownIT {

  /** What the slow backend answers, after holding the request: big enough to be sent in many pieces. */
  private static final String BODY = "held\n".repeat(40_000);

  @TempDir
  Path work;

  private final Vertx vertx = TestVertx.create();
  private final HttpClientAgent client = vertx.createHttpClient();
  private final int listenerPort = Ports.free();
  private final int controlPort = Ports.free();
  /** When the backend saw its connection from the gateway close (nanoTime), or 0. */
  private final AtomicLong backendConnectionClosedAt = new AtomicLong();
  private FulcrumProcess gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    Await.result(vertx.close());
  }

  @Test
  void sigterm_letsTheInFlightRequestFinish_refusesNewConnections_andExits0() throws Exception {
    Backend backend = Backend.start(vertx, "slow", "127.0.0.1", holdFor(4000));
    start(10, backend);
    Future<String> inFlight = get("/slow");
    await("the backend received the request").atMost(Duration.ofSeconds(10)).until(() -> backend.trafficHits() == 1);

    long signalled = System.nanoTime();
    gateway.sigterm();

    await("new connections refused").atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
        .until(() -> !accepts(listenerPort));
    await("readiness 503 or the control plane gone").atMost(Duration.ofSeconds(3)).pollInterval(Duration.ofMillis(20))
        .until(() -> readiness() != 200);
    assertThat(inFlight.isComplete()).as("the held request is still in flight when the listener stops accepting")
        .isFalse();

    assertThat(Await.result(inFlight, 15)).as("the in-flight request's whole body").isEqualTo(BODY);
    int exit = gateway.waitForExit(Duration.ofSeconds(20));
    double exitedAfter = (System.nanoTime() - signalled) / 1e9;

    System.out.printf(Locale.ROOT, "GracefulShutdownIT: in-flight request completed; exit %d %.1f s after SIGTERM%n",
        exit, exitedAfter);
    assertThat(exit).as("exit code\n%s", gateway.describe()).isZero();
    assertThat(exitedAfter).as("seconds from SIGTERM to exit (nothing left to wait for once the request ended)")
        .isLessThan(10);
    assertThat(gateway.stderr()).contains("shutting down", "stopped");
  }

  @Test
  void sigterm_cutsARequestLongerThanTheShutdownTimeout_andStillExits0() throws Exception {
    Backend backend = Backend.start(vertx, "stuck", "127.0.0.1", holdFor(120_000));
    start(2, backend);
    Future<String> inFlight = get("/stuck");
    await("the backend received the request").atMost(Duration.ofSeconds(10)).until(() -> backend.trafficHits() == 1);

    long signalled = System.nanoTime();
    gateway.sigterm();

    Throwable cut = failure(inFlight, 20);
    double cutAfter = (System.nanoTime() - signalled) / 1e9;
    int exit = gateway.waitForExit(Duration.ofSeconds(20));
    double exitedAfter = (System.nanoTime() - signalled) / 1e9;

    System.out.printf(Locale.ROOT, "GracefulShutdownIT: request cut %.1f s after SIGTERM (%s); exit %d %.1f s"
        + " after SIGTERM%n", cutAfter, cut, exit, exitedAfter);
    assertThat(cut).as("the client's request fails: it is cut, not answered").isNotNull();
    assertThat(cutAfter).as("seconds from SIGTERM to the cut (the request had the 2 s timeout to finish)")
        .isGreaterThan(1.5);
    assertThat(exit).as("exit code\n%s", gateway.describe()).isZero();
    assertThat(exitedAfter).as("seconds from SIGTERM to exit, with a 2 s shutdown timeout").isBetween(1.5, 8.0);
    await("the gateway closed its connection to the backend").atMost(Duration.ofSeconds(5))
        .until(() -> backendConnectionClosedAt.get() != 0);
  }

  private void start(int shutdownTimeoutSeconds, Backend backend) {
    gateway = FulcrumProcess.start(work, """
        control: {address: 127.0.0.1, port: %d}
        shutdown: {timeout-seconds: %d}
        reload: {enabled: false}
        load-balancers:
          - name: graceful
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: slow}]
        target-groups:
          - name: slow
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health}
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(controlPort, shutdownTimeoutSeconds, listenerPort, backend.port()));
    gateway.waitReady(controlPort);
  }

  /** A backend handler that answers {@link #BODY} {@code millis} after the request arrived (a timer, not a sleep). */
  private Handler<HttpServerRequest> holdFor(long millis) {
    return req -> {
      if (req.path().equals("/health")) {
        req.response().end();
        return;
      }
      req.connection().closeHandler(v -> backendConnectionClosedAt.compareAndSet(0, System.nanoTime()));
      vertx.setTimer(millis, t -> req.response().putHeader("Content-Type", "text/plain").end(BODY));
    };
  }

  /** A GET through the gateway; the future holds the body of a 200 and fails on anything else. */
  private Future<String> get(String uri) {
    return client.request(new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(listenerPort)
            .setURI(uri))
        .compose(req -> req.send()
            .compose(resp -> resp.body().compose(b -> resp.statusCode() == 200 ? Future.succeededFuture(b.toString())
                : Future.failedFuture("status " + resp.statusCode() + ": " + b))));
  }

  private static Throwable failure(Future<?> f, int seconds) throws InterruptedException, TimeoutException {
    try {
      f.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
      return null;
    } catch (ExecutionException e) {
      return e.getCause();
    }
  }

  private static boolean accepts(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 500);
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  private int readiness() {
    return gateway.status(URI.create("http://127.0.0.1:" + controlPort + "/health/ready"));
  }
}
