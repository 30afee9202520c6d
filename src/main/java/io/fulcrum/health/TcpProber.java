package io.fulcrum.health;

import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.time.Timers;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;

/**
 * TCP health checks: a target passes when it accepts a connection within the timeout; the
 * connection is closed at once. Its only failure reason is {@code Target.FailedHealthChecks}.
 */
final class TcpProber implements Prober {

  private final Timers timers;
  private final NetClient client;

  TcpProber(Vertx vertx, Timers timers) {
    this.timers = timers;
    this.client = vertx.createNetClient(new NetClientOptions());
  }

  @Override
  public void probe(String address, int port, HealthCheck check, boolean nlb, Handler<CheckResult> result) {
    long start = timers.now();
    boolean[] done = {false};
    long timer = timers.setTimer(check.timeoutSeconds() * 1000L, id -> {
      if (!done[0]) {
        done[0] = true;
        result.handle(CheckResult.fail(TargetHealth.FAILED, -1, timers.now() - start));
      }
    });
    client.connect(port, address).onComplete(ar -> {
      if (ar.succeeded()) {
        ar.result().close();
      }
      if (done[0]) {
        return;
      }
      done[0] = true;
      timers.cancelTimer(timer);
      long latency = timers.now() - start;
      result.handle(ar.succeeded() ? CheckResult.pass(-1, latency) : CheckResult.fail(TargetHealth.FAILED, -1, latency));
    });
  }
}
