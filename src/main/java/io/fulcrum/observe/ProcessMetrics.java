package io.fulcrum.observe;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The process and its JVM as the metrics show them, under the names Prometheus's Java client uses
 * ({@code process_*}, {@code jvm_*}), so that existing dashboards read them: CPU time, resident
 * memory, file descriptors, heap and non-heap memory, threads and garbage collections. Read when
 * metrics are scraped; {@link #read} touches {@code /proc}, so call it off the event loop.
 *
 * @param cpuSeconds       CPU time of the process, user and system
 * @param residentBytes    resident set size ({@code VmRSS}), or -1 where {@code /proc} has none
 * @param openFds          open file descriptors, or -1 when unknown
 * @param maxFds           the limit of open file descriptors, or -1 when unknown
 * @param startTimeSeconds when the JVM started (Unix time)
 * @param heapUsed         heap in use
 * @param heapCommitted    heap committed
 * @param nonHeapUsed      non-heap memory in use (metaspace, code cache, ...)
 * @param nonHeapCommitted non-heap memory committed
 * @param threads          live threads
 * @param collections      each garbage collector's collections so far
 */
public record ProcessMetrics(double cpuSeconds, long residentBytes, long openFds, long maxFds,
    double startTimeSeconds, long heapUsed, long heapCommitted, long nonHeapUsed, long nonHeapCommitted,
    int threads, List<Collections> collections) {

  /** One garbage collector: how many collections it made and the seconds they took. */
  public record Collections(String gc, long count, double seconds) {
  }

  public static ProcessMetrics read() {
    var os = ManagementFactory.getOperatingSystemMXBean();
    double cpu = -1;
    long open = -1;
    long max = -1;
    if (os instanceof com.sun.management.UnixOperatingSystemMXBean unix) {
      cpu = unix.getProcessCpuTime() / 1e9;
      open = unix.getOpenFileDescriptorCount();
      max = unix.getMaxFileDescriptorCount();
    } else if (os instanceof com.sun.management.OperatingSystemMXBean sun) {
      cpu = sun.getProcessCpuTime() / 1e9;
    }
    MemoryUsage heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
    MemoryUsage nonHeap = ManagementFactory.getMemoryMXBean().getNonHeapMemoryUsage();
    List<Collections> gcs = new ArrayList<>();
    for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      gcs.add(new Collections(gc.getName(), gc.getCollectionCount(), gc.getCollectionTime() / 1e3));
    }
    return new ProcessMetrics(cpu, resident(), open, max, ManagementFactory.getRuntimeMXBean().getStartTime() / 1e3,
        heap.getUsed(), heap.getCommitted(), nonHeap.getUsed(), nonHeap.getCommitted(),
        ManagementFactory.getThreadMXBean().getThreadCount(), List.copyOf(gcs));
  }

  /** {@code VmRSS} from {@code /proc/self/status}, in bytes; -1 where there is none. */
  private static long resident() {
    try {
      for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
        if (line.startsWith("VmRSS:")) {
          String kb = line.substring("VmRSS:".length()).trim();
          return Long.parseLong(kb.substring(0, kb.indexOf(' '))) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      // Not Linux, or a format this does not know: the metric is left out.
    }
    return -1;
  }
}
