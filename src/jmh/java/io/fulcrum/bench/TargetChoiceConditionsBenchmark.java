package io.fulcrum.bench;

import io.fulcrum.balancer.Algorithm;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import java.util.HashMap;
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
 * Target choice off the steady path: round robin while targets are in slow start, and weighted
 * random while anomaly mitigation has lowered some weights.
 *
 * <ul>
 *   <li>{@code roundRobinSlowStart}: every tenth target entered slow start 30 s into a 100 s
 *       window (weight 0.3): a rolling deployment.</li>
 *   <li>{@code roundRobinAllInSlowStart}: every target entered slow start 1 s into a 100 s window
 *       (weight 0.01, the floor): a whole fleet replaced at once.</li>
 *   <li>{@code weightedRandomMitigated}: every tenth target mitigated to weight 0.5.</li>
 * </ul>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TargetChoiceConditionsBenchmark {

  @Param({"10", "100", "1000"})
  public int targets;

  private TargetSelector slowStart;
  private TargetSelector allInSlowStart;
  private TargetSelector mitigated;
  private long now;

  @Setup
  public void setUp() {
    now = System.currentTimeMillis();
    TargetGroup rr = Groups.group("rr", targets,
        Map.of("load_balancing.algorithm.type", "round_robin", "slow_start.duration_seconds", "100"));
    Map<String, Long> someSince = new HashMap<>();
    Map<String, Long> allSince = new HashMap<>();
    List<Target> ts = rr.targets();
    for (int i = 0; i < ts.size(); i++) {
      if (i % 10 == 9) {
        someSince.put(ts.get(i).key(), now - 30_000);
      }
      allSince.put(ts.get(i).key(), now - 1_000);
    }
    slowStart = selector(Algorithm.ROUND_ROBIN, Groups.plan(rr, someSince, Map.of()));
    allInSlowStart = selector(Algorithm.ROUND_ROBIN, Groups.plan(rr, allSince, Map.of()));

    TargetGroup wr = Groups.group("wr", targets,
        Map.of("load_balancing.algorithm.type", "weighted_random", "load_balancing.algorithm.anomaly_mitigation", "on"));
    Map<String, Double> weights = new HashMap<>();
    for (int i = 0; i < wr.targets().size(); i++) {
      if (i % 10 == 9) {
        weights.put(wr.targets().get(i).key(), 0.5);
      }
    }
    mitigated = selector(Algorithm.WEIGHTED_RANDOM, Groups.plan(wr, Map.of(), weights));
  }

  private static TargetSelector selector(Algorithm algorithm, TargetGroupPlan plan) {
    return TargetSelector.of(algorithm, plan.scope(Groups.ZONE), new SplittableRandom(42));
  }

  @Benchmark
  public Upstream roundRobinSlowStart() {
    return slowStart.choose(now);
  }

  @Benchmark
  public Upstream roundRobinAllInSlowStart() {
    return allInSlowStart.choose(now);
  }

  @Benchmark
  public Upstream weightedRandomMitigated() {
    return mitigated.choose(now);
  }
}
