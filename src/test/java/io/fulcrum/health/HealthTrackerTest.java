package io.fulcrum.health;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The per-target state machine of SPEC §1.6 and §2.4, with exact sequences. */
class HealthTrackerTest {

  private static final CheckResult PASS = CheckResult.pass(200, 3);
  private static final CheckResult MISMATCH = CheckResult.fail(TargetHealth.responseCodeMismatch(404), 404, 3);
  private static final CheckResult TIMEOUT = CheckResult.fail(TargetHealth.TIMEOUT, -1, 5000);

  private final HealthTracker tracker = new HealthTracker();
  private long now = 1000;

  /** Feeds results with healthy threshold 3 and unhealthy threshold 2; returns the states after each. */
  private List<String> feed(CheckResult... results) {
    return feed(false, results);
  }

  /** Like {@link #feed(CheckResult...)}; {@code drainFirst}: a network group that drains unhealthy targets. */
  private List<String> feed(boolean drainFirst, CheckResult... results) {
    List<String> states = new ArrayList<>();
    for (CheckResult r : results) {
      tracker.checkStarted(now);
      tracker.record(r, 3, 2, drainFirst, now);
      now += 30_000;
      TargetHealth h = tracker.health();
      states.add(h.state().wire() + (h.reason() == null ? "" : "/" + h.reason()));
    }
    return states;
  }

  @Test
  void newTarget_isRegistering_untilItsFirstCheckGoesOut() {
    assertThat(tracker.health()).isEqualTo(TargetHealth.REGISTRATION_IN_PROGRESS);
    assertThat(tracker.checkStarted(now)).isTrue();
    assertThat(tracker.health()).isEqualTo(TargetHealth.INITIAL_HEALTH_CHECKING);
    assertThat(tracker.health().description()).isEqualTo("Initial health checks in progress");
    assertThat(tracker.checkStarted(now)).isFalse();
  }

  @Test
  void newTarget_isHealthyAfterOnePassingCheck() {
    assertThat(feed(PASS)).containsExactly("healthy");
  }

  @Test
  void newTarget_staysInitialUntilTheUnhealthyThresholdOfFailures() {
    assertThat(feed(MISMATCH, MISMATCH))
        .containsExactly("initial/Elb.InitialHealthChecking", "unhealthy/Target.ResponseCodeMismatch");
    assertThat(tracker.health().description()).isEqualTo("Health checks failed with these codes: [404]");
  }

  @Test
  void healthyTarget_atOneFailureBelowTheThreshold_staysHealthy() {
    assertThat(feed(PASS, TIMEOUT, PASS, TIMEOUT, TIMEOUT))
        .containsExactly("healthy", "healthy", "healthy", "healthy", "unhealthy/Target.Timeout");
    assertThat(tracker.health().description()).isEqualTo("Request timed out");
  }

  @Test
  void unhealthyTarget_needsTheHealthyThresholdOfConsecutivePasses() {
    feed(PASS, MISMATCH, MISMATCH);
    assertThat(feed(PASS, PASS, MISMATCH, PASS, PASS, PASS)).containsExactly(
        "unhealthy/Target.ResponseCodeMismatch",
        "unhealthy/Target.ResponseCodeMismatch",
        "unhealthy/Target.ResponseCodeMismatch",
        "unhealthy/Target.ResponseCodeMismatch",
        "unhealthy/Target.ResponseCodeMismatch",
        "healthy");
  }

  @Test
  void unhealthyReason_followsTheLatestFailure() {
    feed(PASS, MISMATCH, MISMATCH);
    feed(TIMEOUT);
    assertThat(tracker.health()).isEqualTo(TargetHealth.TIMEOUT);
    feed(CheckResult.fail(TargetHealth.responseCodeMismatch(503), 503, 1));
    assertThat(tracker.health().description()).isEqualTo("Health checks failed with these codes: [503]");
  }

  @Test
  void history_keepsEveryCheckAndTransition_boundedToTheLast64() {
    feed(PASS, MISMATCH, MISMATCH);
    assertThat(tracker.history()).extracting(c -> c.transition() ? "T:" + c.health().state().wire()
            : c.passed() ? "pass" : "fail")
        .containsExactly("T:initial", "pass", "T:healthy", "fail", "fail", "T:unhealthy");
    for (int i = 0; i < 100; i++) {
      feed(PASS);
    }
    assertThat(tracker.history()).hasSize(HealthTracker.HISTORY);
    assertThat(tracker.history().get(tracker.history().size() - 1).passed()).isTrue();
    assertThat(tracker.health().state()).isEqualTo(TargetState.HEALTHY);
  }

  @Test
  void drainingGroup_healthyTargetThatFails_isUnhealthyDraining_untilTheIntervalEnds() {
    assertThat(feed(true, PASS, TIMEOUT, TIMEOUT, MISMATCH))
        .containsExactly("healthy", "healthy", "unhealthy.draining/Target.Timeout",
            "unhealthy.draining/Target.ResponseCodeMismatch");
    assertThat(tracker.drainingOver(now)).isTrue();
    assertThat(tracker.health()).isEqualTo(TargetHealth.responseCodeMismatch(404));
    assertThat(tracker.drainingOver(now)).as("only a draining target").isFalse();
  }

  @Test
  void drainingGroup_targetThatRecoversWhileDraining_isHealthyAfterTheHealthyThreshold() {
    assertThat(feed(true, PASS, TIMEOUT, TIMEOUT, PASS, PASS, PASS))
        .containsExactly("healthy", "healthy", "unhealthy.draining/Target.Timeout",
            "unhealthy.draining/Target.Timeout", "unhealthy.draining/Target.Timeout", "healthy");
  }

  @Test
  void drainingGroup_targetThatNeverWasHealthy_isUnhealthyAtOnce() {
    assertThat(feed(true, TIMEOUT, TIMEOUT)).containsExactly("initial/Elb.InitialHealthChecking",
        "unhealthy/Target.Timeout");
  }
}
