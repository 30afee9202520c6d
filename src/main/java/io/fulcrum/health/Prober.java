package io.fulcrum.health;

import io.fulcrum.model.HealthCheck;
import io.vertx.core.Handler;

/**
 * Sends one health check to one target and reports the result exactly once. Called on the health
 * checker's context; the result handler runs there too.
 */
interface Prober {

  /**
   * @param address the target's IP address
   * @param port    the port to probe (the health check port)
   * @param check   the group's settings (protocol, path, timeout, matcher)
   * @param nlb     whether the group belongs to a Network Load Balancer (its only failure reason
   *                is {@code Target.FailedHealthChecks})
   */
  void probe(String address, int port, HealthCheck check, boolean nlb, Handler<CheckResult> result);
}
