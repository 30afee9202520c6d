package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Ports;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/**
 * The packaged jar with {@code FULCRUM_CPU_AFFINITY}: the process's event-loop threads, as the
 * kernel lists them under {@code /proc/PID/task}, each allowed on one CPU and spread over the
 * process's CPUs, its other threads untouched, while it serves; a bad value or a CPU the process
 * may not use stops start-up.
 */
@EnabledOnOs(OS.LINUX)
class CpuAffinityIT {

  @TempDir
  Path work;

  private final int control = Ports.free();
  private final int http = Ports.free();
  private FulcrumProcess fulcrum;

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
  }

  @Test
  void auto_pinsEveryEventLoopToOneCpu_andServes() throws Exception {
    List<Integer> allowed = CpuAffinityTest.allowedOf("/proc/self/status");
    fulcrum = start("auto", 2);
    fulcrum.waitReady(control);

    assertThat(fulcrum.status(URI.create("http://127.0.0.1:" + http + "/"))).isEqualTo(200);
    assertThat(fulcrum.stderr()).contains("event loops pinned to CPUs (FULCRUM_CPU_AFFINITY=auto)");
    List<String> loops = new ArrayList<>();
    List<String> others = new ArrayList<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc/" + fulcrum.pid() + "/task"))) {
      for (Path task : tasks.toList()) {
        try {
          String name = Files.readString(task.resolve("comm")).strip();
          (name.startsWith("vert.x-eventloo") ? loops : others).add(name + " "
              + CpuAffinity.format(CpuAffinityTest.allowedOf(task.resolve("status").toString())));
        } catch (NoSuchFileException gone) {
          // a thread that ended meanwhile
        } catch (UncheckedIOException e) {
          if (!(e.getCause() instanceof NoSuchFileException)) {
            throw e;
          }
        }
      }
    }
    assertThat(loops).as("the event-loop threads and their CPUs").isNotEmpty()
        .allSatisfy(l -> assertThat(allowed).contains(Integer.parseInt(l.substring(l.lastIndexOf(' ') + 1))));
    assertThat(loops.stream().map(l -> l.substring(l.lastIndexOf(' ') + 1)).distinct().count())
        .as("loops on different CPUs: %s", loops).isEqualTo(Math.min(loops.size(), allowed.size()));
    // The JVM's other threads (collector, compiler, Vert.x's workers) keep the process's mask.
    assertThat(others).isNotEmpty().allSatisfy(t -> assertThat(t).endsWith(" " + CpuAffinity.format(allowed)));
  }

  @Test
  void aCpuTheProcessMayNotUse_stopsStartUp_namingTheVariable() throws Exception {
    List<Integer> allowed = CpuAffinityTest.allowedOf("/proc/self/status");
    int outside = allowed.get(allowed.size() - 1) + 1;
    fulcrum = start(Integer.toString(outside), 1);

    assertThat(fulcrum.waitForExit(FulcrumProcess.START_TIMEOUT)).as(fulcrum.describe()).isEqualTo(2);
    assertThat(fulcrum.stderr()).contains("FULCRUM_CPU_AFFINITY=" + outside + ": CPU " + outside
        + " is not among those this process may run on (" + CpuAffinity.format(allowed) + "); nothing was started");
  }

  @Test
  void aValueThatIsNoCpuList_stopsStartUp() throws Exception {
    fulcrum = start("all", 1);

    assertThat(fulcrum.waitForExit(FulcrumProcess.START_TIMEOUT)).as(fulcrum.describe()).isEqualTo(2);
    assertThat(fulcrum.stderr()).contains("FULCRUM_CPU_AFFINITY=all: not off, auto or a list of CPUs such as 0-3,8");
  }

  private FulcrumProcess start(String affinity, int instances) throws IOException {
    Path config = Files.writeString(work.resolve("fulcrum.yaml"), """
        nodes: [{zone: zone-a, address: 127.0.0.1}]
        control: {address: 127.0.0.1, port: %d}
        dns: {enabled: false}
        reload: {enabled: false}
        load-balancers:
          - name: alb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: fixed-response, status-code: "200", content-type: text/plain, message-body: pinned}]
        """.formatted(control, http));
    return FulcrumProcess.builder(work).directory(work)
        .args("--config", config.toString(), "--instances", Integer.toString(instances))
        .env(CpuAffinity.ENV, affinity)
        .start();
  }
}
