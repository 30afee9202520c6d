package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.internal.VertxInternal;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * FULCRUM_CPU_AFFINITY: what a value means, and on Linux, event loops really pinned: each loop
 * thread's mask is read back from the kernel ({@code /proc/thread-self/status}), not from the code
 * that set it.
 */
class CpuAffinityTest {

  private Vertx vertx;

  @AfterEach
  void close() throws Exception {
    if (vertx != null) {
      // The loops get the process's CPUs back before they close: a thread one of them starts while
      // closing (Netty's or the JDK's shared pools live on) would otherwise keep its CPU for the
      // tests that follow in this JVM.
      if (System.getProperty("os.name").startsWith("Linux")) {
        long[] all = LinuxScheduler.mask(allowedOf("/proc/self/status"));
        for (EventExecutor loop : ((VertxInternal) vertx).nettyEventLoopGroup()) {
          CompletableFuture.runAsync(() -> LinuxScheduler.setCurrentThread(all), loop).get(10, TimeUnit.SECONDS);
        }
      }
      vertx.close().await();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", " ", "off", "OFF", " off "})
  void offOrUnset_pinsNothing(String value) {
    assertThat(CpuAffinity.choose(Map.of(CpuAffinity.ENV, value)).enabled()).isFalse();
    assertThat(CpuAffinity.choose(Map.of()).enabled()).isFalse();
    assertThat(CpuAffinity.choose(Map.of()).toString()).isEqualTo("off");
  }

  @Test
  void auto_usesEveryCpuTheProcessMayRunOn() {
    CpuAffinity auto = CpuAffinity.choose(Map.of(CpuAffinity.ENV, " Auto "));

    assertThat(auto.enabled()).isTrue();
    assertThat(auto).hasToString("auto");
    assertThat(auto.cpus(List.of(2, 3, 6))).containsExactly(2, 3, 6);
  }

  @ParameterizedTest
  @CsvSource(delimiter = ';', value = {"0-3,8; 0-3,8", "3, 1 ,2; 1-3", "5; 5", "0-1,1-2; 0-2", "1023; 1023"})
  void aList_namesThoseCpus_inOrder(String value, String canonical) {
    CpuAffinity a = CpuAffinity.choose(Map.of(CpuAffinity.ENV, value));

    assertThat(a).hasToString(canonical);
    assertThat(a.cpus(List.copyOf(CpuAffinity.parseList("0-1023")))).isEqualTo(List.copyOf(CpuAffinity.parseList(canonical)));
  }

  @ParameterizedTest
  @CsvSource(delimiter = ';', value = {
      "one; FULCRUM_CPU_AFFINITY=one: not off, auto or a list of CPUs such as 0-3,8",
      "1,,2; FULCRUM_CPU_AFFINITY=1,,2: not off, auto or a list of CPUs such as 0-3,8",
      "-1; FULCRUM_CPU_AFFINITY=-1: not off, auto or a list of CPUs such as 0-3,8",
      "0-; FULCRUM_CPU_AFFINITY=0-: not off, auto or a list of CPUs such as 0-3,8",
      "3-1; FULCRUM_CPU_AFFINITY=3-1: the range 3-1 ends before it starts",
      "1024; FULCRUM_CPU_AFFINITY=1024: CPU 1024 is beyond the last one this supports (1023)"})
  void aBadValue_isRefused_namingTheVariable(String value, String message) {
    assertThatThrownBy(() -> CpuAffinity.choose(Map.of(CpuAffinity.ENV, value)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(message);
  }

  @Test
  void aCpuOutsideTheProcesssMask_isRefused_namingIt() {
    CpuAffinity a = CpuAffinity.choose(Map.of(CpuAffinity.ENV, "1-4"));

    assertThatThrownBy(() -> a.cpus(List.of(0, 1, 2)))
        .hasMessage("FULCRUM_CPU_AFFINITY=1-4: CPUs 3-4 are not among those this process may run on (0-2)");
    assertThatThrownBy(() -> CpuAffinity.choose(Map.of(CpuAffinity.ENV, "7")).cpus(List.of(0, 1)))
        .hasMessage("FULCRUM_CPU_AFFINITY=7: CPU 7 is not among those this process may run on (0-1)");
  }

  @ParameterizedTest
  @CsvSource({"8, 3, 9", "4, 2, 4", "2, 4, 4", "1, 1, 1", "6, 4, 8", "16, 16, 16"})
  void theEventLoopCount_isRoundedUpToAMultipleOfTheCpus(int defaults, int cpus, int loops) {
    assertThat(CpuAffinity.eventLoops(defaults, cpus)).isEqualTo(loops);
  }

  @Test
  void off_orACpuOutsideTheMask_leavesTheEventLoopCountAsItIs() {
    assertThat(CpuAffinity.choose(Map.of()).eventLoops(7)).isEqualTo(7);
    assertThat(CpuAffinity.choose(Map.of(CpuAffinity.ENV, "1023")).eventLoops(7)).isEqualTo(7);
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void anyCpuCountOfLoopsInARow_runOnDifferentCpus_evenAcrossTheWrapAround() throws Exception {
    List<Integer> allowed = allowedOf("/proc/self/status");
    int n = allowed.size();
    assumeThat(n).isGreaterThan(1);
    CpuAffinity auto = CpuAffinity.choose(Map.of(CpuAffinity.ENV, "auto"));
    int loops = auto.eventLoops(2 * n + 1); // not a multiple of n: rounded up to 3n
    assertThat(loops).isEqualTo(3 * n);
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));

    List<Integer> pinned = auto.pin(vertx).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    // Vert.x hands loops out in turn, wrapping around: the listener instances deployed one after
    // the other can start at any loop.
    for (int first = 0; first < loops; first++) {
      List<Integer> inARow = new ArrayList<>();
      for (int k = 0; k < n; k++) {
        inARow.add(pinned.get((first + k) % loops));
      }
      assertThat(inARow).as("loops %d to %d", first, first + n - 1).doesNotHaveDuplicates();
    }
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void auto_pinsEachEventLoop_toTheProcesssCpusInTurn() throws Exception {
    List<Integer> allowed = allowedOf("/proc/self/status");
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(4));

    List<Integer> pinned = CpuAffinity.choose(Map.of(CpuAffinity.ENV, "auto")).pin(vertx)
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    List<Integer> expected = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      expected.add(allowed.get(i % allowed.size()));
    }
    assertThat(pinned).isEqualTo(expected);
    assertThat(loopMasks()).containsExactlyElementsOf(expected.stream().map(List::of).toList());
    // This thread, and so the process's other threads, keep their mask.
    assertThat(allowedOf("/proc/thread-self/status")).isEqualTo(allowed);
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aList_pinsTheLoopsToThoseCpus() throws Exception {
    List<Integer> allowed = allowedOf("/proc/self/status");
    int last = allowed.get(allowed.size() - 1);
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(3));

    List<Integer> pinned = CpuAffinity.choose(Map.of(CpuAffinity.ENV, Integer.toString(last))).pin(vertx)
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    assertThat(pinned).containsExactly(last, last, last);
    assertThat(loopMasks()).containsExactly(List.of(last), List.of(last), List.of(last));
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aCpuTheProcessMayNotUse_failsThePin_andLeavesEveryLoopAsItWas() throws Exception {
    List<Integer> allowed = allowedOf("/proc/self/status");
    int outside = allowed.get(allowed.size() - 1) + 1;
    assumeThat(outside).isLessThan(CpuAffinity.MAX_CPUS);
    vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));

    Throwable failure = CpuAffinity.choose(Map.of(CpuAffinity.ENV, allowed.get(0) + "," + outside)).pin(vertx)
        .toCompletionStage().toCompletableFuture().handle((ok, e) -> e).get(10, TimeUnit.SECONDS);

    assertThat(failure).hasMessageStartingWith("FULCRUM_CPU_AFFINITY=" + allowed.get(0) + "," + outside + ": CPU " + outside
        + " is not among those this process may run on");
    assertThat(loopMasks()).containsExactly(allowed, allowed);
  }

  @Test
  @EnabledOnOs(OS.LINUX)
  void aBlockingTaskHandedOverByAPinnedLoop_runsOnTheProcesssCpus() throws Exception {
    List<Integer> allowed = allowedOf("/proc/self/status");
    assumeThat(allowed).hasSizeGreaterThan(1);
    vertx = NetworkTransport.vertx(Map.of());
    CpuAffinity.choose(Map.of(CpuAffinity.ENV, Integer.toString(allowed.get(0)))).pin(vertx)
        .toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);

    // Handed over from an event loop: had the worker pool no thread yet, Vert.x would start one there.
    Context context = vertx.getOrCreateContext();
    CompletableFuture<List<Integer>> fromLoop = new CompletableFuture<>();
    context.runOnContext(v -> context.executeBlocking(() -> allowedOf("/proc/thread-self/status"))
        .onComplete(r -> fromLoop.complete(r.result())));
    List<Integer> loop = CompletableFuture.supplyAsync(() -> allowedOf("/proc/thread-self/status"),
        ((VertxInternal) vertx).nettyEventLoopGroup().next()).get(10, TimeUnit.SECONDS);

    assertThat(loop).containsExactly(allowed.get(0));
    assertThat(fromLoop.get(10, TimeUnit.SECONDS)).isEqualTo(allowed);
  }

  /** Each event loop's mask, as the kernel reports it for that thread. */
  private List<List<Integer>> loopMasks() throws Exception {
    List<List<Integer>> masks = new ArrayList<>();
    for (EventExecutor loop : ((VertxInternal) vertx).nettyEventLoopGroup()) {
      masks.add(CompletableFuture.supplyAsync(() -> allowedOf("/proc/thread-self/status"), loop).get(10, TimeUnit.SECONDS));
    }
    return masks;
  }

  /** The CPUs of the {@code Cpus_allowed_list} of a {@code /proc/.../status} file (also CpuAffinityIT's). */
  static List<Integer> allowedOf(String status) {
    try {
      String line = Files.readAllLines(Path.of(status)).stream().filter(l -> l.startsWith("Cpus_allowed_list:"))
          .findFirst().orElseThrow();
      return List.copyOf(CpuAffinity.parseList(line.substring(line.indexOf(':') + 1).strip()));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
