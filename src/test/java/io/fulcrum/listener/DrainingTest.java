package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Deregistration (SPEC §2.4): a removed target gets no new request at once, its requests in flight
 * go on, it shows draining until the delay is over even when idle, a request still running then is
 * cut with 502, and an IP target cannot come back before the delay ends.
 */
class DrainingTest {

  private static final int DELAY = 30;

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  /** Requests to /slow are held here until the test releases them. */
  private final Queue<HttpServerRequest> held = new ConcurrentLinkedQueue<>();
  private Backend a;
  private Backend b;
  private Gateway gateway;
  private Http http;
  private HttpClientAgent slowClient;
  private int port;
  private String arn;

  @BeforeEach
  void start() {
    a = Backend.start(backends, "a", "127.0.0.1", req -> answer(req, "a"));
    b = Backend.start(backends, "b", "127.0.0.1", req -> answer(req, "b"));
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), config(true), 1, time);
    arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    http = new Http(backends);
    slowClient = backends.createHttpClient();
    // Both targets healthy, so that routing is by health, not by fail-open.
    time.advance(Duration.ofSeconds(5), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
    assertThat(health()).containsOnlyKeys("a", "b").containsValues(TargetHealth.HEALTHY);
  }

  private void answer(HttpServerRequest req, String id) {
    if (req.path().equals("/slow")) {
      held.add(req);
    } else {
      req.response().end(id);
    }
  }

  private String config(boolean withA) {
    return """
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 5, timeout-seconds: 2}
            attributes: {deregistration_delay.timeout_seconds: %d}
            targets:
        %s      - {id: 127.0.0.1, port: %d}
        """.formatted(port, DELAY, withA ? "      - {id: 127.0.0.1, port: " + a.port() + "}\n" : "", b.port());
  }

  @AfterEach
  void stop() {
    held.forEach(r -> r.response().reset());
    Await.result(slowClient.close());
    http.close();
    gateway.close();
    backends.close();
  }

  private java.util.Map<String, TargetHealth> health() {
    var r = Await.result(gateway.fulcrum().health(arn));
    java.util.Map<String, TargetHealth> out = new java.util.HashMap<>();
    r.targets().forEach((k, v) -> out.put(k.endsWith(":" + a.port()) ? "a" : "b", v.health()));
    return out;
  }

  /** Advances virtual time; every health check's real answer is in before its timeout can fall due. */
  private void advance(int seconds) {
    time.advance(Duration.ofSeconds(seconds), () -> gateway.fulcrum().healthChecksInFlight() == 0);
  }

  /** Starts a /slow request through the gateway; it completes when the target answers or Fulcrum cuts it. */
  private Future<String> slowRequest() {
    Promise<String> p = Promise.promise();
    backends.getOrCreateContext().runOnContext(v -> slowClient
        .request(new RequestOptions().setHost("127.0.0.1").setPort(port).setURI("/slow"))
        .compose(req -> req.send().compose(resp -> resp.body().map(body -> resp.statusCode() + " " + body)))
        .onComplete(p));
    return p.future();
  }

  @Test
  void deregisteredTarget_drains_thenRequestsStillRunningAreCut() {
    // Round robin over a and b: the first two /slow requests land on a and b, the next two too.
    List<Future<String>> slow = List.of(slowRequest(), slowRequest(), slowRequest(), slowRequest());
    await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 4);
    assertThat(a.hits() - 1).as("slow requests held by a (one hit was its health check)").isEqualTo(2);

    gateway.reload(config(false));
    gateway.awaitDataPlane();
    assertThat(health()).containsEntry("a", TargetHealth.DRAINING);
    int aBefore = a.hits();
    for (int i = 0; i < 10; i++) {
      assertThat(http.get(port, "/").body()).isEqualTo("b");
    }
    assertThat(a.hits()).as("no new request reaches the draining target").isEqualTo(aBefore);

    // One of a's requests completes normally while a drains.
    HttpServerRequest first = held.stream().filter(r -> r.localAddress().port() == a.port()).findFirst().orElseThrow();
    held.remove(first);
    first.response().end("done-a");
    await().atMost(Duration.ofSeconds(10)).until(() -> slow.stream().anyMatch(f -> "200 done-a".equals(f.result())));

    // Idle or not, the target shows draining until the delay is over.
    advance(DELAY - 1);
    gateway.awaitDataPlane();
    assertThat(health()).containsEntry("a", TargetHealth.DRAINING);
    assertThat(slow.stream().filter(Future::isComplete)).hasSize(1);

    advance(1);
    gateway.awaitDataPlane();
    assertThat(health()).containsOnlyKeys("b");
    // a's other request was still running: cut with 502. b's requests are untouched.
    await().atMost(Duration.ofSeconds(10)).until(() -> slow.stream().filter(Future::isComplete).count() == 2);
    assertThat(slow.stream().filter(Future::isComplete).map(Future::result))
        .containsExactlyInAnyOrder("200 done-a", "502 " + io.fulcrum.forward.ElbResponses.page(
            io.fulcrum.forward.ElbError.DEREGISTRATION_TIMEOUT));
    held.forEach(r -> r.response().end("done-b"));
    held.clear();
    await().atMost(Duration.ofSeconds(10)).until(() -> slow.stream().allMatch(Future::isComplete));
    assertThat(slow.stream().map(Future::result).filter(r -> r.equals("200 done-b"))).hasSize(2);
  }

  @Test
  void ipTarget_cannotBeRegisteredAgain_beforeItsDelayEnds() {
    gateway.reload(config(false));
    advance(DELAY - 10);
    assertThatThrownBy(() -> gateway.reload(config(true)))
        .isInstanceOf(InvalidModelException.class)
        .satisfies(e -> assertThat(((InvalidModelException) e).problems()).extracting(Problem::code, Problem::message)
            .containsExactly(org.assertj.core.groups.Tuple.tuple(Problem.INVALID_TARGET,
                "the IP target 127.0.0.1:" + a.port() + " cannot be registered again until its deregistration delay ends"
                    + " (in 10 s)")));
    // Refused means nothing changed: a still drains, b still serves.
    assertThat(health()).containsEntry("a", TargetHealth.DRAINING).containsEntry("b", TargetHealth.HEALTHY);

    advance(10);
    gateway.reload(config(true));
    gateway.awaitDataPlane();
    assertThat(health().get("a").state().wire()).isEqualTo("initial");
  }
}
