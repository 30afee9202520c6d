package io.fulcrum.balancer;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.AnomalyDetection;
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
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Automatic target weights end to end: one of four targets answers 500 to traffic while passing
 * its health checks; with weighted_random and anomaly mitigation on, its share is cut bucket by
 * bucket, and comes back after it recovers. Buckets are driven by the virtual clock.
 */
class AnomalyMitigationTest {

  private static final int BATCH = 400;

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final AtomicBoolean broken = new AtomicBoolean(true);
  private Gateway gateway;
  private Http http;
  private int port;
  private String arn;

  @AfterEach
  void stop() {
    if (http != null) {
      http.close();
    }
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private void start(String attributes) {
    List<Backend> targets = new ArrayList<>();
    for (String id : List.of("bad", "ok1", "ok2", "ok3")) {
      targets.add(Backend.start(backends, id, "127.0.0.1", req -> {
        if (req.path().equals("/health")) {
          req.response().end();
        } else if (id.equals("bad") && broken.get()) {
          req.response().setStatusCode(500).end(id);
        } else {
          req.response().end(id);
        }
      }));
    }
    port = Ports.free();
    StringBuilder t = new StringBuilder();
    targets.forEach(b -> t.append("{id: 127.0.0.1, port: ").append(b.port()).append("}, "));
    gateway = Gateway.start(TestVertx.create(), """
        random-seed: 7
        load-balancers:
          - name: lb
            listeners: [{protocol: HTTP, port: %d, default-actions: [{type: forward, target-group: tg}]}]
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, timeout-seconds: 2}
            attributes: {%s}
            targets: [%s]
        """.formatted(port, attributes, t.substring(0, t.length() - 2)), 1, time);
    arn = gateway.fulcrum().config().resources().targetGroups().get(0).arn();
    http = new Http(backends);
    bucket();
  }

  /** One 10 s bucket: advance the clock (health checks, the detector's tick), then wait for the data plane. */
  private void bucket() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  private double badShare() {
    Map<String, Integer> counts = new HashMap<>();
    for (int i = 0; i < BATCH; i++) {
      counts.merge(http.get(port, "/").body(), 1, Integer::sum);
    }
    return counts.getOrDefault("bad", 0) / (double) BATCH;
  }

  @Test
  void anomalousTarget_getsItsShareCut_andItComesBackAfterRecovery() {
    start("load_balancing.algorithm.type: weighted_random, load_balancing.algorithm.anomaly_mitigation: 'on'");
    List<Double> shares = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      shares.add(badShare());
      bucket();
    }
    Map<String, AnomalyDetection> results = Await.result(gateway.fulcrum().anomalies(arn));
    assertThat(results.values().stream().filter(AnomalyDetection::mitigationInEffect)).hasSize(1);
    assertThat(results.values().stream().filter(AnomalyDetection::anomalous)).hasSize(1);
    // First batch before any decision: a fair share; then halved bucket by bucket toward the floor.
    assertThat(shares.get(0)).isBetween(0.18, 0.32);
    assertThat(shares.get(2)).isLessThan(shares.get(0) * 0.6);
    assertThat(shares.get(5)).isLessThan(0.03);

    broken.set(false);
    List<Double> recovery = new ArrayList<>();
    for (int i = 0; i < 14; i++) {
      bucket();
      recovery.add(badShare());
    }
    assertThat(recovery.get(recovery.size() - 1)).isBetween(0.18, 0.32);
    assertThat(Await.result(gateway.fulcrum().anomalies(arn)).values()).allMatch(r -> r.equals(AnomalyDetection.NORMAL));
  }

  @Test
  void withoutMitigation_theAnomalyIsReported_butTheShareStays() {
    start("load_balancing.algorithm.type: weighted_random");
    for (int i = 0; i < 3; i++) {
      badShare();
      bucket();
    }
    Map<String, AnomalyDetection> results = Await.result(gateway.fulcrum().anomalies(arn));
    assertThat(results.values()).containsOnlyOnce(new AnomalyDetection(true, false));
    assertThat(badShare()).isBetween(0.18, 0.32);
  }
}
