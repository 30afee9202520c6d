package io.fulcrum.bootstrap;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.WorkerPool;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.stream.Collectors;

/**
 * Event loops pinned to CPUs, as {@code FULCRUM_CPU_AFFINITY} asks (HAProxy's {@code cpu-map},
 * NGINX's {@code worker_cpu_affinity}):
 * <ul>
 *   <li>{@code off} (the default): the kernel places the threads;</li>
 *   <li>{@code auto}: the CPUs this process may run on when it starts (its affinity mask, which
 *   {@code taskset}, a container's cpuset or Kubernetes' static CPU manager set);</li>
 *   <li>a list such as {@code 0-3,8}: those CPUs, each of which must be in that mask.</li>
 * </ul>
 * Event loop {@code i} (in Vert.x's order, the order in which it hands loops to verticle
 * instances) runs on CPU {@code i mod n} of the {@code n} chosen, and the number of loops is made a
 * multiple of {@code n} ({@link #eventLoops}), so the listener instances, deployed one after the
 * other, land on different CPUs. The JVM's other threads (collector, compiler,
 * Vert.x's worker pools, started before the loops are pinned) are left where the kernel puts them.
 *
 * <p>Why: with two event loops on a machine whose CPUs they share with other busy processes, the
 * scheduler now and then queues both loops on one CPU, where each waits for the other's slice
 * while requests wait for both (docs/performance.md, "Pinning event loops to CPUs"). Pinned, a
 * loop waits only behind whatever else runs on its own CPU. A pinned loop cannot move off a CPU
 * that something else keeps busy, either: pin where the CPUs are the load balancer's.
 *
 * <p>Linux only, through {@code sched_setaffinity(2)} ({@link LinuxScheduler}).
 */
public final class CpuAffinity {

  public static final String ENV = "FULCRUM_CPU_AFFINITY";
  /** The most CPUs a list may name (glibc's {@code cpu_set_t}). */
  static final int MAX_CPUS = LinuxScheduler.MAX_CPUS;

  /** Null: off; empty: auto; else the CPUs asked for, in ascending order. */
  private final List<Integer> asked;

  private CpuAffinity(List<Integer> asked) {
    this.asked = asked;
  }

  /**
   * What {@code env} asks for.
   *
   * @throws IllegalArgumentException naming the variable and what is wrong with its value
   */
  public static CpuAffinity choose(Map<String, String> env) {
    String value = env.getOrDefault(ENV, "").strip();
    String v = value.toLowerCase(Locale.ROOT);
    if (v.isEmpty() || v.equals("off")) {
      return new CpuAffinity(null);
    }
    if (v.equals("auto")) {
      return new CpuAffinity(List.of());
    }
    try {
      return new CpuAffinity(List.copyOf(parseList(v)));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(ENV + "=" + value + ": " + e.getMessage(), e);
    }
  }

  /** Whether loops are pinned at all. */
  public boolean enabled() {
    return asked != null;
  }

  /** The setting as the variable would spell it: {@code off}, {@code auto} or the list. */
  @Override
  public String toString() {
    return asked == null ? "off" : asked.isEmpty() ? "auto" : format(asked);
  }

  /**
   * The CPUs to use, given the ones this process may run on.
   *
   * @throws IllegalArgumentException naming the variable, when the list names a CPU outside {@code allowed}
   */
  List<Integer> cpus(List<Integer> allowed) {
    if (asked == null) {
      return List.of();
    }
    if (asked.isEmpty()) {
      return allowed;
    }
    List<Integer> outside = asked.stream().filter(c -> !allowed.contains(c)).toList();
    if (!outside.isEmpty()) {
      throw new IllegalArgumentException(ENV + "=" + this + ": CPU" + (outside.size() > 1 ? "s " : " ") + format(outside)
          + (outside.size() > 1 ? " are" : " is") + " not among those this process may run on (" + format(allowed) + ")");
    }
    return asked;
  }

  /**
   * How many event loops to start: {@code defaults} (Vert.x's, twice the CPUs the JVM sees) rounded
   * up to a multiple of the CPUs chosen. Loop {@code i} runs on CPU {@code i mod n}, so any {@code n}
   * loops in a row, the listener instances among them, are on {@code n} different CPUs only when
   * the count is such a multiple: 8 loops on 3 CPUs would put loops 7 and 0 on CPU 0. Off, or when
   * the CPUs cannot be read or the list names one outside the process's mask (then {@link #pin}
   * fails and says why), {@code defaults}.
   */
  public int eventLoops(int defaults) {
    if (asked == null) {
      return defaults;
    }
    try {
      return eventLoops(defaults, cpus(LinuxScheduler.allowedCpus()).size());
    } catch (RuntimeException | LinkageError e) {
      return defaults;
    }
  }

