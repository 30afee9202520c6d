package io.fulcrum.loadtest;

import static io.gatling.javaapi.core.CoreDsl.scenario;
import static io.gatling.javaapi.http.HttpDsl.http;
import static io.gatling.javaapi.http.HttpDsl.status;

import io.fulcrum.bootstrap.Fulcrum;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetState;
import io.fulcrum.testing.Gateway;
import io.gatling.javaapi.core.ScenarioBuilder;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.io.IOException;
import java.net.ServerSocket;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a simulation runs against: its own Vert.x with the backends, Fulcrum deployed in-process as
 * {@code Main} deploys it but on the real clock (health checks run, unlike the test suite's
 * {@link Gateway}), and a small HTTP server of verdicts: {@code GET /verdict/NAME} answers 200
 * when the named expectation held and 500 with the reason otherwise, so that expectations checked
 * outside the HTTP traffic (a target left the rotation in time, every target got sessions) end up
 * as requests in Gatling's report and under its assertions.
 */
final class Harness implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Harness.class);

  private final Vertx vertx;
  private final Fulcrum fulcrum;
  private final HttpServer verdictServer;
  private final Map<String, String> verdicts;

  private Harness(Vertx vertx, Fulcrum fulcrum, HttpServer verdictServer, Map<String, String> verdicts) {
    this.vertx = vertx;
    this.fulcrum = fulcrum;
    this.verdictServer = verdictServer;
    this.verdicts = verdicts;
  }

  /** A free loopback port (for Fulcrum's listeners, whose ports the config names). */
  static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Starts Fulcrum from {@code yaml} (one listener instance per {@code instances}) and waits until
   * every target of every group is healthy and routed by every listener.
   */
  static Harness start(Vertx vertx, String yaml, int instances) {
    FulcrumConfig config = Gateway.config(yaml);
    Fulcrum fulcrum = await(Fulcrum.start(vertx, config, instances, Clock.systemUTC()));
    Map<String, String> recorded = new ConcurrentHashMap<>();
    HttpServer verdicts = await(vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0))
        .requestHandler(req -> {
          String name = req.path().substring(req.path().lastIndexOf('/') + 1);
          String failure = recorded.get(name);
          if (failure == null) {
            req.response().setStatusCode(500).end("no verdict recorded for " + name + "\n");
          } else if (failure.isEmpty()) {
            req.response().end("held\n");
          } else {
            req.response().setStatusCode(500).end(failure + "\n");
          }
        })
        .listen());
    Harness h = new Harness(vertx, fulcrum, verdicts, recorded);
    for (TargetGroup g : config.resources().targetGroups()) {
      for (var t : g.targets()) {
        await(h.awaitRouted(g.name(), t.port(), TargetState.HEALTHY, 60_000));
      }
    }
    LOG.info("Fulcrum is up and every target is healthy");
    return h;
  }

  static <T> T await(Future<T> f) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(90, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  Vertx vertx() {
    return vertx;
  }

  String verdictUrl(String name) {
    return "http://127.0.0.1:" + verdictServer.actualPort() + "/verdict/" + name;
  }

  /**
   * A one-user scenario, run after the load: records whether every backend took some of it
   * ({@code ControlledBackend#traffic}) as the verdict {@code spread}, and asks for it under
   * {@code label} (the request fails when a backend took none, naming it after {@code missing}).
   */
  ScenarioBuilder everyBackendServed(List<ControlledBackend> backends, String missing, String label) {
    return scenario("verdicts")
        .exec(session -> {
          List<String> idle = backends.stream().filter(b -> b.traffic() == 0).map(ControlledBackend::id).toList();
          verdict("spread", idle.isEmpty() ? null : missing + " " + idle);
          return session;
        })
        .exec(http(label).get(verdictUrl("spread")).check(status().is(200)));
  }

  /** Records an expectation's outcome: {@code failure} null or empty when it held. */
  void verdict(String name, String failure) {
    verdicts.put(name, failure == null ? "" : failure);
    if (failure == null || failure.isEmpty()) {
      LOG.info("verdict {}: held", name);
    } else {
      LOG.warn("verdict {}: {}", name, failure);
    }
  }

  String groupArn(String name) {
    return fulcrum.config().resources().targetGroups().stream().filter(g -> g.name().equals(name))
        .findFirst().orElseThrow().arn();
  }

  /**
   * Completes with true once the health checker holds {@code 127.0.0.1:port} of {@code group} in
   * {@code state} and every listener verticle routes by a snapshot that includes that decision
   * (the registry took it in, then each listener applied the registry's snapshot); with false
   * when that has not happened within {@code timeoutMillis}.
   */
  Future<Boolean> awaitRouted(String group, int port, TargetState state, long timeoutMillis) {
    String arn = groupArn(group);
    String key = "127.0.0.1:" + port;
    long deadline = System.currentTimeMillis() + timeoutMillis;
    Promise<Boolean> done = Promise.promise();
    vertx.setPeriodic(100, id -> {
      if (System.currentTimeMillis() > deadline) {
        vertx.cancelTimer(id);
        done.tryComplete(false);
        return;
      }
      fulcrum.health(arn).onSuccess(report -> {
        var t = report.targets().get(key);
        if (t == null || t.health().state() != state || !fulcrum.registryCaughtUpWithHealth()) {
          return;
        }
        fulcrum.snapshotVersion().onSuccess(version -> {
          if (fulcrum.appliedVersion() >= version && done.tryComplete(true)) {
            vertx.cancelTimer(id);
          }
        });
      });
    });
    return done.future();
  }

  /** Runs {@code steps} one after the other on Vert.x; each waits for the previous one. */
  static Future<Void> sequence(List<java.util.function.Supplier<Future<?>>> steps) {
    Future<?> f = Future.succeededFuture();
    for (var step : steps) {
      f = f.compose(v -> step.get());
    }
    return f.mapEmpty();
  }

  Future<Void> delay(long millis) {
    Promise<Void> p = Promise.promise();
    vertx.setTimer(millis, id -> p.complete());
    return p.future();
  }

  @Override
  public void close() {
    try {
      await(fulcrum.shutdown());
    } finally {
      await(vertx.close());
    }
  }
}
