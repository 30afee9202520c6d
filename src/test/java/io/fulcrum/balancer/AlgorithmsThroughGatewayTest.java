package io.fulcrum.balancer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.fulcrum.bus.HealthReport;
import io.fulcrum.model.TargetState;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The algorithms on real targets through a running gateway. */
class AlgorithmsThroughGatewayTest {

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private static String group(String name, String algorithm, String extra, int... ports) {
    StringBuilder t = new StringBuilder();
    for (int p : ports) {
      t.append("{id: 127.0.0.1, port: ").append(p).append("}, ");
    }
    return """
          - name: %s
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2, healthy-threshold-count: 2}
            attributes: {load_balancing.algorithm.type: %s%s}
            targets: [%s]
        """.formatted(name, algorithm, extra, t.substring(0, t.length() - 2));
  }

  /** A load balancer whose listener on {@code port} forwards to {@code group}, and the start of the groups. */
  private static String forwardingTo(String group, int port) {
    return """
        load-balancers:
          - name: lb
            listeners: [{protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: %s}]}]
        target-groups:
        """.formatted(port, group);
  }

  @Test
  void slowStart_throughTheGateway_givesTheExactSequenceOnTheVirtualClock() {
    Backend a = Backend.start(backends, "a");
    Backend b = Backend.start(backends, "b");
    Backend c = Backend.start(backends, "c");
    int port = Ports.free();
    VirtualTime time = new VirtualTime();
    String lb = forwardingTo("tg", port);
    String slow = ", slow_start.duration_seconds: 40";
    gateway = Gateway.start(TestVertx.create(), lb + group("tg", "round_robin", slow, a.port(), b.port()), 1, time);
    String arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    time.advance(Duration.ofSeconds(5), () -> gateway.fulcrum().healthChecksInFlight() == 0);

    // a and b turned healthy together: neither is in slow start. c joins and turns healthy later.
    gateway.reload(lb + group("tg", "round_robin", slow, a.port(), b.port(), c.port()));
    time.advance(Duration.ofSeconds(5), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    HealthReport report = Await.result(gateway.fulcrum().health(arn));
    HealthReport.TargetReport cReport = report.targets().get("127.0.0.1:" + c.port());
    assertThat(cReport.health().state()).isEqualTo(TargetState.HEALTHY);
    long healthyAt = cReport.history().stream().filter(h -> h.transition() && h.health().healthy())
        .findFirst().orElseThrow().time();

    // 10 s into its 40 s slow start, c's weight is 0.25: it gets every fourth of its turns.
    time.advance(Duration.ofMillis(healthyAt + 10_000 - time.now()), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
    List<String> seen = new ArrayList<>();
    try (Http http = new Http(backends)) {
      for (int i = 0; i < 9; i++) {
        seen.add(http.get(port, "/").body());
      }
    }
    assertThat(seen).containsExactly("a", "b", "a", "b", "a", "b", "a", "b", "c");
  }

  /**
   * A slow start that has ended stays ended when the group's slow start is lengthened, or turned
   * off and on again (SPEC §4.6: targets already healthy do not slow-start): the target that
   * finished its ramp keeps its full share. It was ramped again from where its old start put it.
   */
  @Test
  void slowStart_thatHasEnded_doesNotStartAgain_whenTheDurationGrows_orSlowStartIsTurnedOffAndOn() {
    Backend a = Backend.start(backends, "a");
    Backend b = Backend.start(backends, "b");
    Backend c = Backend.start(backends, "c");
    int port = Ports.free();
    VirtualTime time = new VirtualTime();
    String lb = forwardingTo("tg", port);
    java.util.function.IntFunction<String> withSlowStart = seconds ->
        lb + group("tg", "round_robin", ", slow_start.duration_seconds: " + seconds, a.port(), b.port(), c.port());
    BooleanSupplier settled = () -> gateway.fulcrum().healthChecksInFlight() == 0;
    gateway = Gateway.start(TestVertx.create(), lb + group("tg", "round_robin", ", slow_start.duration_seconds: 40",
        a.port(), b.port()), 1, time);
    time.advance(Duration.ofSeconds(5), settled);
    gateway.reload(withSlowStart.apply(40));
    time.advance(Duration.ofSeconds(5), settled);
    // c turned healthy and slow-started; 60 s on, its 40 s are long over.
    time.advance(Duration.ofSeconds(60), settled);
    gateway.awaitDataPlane();
    assertThat(nine(port)).containsExactlyInAnyOrder("a", "a", "a", "b", "b", "b", "c", "c", "c");

    gateway.reload(withSlowStart.apply(900));
    gateway.awaitDataPlane();
    assertThat(nine(port)).as("a longer slow start").containsExactlyInAnyOrder("a", "a", "a", "b", "b", "b", "c", "c", "c");

    gateway.reload(withSlowStart.apply(0));
    gateway.awaitDataPlane();
    gateway.reload(withSlowStart.apply(600));
    gateway.awaitDataPlane();
    assertThat(nine(port)).as("off, then on").containsExactlyInAnyOrder("a", "a", "a", "b", "b", "b", "c", "c", "c");
  }

  @Test
  void slowStart_notForABatchRegisteredIntoAGroupWithoutHealthyTargets_butOverAgainAfterAFall() {
    AtomicBoolean cHealthy = new AtomicBoolean(true);
    Backend a = Backend.start(backends, "a");
    Backend b = Backend.start(backends, "b");
    Backend c = Backend.start(backends, "c", "127.0.0.1", req -> {
      if (req.path().equals("/health") && !cHealthy.get()) {
        req.response().setStatusCode(503).end();
      } else {
        req.response().end("c");
      }
    });
    int port = Ports.free();
    VirtualTime time = new VirtualTime();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners: [{protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}]
        target-groups:
        """.formatted(port) + group("tg", "round_robin", ", slow_start.duration_seconds: 40", a.port(), b.port(), c.port()),
        1, time);
    String arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    java.util.function.BooleanSupplier settled = () -> gateway.fulcrum().healthChecksInFlight() == 0;
    time.advance(Duration.ofSeconds(5), settled);
    gateway.awaitDataPlane();
    // Registered together into a group with no healthy target: none slow-starts, though they turned
    // healthy at different moments.
    assertThat(nine(port)).containsExactly("a", "b", "c", "a", "b", "c", "a", "b", "c");

    // c falls (2 failures), then recovers (2 passes): it has been healthy before, so slow start starts over.
    cHealthy.set(false);
    time.advance(Duration.ofSeconds(10), settled);
    cHealthy.set(true);
    time.advance(Duration.ofSeconds(10), settled);
    HealthReport.TargetReport cReport = Await.result(gateway.fulcrum().health(arn)).targets().get("127.0.0.1:" + c.port());
    assertThat(cReport.health().state()).isEqualTo(TargetState.HEALTHY);
    long healthyAgainAt = cReport.history().stream().filter(h -> h.transition() && h.health().healthy())
        .reduce((x, y) -> y).orElseThrow().time();
    time.advance(Duration.ofMillis(healthyAgainAt + 20_000 - time.now()), settled);
    gateway.awaitDataPlane();
    // Half-way through: c gets every second of its turns.
    assertThat(nine(port)).containsExactly("a", "b", "a", "b", "c", "a", "b", "a", "b");
  }

  private List<String> nine(int port) {
    List<String> seen = new ArrayList<>();
    try (Http http = new Http(backends)) {
      for (int i = 0; i < 9; i++) {
        seen.add(http.get(port, "/").body());
      }
    }
    return seen;
  }

  @Test
  void leastOutstandingRequests_sendsFewerRequestsToASlowTarget_thanRoundRobin_inTheSameRun() {
    // The slow target holds each request 40 ms (a timer in the backend); the others answer at once.
    Backend fast1 = Backend.start(backends, "fast1");
    Backend fast2 = Backend.start(backends, "fast2");
    Backend slow = Backend.start(backends, "slow", "127.0.0.1",
        req -> backends.setTimer(40, t -> req.response().end("slow")));
    int port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: rr}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: [/lor]}], actions: [{type: forward, target-group: lor}]}
        target-groups:
        """.formatted(port) + group("rr", "round_robin", "", fast1.port(), fast2.port(), slow.port())
        + group("lor", "least_outstanding_requests", "", fast1.port(), fast2.port(), slow.port()));

    Map<String, Integer> rr = load(port, "/rr", 8, 300);
    Map<String, Integer> lor = load(port, "/lor", 8, 300);
    double rrSlow = rr.getOrDefault("slow", 0) / 300.0;
    double lorSlow = lor.getOrDefault("slow", 0) / 300.0;
    assertThat(rrSlow).as("round robin ignores the slow target's backlog").isCloseTo(1 / 3.0, within(0.02));
    assertThat(lorSlow).as("least outstanding requests steers away from it").isLessThan(rrSlow * 0.5);
  }

  /** {@code total} requests to {@code uri} from {@code concurrency} keep-alive loops; answers by body. */
  private Map<String, Integer> load(int port, String uri, int concurrency, int total) {
    HttpClientAgent client = backends.createHttpClient(new HttpClientOptions(), new PoolOptions().setHttp1MaxSize(concurrency));
    Map<String, Integer> counts = new ConcurrentHashMap<>();
    AtomicInteger issued = new AtomicInteger();
    Promise<Void> done = Promise.promise();
    AtomicInteger finished = new AtomicInteger();
    Context ctx = backends.getOrCreateContext();
    for (int i = 0; i < concurrency; i++) {
      ctx.runOnContext(v -> next(client, port, uri, total, issued, counts, finished, done));
    }
    Await.result(done.future(), 60);
    Await.result(client.close());
    return counts;
  }

  private void next(HttpClientAgent client, int port, String uri, int total, AtomicInteger issued,
      Map<String, Integer> counts, AtomicInteger finished, Promise<Void> done) {
    if (issued.incrementAndGet() > total) {
      return;
    }
    Future<String> f = client.request(new RequestOptions().setHost("127.0.0.1").setPort(port).setURI(uri))
        .compose(req -> req.send().compose(resp -> resp.body().map(Object::toString)));
    f.onComplete(ar -> {
      counts.merge(ar.succeeded() ? ar.result() : "failed", 1, Integer::sum);
      if (finished.incrementAndGet() == total) {
        done.complete();
      } else {
        next(client, port, uri, total, issued, counts, finished, done);
      }
    });
  }
}