  static int eventLoops(int defaults, int cpus) {
    return Math.max(1, (defaults + cpus - 1) / cpus) * cpus;
  }

  /**
   * Pins each of {@code vertx}'s event loops to its CPU, each from its own thread; completes with
   * the CPU of each loop, in Vert.x's order (nothing when off). Fails, naming the variable, when a
   * CPU is outside the process's mask or the system call is refused; loops pinned before the
   * failure stay pinned (start-up stops anyway).
   */
  public Future<List<Integer>> pin(Vertx vertx) {
    if (asked == null) {
      return Future.succeededFuture(List.of());
    }
    List<Integer> cpus;
    try {
      cpus = cpus(LinuxScheduler.allowedCpus());
    } catch (IllegalArgumentException e) {
      return Future.failedFuture(e);
    } catch (UnsupportedOperationException | LinkageError e) {
      return Future.failedFuture(new IllegalArgumentException(ENV + "=" + this + ": " + e.getMessage(), e));
    }
    // A thread inherits the CPUs of the thread that starts it, and Vert.x starts a worker thread
    // from whichever thread first hands its pool a task, often an event loop: the worker pools'
    // threads are all started now, from this thread, so that none inherits a loop's CPU.
    VertxInternal v = (VertxInternal) vertx;
    for (WorkerPool pool : List.of(v.workerPool(), v.internalWorkerPool())) {
      if (pool.executor() instanceof ThreadPoolExecutor threads) {
        threads.prestartAllCoreThreads();
      }
    }
    List<Future<Integer>> pinned = new ArrayList<>();
    int i = 0;
    for (EventExecutor loop : v.nettyEventLoopGroup()) {
      int cpu = cpus.get(i++ % cpus.size());
      Promise<Integer> done = Promise.promise();
      loop.execute(() -> {
        try {
          done.complete(pinThisThread(cpu));
        } catch (RuntimeException e) {
          done.fail(e);
        }
      });
      pinned.add(done.future());
    }
    return Future.all(pinned).map(all -> pinned.stream().map(Future::result).toList());
  }

  private int pinThisThread(int cpu) {
    try {
      LinuxScheduler.pinCurrentThread(cpu);
      return cpu;
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(ENV + "=" + this + ": cannot pin " + Thread.currentThread().getName()
          + " to CPU " + cpu + ": " + e.getMessage(), e);
    }
  }

  /** {@code "0-3,8"} to 0, 1, 2, 3, 8. */
  static TreeSet<Integer> parseList(String list) {
    TreeSet<Integer> cpus = new TreeSet<>();
    for (String part : list.split(",", -1)) {
      String p = part.strip();
      int dash = p.indexOf('-');
      int from = cpu(dash < 0 ? p : p.substring(0, dash));
      int to = dash < 0 ? from : cpu(p.substring(dash + 1));
      if (to < from) {
        throw new IllegalArgumentException("the range " + p + " ends before it starts");
      }
      for (int c = from; c <= to; c++) {
        cpus.add(c);
      }
    }
    return cpus;
  }

  private static int cpu(String s) {
    String t = s.strip();
    if (!t.matches("[0-9]{1,4}")) {
      throw new IllegalArgumentException("not off, auto or a list of CPUs such as 0-3,8");
    }
    int c = Integer.parseInt(t);
    if (c >= MAX_CPUS) {
      throw new IllegalArgumentException("CPU " + c + " is beyond the last one this supports (" + (MAX_CPUS - 1) + ")");
    }
    return c;
  }

  /** 0, 1, 2, 3, 8 as {@code "0-3,8"}. */
  static String format(List<Integer> cpus) {
    BitSet set = new BitSet();
    cpus.forEach(set::set);
    List<String> parts = new ArrayList<>();
    for (int from = set.nextSetBit(0); from >= 0; ) {
      int to = set.nextClearBit(from) - 1;
      parts.add(from == to ? Integer.toString(from) : from + "-" + to);
      from = set.nextSetBit(to + 1);
    }
    return parts.stream().collect(Collectors.joining(","));
  }
}
