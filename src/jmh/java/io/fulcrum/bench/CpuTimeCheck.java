package io.fulcrum.bench;

import io.fulcrum.balancer.Algorithm;
import io.fulcrum.balancer.Upstream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

/**
 * The target-choice goal checked by thread CPU time rather than wall time, for machines that are
 * busy with other work (where JMH's wall-clock scores swing with the scheduler): for each
 * algorithm, the best of 5 runs of 20 million choices at 10, 100 and 1,000 targets, and whether
 * 1,000 is within 1.5x of 10. Run: {@code java -cp target/benchmarks.jar io.fulcrum.bench.CpuTimeCheck}.
 * Exits 1 when an algorithm misses the goal. Not a substitute for JMH on a quiet machine.
 */
public final class CpuTimeCheck {

  static final int CHOICES = 20_000_000;
  static final double GOAL = 1.5;

  private CpuTimeCheck() {
  }

  public static void main(String[] args) {
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    boolean met = true;
    System.out.println("target choice, thread CPU time per choice (best of 5 x " + CHOICES + ")");
    for (Algorithm algorithm : Algorithm.values()) {
      double[] ns = new double[3];
      int[] sizes = {10, 100, 1000};
      for (int s = 0; s < sizes.length; s++) {
        TargetChoiceBenchmark b = new TargetChoiceBenchmark();
        b.algorithm = algorithm;
        b.targets = sizes[s];
        b.setUp();
        Upstream sink = null;
        for (int i = 0; i < CHOICES; i++) {
          sink = b.choose();
        }
        long best = Long.MAX_VALUE;
        for (int rep = 0; rep < 5; rep++) {
          long t0 = mx.getCurrentThreadCpuTime();
          for (int i = 0; i < CHOICES; i++) {
            sink = b.choose();
          }
          best = Math.min(best, mx.getCurrentThreadCpuTime() - t0);
        }
        if (sink == null) {
          throw new IllegalStateException("no target chosen");
        }
        ns[s] = (double) best / CHOICES;
      }
      double ratio = ns[2] / ns[0];
      met &= ratio <= GOAL;
      System.out.printf("  %-27s 10: %6.2f ns  100: %6.2f ns  1000: %6.2f ns  1000/10 = %.2fx  %s%n", algorithm,
          ns[0], ns[1], ns[2], ratio, ratio <= GOAL ? "within 1.5x" : "NOT within 1.5x");
    }
    System.exit(met ? 0 : 1);
  }
}
