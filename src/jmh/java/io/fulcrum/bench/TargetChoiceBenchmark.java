package io.fulcrum.bench;

import io.fulcrum.balancer.Algorithm;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.model.TargetGroup;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One target choice per operation, as a listener verticle makes it: its own selector (built from
 * the snapshot's scope) and its own random. Goal: the time at 1,000 targets within 1.5x of the
 * time at 10.
 *
 * <p>{@code steady}: every target healthy, none in slow start, no anomaly mitigation.
 * Least outstanding requests sees a spread of in-flight counts (0-3), as under load.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TargetChoiceBenchmark {

  @Param({"ROUND_ROBIN", "LEAST_OUTSTANDING_REQUESTS", "WEIGHTED_RANDOM"})
  public Algorithm algorithm;

  @Param({"10", "100", "1000"})
  public int targets;

  private TargetSelector selector;
  private long now;

  @Setup
  public void setUp() {
    TargetGroup g = Groups.group("bench", targets,
        Map.of("load_balancing.algorithm.type", algorithm.wire()));
    TargetGroupPlan plan = Groups.plan(g, Map.of(), Map.of());
    selector = TargetSelector.of(algorithm, plan.scope(Groups.ZONE), new SplittableRandom(42));
    now = System.currentTimeMillis();
    if (algorithm == Algorithm.LEAST_OUTSTANDING_REQUESTS) {
      SplittableRandom r = new SplittableRandom(7);
      for (String key : plan.scope(Groups.ZONE).eligibleKeys()) {
        Upstream u = plan.scope(Groups.ZONE).eligible(key);
        for (int i = r.nextInt(4); i > 0; i--) {
          u.dispatched();
        }
      }
    }
    List<String> keys = plan.scope(Groups.ZONE).eligibleKeys();
    if (keys.size() != targets) {
      throw new IllegalStateException(keys.size() + " eligible targets, expected " + targets);
    }
  }

  @Benchmark
  public Upstream choose() {
    return selector.choose(now);
  }
}
