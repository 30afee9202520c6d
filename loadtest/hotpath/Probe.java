import com.sun.tools.attach.VirtualMachine;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadInfo;
import java.util.List;
import javax.management.MBeanServerConnection;
import javax.management.remote.JMXConnector;
import javax.management.remote.JMXConnectorFactory;
import javax.management.remote.JMXServiceURL;

/**
 * Reads a running JVM's per-thread allocation and CPU counters over its local management agent
 * (started by attaching). Used by loadtest/hotpath.sh:
 *
 * <pre>java loadtest/hotpath/Probe.java PID</pre>
 *
 * prints "ready", then for every line read on stdin prints one line of cumulative counters:
 *
 * <pre>snap EL_ALLOC EL_CPU_NS ALL_ALLOC PROC_CPU_NS GC_COUNT GC_MS HEAP_USED EL_THREADS</pre>
 *
 * EL_* are summed over the Vert.x event-loop threads (vert.x-eventloop-thread-*); ALL_ALLOC over
 * every live thread (threads that died between two snapshots drop out of it). The caller takes
 * differences. Reading does not allocate on, or pause, the event loops.
 */
public final class Probe {

  public static void main(String[] args) throws Exception {
    VirtualMachine vm = VirtualMachine.attach(args[0]);
    String address = vm.startLocalManagementAgent();
    vm.detach();
    try (JMXConnector c = JMXConnectorFactory.connect(new JMXServiceURL(address))) {
      MBeanServerConnection s = c.getMBeanServerConnection();
      com.sun.management.ThreadMXBean threads = ManagementFactory.newPlatformMXBeanProxy(s,
          ManagementFactory.THREAD_MXBEAN_NAME, com.sun.management.ThreadMXBean.class);
      com.sun.management.OperatingSystemMXBean os = ManagementFactory.newPlatformMXBeanProxy(s,
          ManagementFactory.OPERATING_SYSTEM_MXBEAN_NAME, com.sun.management.OperatingSystemMXBean.class);
      MemoryMXBean memory = ManagementFactory.newPlatformMXBeanProxy(s, ManagementFactory.MEMORY_MXBEAN_NAME,
          MemoryMXBean.class);
      List<GarbageCollectorMXBean> gcs = ManagementFactory.getPlatformMXBeans(s, GarbageCollectorMXBean.class);
      System.out.println("ready");
      System.out.flush();
      BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
      while (in.readLine() != null) {
        long[] ids = threads.getAllThreadIds();
        ThreadInfo[] infos = threads.getThreadInfo(ids, 0);
        long[] alloc = threads.getThreadAllocatedBytes(ids);
        long elAlloc = 0;
        long elCpu = 0;
        long all = 0;
        int el = 0;
        for (int i = 0; i < ids.length; i++) {
          if (infos[i] == null || alloc[i] < 0) {
            continue;
          }
          all += alloc[i];
          if (infos[i].getThreadName().startsWith("vert.x-eventloop-thread-")) {
            el++;
            elAlloc += alloc[i];
            elCpu += Math.max(0, threads.getThreadCpuTime(ids[i]));
          }
        }
        long gcCount = 0;
        long gcMs = 0;
        for (GarbageCollectorMXBean gc : gcs) {
          gcCount += gc.getCollectionCount();
          gcMs += gc.getCollectionTime();
        }
        System.out.println("snap " + elAlloc + " " + elCpu + " " + all + " " + os.getProcessCpuTime() + " " + gcCount
            + " " + gcMs + " " + memory.getHeapMemoryUsage().getUsed() + " " + el);
        System.out.flush();
      }
    }
  }
}
