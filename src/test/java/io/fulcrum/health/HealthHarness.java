package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.bus.HealthReport;
import io.fulcrum.bus.HealthReport.TargetReport;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * A gateway on virtual time with real targets, for health tests: starts it from YAML, reads
 * {@code Fulcrum.health(arn)}, and moves time on one check at a time, each check's real answer
 * (or its deliberate absence) in before time moves on.
 */
final class HealthHarness implements AutoCloseable {

  final Vertx backends = TestVertx.create();
  final VirtualTime time = new VirtualTime();
  /** A free port for the load balancer's listener. */
  final int listenerPort = Ports.free();
  private final List<AutoCloseable> resources = new ArrayList<>();
  private final List<IntSupplier> holders = new ArrayList<>();
  private Gateway gateway;
  private Http http;

  Gateway start(String yaml) {
    gateway = Gateway.start(TestVertx.create(), yaml, 2, time);
    return gateway;
  }

  Gateway gateway() {
    return gateway;
  }

  /** A raw target that follows {@code script}, closed with the harness. */
  ScriptedTarget scripted(ScriptedTarget.Step... script) {
    return scripted(List.of(script));
  }

  ScriptedTarget scripted(List<ScriptedTarget.Step> script) {
    ScriptedTarget t = ScriptedTarget.start(script);
    resources.add(t);
    holders.add(t::holding);
    return t;
  }

  /** A real Vert.x HTTP target answering every request with its id. */
  Backend backend(String id) {
    return backend(id, null);
  }

  Backend backend(String id, io.vertx.core.Handler<io.vertx.core.http.HttpServerRequest> handler) {
    Backend b = Backend.start(backends, id, "127.0.0.1", handler);
    resources.add(b);
    return b;
  }

  /**
   * A real Vert.x target that answers a path listed in {@code statuses} with its status (a check:
   * counted by path in {@code checks}, its virtual time added to {@code checkTimes}) and any other
   * path with its id.
   */
  Backend pathTarget(String id, Map<String, Integer> statuses, Map<String, AtomicInteger> checks,
      List<Long> checkTimes) {
    return backend(id, req -> {
      Integer status = statuses.get(req.path());
      if (status == null) {
        req.response().end(id);
        return;
      }
      checks.computeIfAbsent(req.path(), p -> new AtomicInteger()).incrementAndGet();
      checkTimes.add(time.now());
      req.response().setStatusCode(status).end();
    });
  }

  /** Counts more checks that are left unanswered on purpose (see {@link #advance}). */
  void holding(IntSupplier held) {
    holders.add(held);
  }

  String arn(String group) {
    return gateway.fulcrum().config().resources().targetGroups().stream()
        .filter(g -> g.name().equals(group)).map(TargetGroup::arn).findFirst().orElseThrow();
  }

  Map<String, TargetReport> report(String group) {
    HealthReport r = Await.result(gateway.fulcrum().health(arn(group)));
    return r.targets();
  }

  /** The health of {@code 127.0.0.1:port} in {@code group}. */
  TargetHealth health(String group, int port) {
    TargetReport r = report(group).get("127.0.0.1:" + port);
    assertThat(r).as("report of 127.0.0.1:%d in %s", port, group).isNotNull();
    return r.health();
  }

  /** "state" or "state/Reason" of {@code 127.0.0.1:port} in {@code group}. */
  String state(String group, int port) {
    return describe(health(group, port));
  }

  static String describe(TargetHealth h) {
    return h.state().wire() + (h.reason() == null ? "" : "/" + h.reason());
  }

  private int held() {
    int n = 0;
    for (IntSupplier h : holders) {
      n += h.getAsInt();
    }
    return n;
  }

  /**
   * Moves virtual time on by {@code d}; after every timer that falls due, waits until each check in
   * flight is either decided or deliberately held unanswered by its target, so a check's real
   * answer always arrives before its virtual timeout could fire.
   */
  void advance(Duration d) {
    time.advance(d, () -> gateway.fulcrum().healthChecksInFlight() == held());
  }

  void advanceSeconds(long seconds) {
    advance(Duration.ofSeconds(seconds));
  }

  /** Waits until every listener verticle routes by the latest health decisions. */
  void awaitDataPlane() {
    gateway.awaitDataPlane();
  }

  /** Sends {@code n} requests through the listener; counts answers by body (the backend's id). */
  Map<String, Integer> spread(int n) {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < n; i++) {
      Http.Response r = http().get(listenerPort, "/");
      counts.merge(r.status() == 200 ? r.body() : "status " + r.status(), 1, Integer::sum);
    }
    return counts;
  }

  Http http() {
    if (http == null) {
      http = new Http(backends);
    }
    return http;
  }

  @Override
  public void close() {
    if (http != null) {
      http.close();
    }
    if (gateway != null) {
      gateway.close();
    }
    for (AutoCloseable r : resources) {
      try {
        r.close();
      } catch (Exception e) {
        // Best effort: the Vert.x instance below closes what is left.
      }
    }
    Await.result(backends.close());
  }
}
