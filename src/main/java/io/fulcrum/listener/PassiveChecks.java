package io.fulcrum.listener;

import io.fulcrum.balancer.Upstream;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A network load balancer's passive health checks on one event loop (SPEC §1.5): NLB watches how
 * targets answer new connections and stops sending flows to one that fails them before its active
 * checks say so. Here: a target that refuses {@value #FAILURES} connections in a row, or lets them
 * time out, is avoided by this loop's new flows for {@value #AVOID_SECONDS} s (its open flows are
 * untouched), then tried again, and avoided again if it still fails. It is chosen anyway when every
 * target of its scope is avoided (as a zone fails open). Not used for UDP, nor for groups with
 * {@code source_ip} stickiness, as on AWS. Like AWS's, it cannot be configured and does not show in
 * the target's health; {@code TargetConnectionErrorCount} counts the failures. Plain fields: only
 * the loop touches them.
 */
final class PassiveChecks {

  /** Failed connections in a row that make a target avoided. */
  static final int FAILURES = 2;
  /** How long an avoided target takes no new flow of this loop. */
  static final int AVOID_SECONDS = 30;

  private final Clock clock;
  /** Targets (by key) that failed their last connections, or are avoided. */
  private final Map<String, Failing> failing = new HashMap<>();
  /** Whether a target is avoided now, for {@link io.fulcrum.balancer.FlowChoice}: made once. */
  private final Predicate<Upstream> avoided = this::avoided;

  PassiveChecks(Clock clock) {
    this.clock = clock;
  }

  /** A connection to the target {@code key} failed: refused, or not answered within the connect timeout. */
  void failed(String key) {
    Failing f = failing.computeIfAbsent(key, k -> new Failing());
    if (++f.inARow >= FAILURES) {
      f.inARow = 0;
      f.avoidedUntil = clock.millis() + AVOID_SECONDS * 1000L;
    }
  }

  /** A connection to the target {@code key} opened: it is no longer failing. */
  void connected(String key) {
    if (!failing.isEmpty()) {
      failing.remove(key);
    }
  }

  /** The test of whether a target is avoided now. */
  Predicate<Upstream> avoided() {
    return avoided;
  }

  private boolean avoided(Upstream u) {
    if (failing.isEmpty()) {
      return false;
    }
    Failing f = failing.get(u.key());
    return f != null && f.avoidedUntil > clock.millis();
  }

  /** Forgets the targets that are not avoided now (a target deregistered meanwhile leaves no trace). */
  void forgetSettled() {
    long now = clock.millis();
    failing.values().removeIf(f -> f.avoidedUntil <= now);
  }

  /** One failing target's count of failed connections in a row, and until when it is avoided. */
  private static final class Failing {
    int inARow;
    long avoidedUntil;
  }
}
