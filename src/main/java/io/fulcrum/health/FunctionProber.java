package io.fulcrum.health;

import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.FunctionReply;
import io.fulcrum.bus.LambdaError;
import io.fulcrum.function.FunctionRequests;
import io.fulcrum.model.FunctionDefinition;
import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.time.Timers;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;

/**
 * Health checks of Lambda targets (SPEC §1.5): the health-check event ({@code GET} on the check's
 * path, {@code user-agent: ELB-HealthChecker/2.0}, empty body) goes to the function through the
 * function invoker, and the {@code statusCode} it answers is judged by the matcher. A function
 * error, a throttle or an invalid response fails the check ({@code Target.FailedHealthChecks}); no
 * answer within the check's timeout is {@code Target.Timeout}. The timeout runs on {@link Timers}.
 * Called on the health checker's context; the result handler runs there too.
 */
final class FunctionProber {

  private static final DeliveryOptions INVOKE = new DeliveryOptions().setLocalOnly(true)
      .setSendTimeout((FunctionDefinition.MAX_TIMEOUT_SECONDS + 60L) * 1000L);

  private final Vertx vertx;
  private final Timers timers;

  FunctionProber(Vertx vertx, Timers timers) {
    this.vertx = vertx;
    this.timers = timers;
  }

  /**
   * @param groupArn the target group (the event's {@code targetGroupArn})
   * @param function the target id (a function name or ARN)
   */
  void probe(String groupArn, String function, HealthCheck check, Handler<CheckResult> result) {
    long start = timers.now();
    boolean[] done = new boolean[1];
    long[] timer = new long[1];
    timer[0] = timers.setTimer(check.timeoutSeconds() * 1000L, id -> {
      if (!done[0]) {
        done[0] = true;
        result.handle(CheckResult.fail(TargetHealth.TIMEOUT, -1, timers.now() - start));
      }
    });
    vertx.eventBus().<FunctionReply>request(Addresses.FUNCTION_INVOKE,
        FunctionRequests.healthCheck(groupArn, function, check), INVOKE).onComplete(ar -> {
          if (done[0]) {
            return;
          }
          done[0] = true;
          timers.cancelTimer(timer[0]);
          long latency = timers.now() - start;
          FunctionReply reply = ar.succeeded() ? ar.result().body() : FunctionReply.failed(LambdaError.UNHANDLED_EXCEPTION);
          if (reply.error() == LambdaError.CONNECTION_TIMEOUT) {
            result.handle(CheckResult.fail(TargetHealth.TIMEOUT, -1, latency));
          } else if (!reply.ok()) {
            // The function failed (or its answer was not one): the target's error, in the health check log.
            result.handle(CheckResult.fail(TargetHealth.FAILED, -1, latency, "TargetError"));
          } else if (check.matcher().matches(reply.statusCode())) {
            result.handle(CheckResult.pass(reply.statusCode(), latency));
          } else {
            result.handle(CheckResult.fail(TargetHealth.responseCodeMismatch(reply.statusCode()), reply.statusCode(),
                latency));
          }
        });
  }
}
