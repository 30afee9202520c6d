import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
import jdk.jfr.consumer.RecordedThread;
import jdk.jfr.consumer.RecordingFile;

/**
 * Summarises a JFR recording of Fulcrum under load (loadtest/hotpath.sh):
 *
 * <pre>java loadtest/hotpath/JfrTop.java recording.jfr [N]</pre>
 *
 * <ul>
 *   <li>execution samples of the event-loop threads: the top N leaf frames (self time), the top N
 *       frames by inclusive samples, and the top N io.fulcrum methods by inclusive samples;</li>
 *   <li>allocations of the event-loop threads, from every TLAB refill (weighed by the TLAB's size)
 *       and every allocation outside a TLAB (by its size): by class, and by the innermost
 *       io.fulcrum frame that led to them. The allocation that opens a TLAB stands for the TLAB,
 *       which ranks sites without bias (jdk.ObjectAllocationSample, throttled, charges whatever
 *       was allocated since its last sample to one object).</li>
 * </ul>
 */
public final class JfrTop {

  public static void main(String[] args) throws Exception {
    int n = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    Map<String, Long> self = new HashMap<>();
    Map<String, Long> inclusive = new HashMap<>();
    Map<String, Long> fulcrum = new HashMap<>();
    Map<String, Long> allocByClass = new HashMap<>();
    Map<String, Long> allocBySite = new HashMap<>();
    Map<String, Long> allocByFrame = new HashMap<>();
    long samples = 0;
    long allocTotal = 0;
    for (RecordedEvent e : RecordingFile.readAllEvents(Path.of(args[0]))) {
      String type = e.getEventType().getName();
      boolean exec = type.equals("jdk.ExecutionSample");
      boolean tlab = type.equals("jdk.ObjectAllocationInNewTLAB");
      boolean alloc = tlab || type.equals("jdk.ObjectAllocationOutsideTLAB");
      if (!exec && !alloc) {
        continue;
      }
      RecordedThread t = e.getThread(exec ? "sampledThread" : "eventThread");
      if (t == null || t.getJavaName() == null || !t.getJavaName().startsWith("vert.x-eventloop-thread-")) {
        continue;
      }
      RecordedStackTrace st = e.getStackTrace();
      if (st == null || st.getFrames().isEmpty()) {
        continue;
      }
      List<RecordedFrame> frames = st.getFrames();
      if (exec) {
        samples++;
        self.merge(name(frames.get(0)), 1L, Long::sum);
        Set<String> seen = new HashSet<>();
        for (RecordedFrame f : frames) {
          String m = name(f);
          if (seen.add(m)) {
            inclusive.merge(m, 1L, Long::sum);
            if (m.startsWith("io.fulcrum.")) {
              fulcrum.merge(m, 1L, Long::sum);
            }
          }
        }
      } else {
        long w = e.getLong(tlab ? "tlabSize" : "allocationSize");
        allocTotal += w;
        allocByClass.merge(e.getClass("objectClass").getName(), w, Long::sum);
        allocByFrame.merge(e.getClass("objectClass").getName() + " at " + name(frames.get(0)) + ":"
            + frames.get(0).getLineNumber() + (frames.size() > 1 ? " < " + name(frames.get(1)) : ""), w, Long::sum);
        String site = null;
        for (RecordedFrame f : frames) {
          if (name(f).startsWith("io.fulcrum.")) {
            site = name(f) + ":" + f.getLineNumber();
            break;
          }
        }
        allocBySite.merge(site == null ? "(no io.fulcrum frame) " + name(frames.get(0)) : site, w, Long::sum);
      }
    }
    System.out.println("event-loop execution samples: " + samples);
    print("top leaf frames (self)", self, samples, n);
    print("top frames (inclusive)", inclusive, samples, n);
    print("top io.fulcrum frames (inclusive)", fulcrum, samples, n);
    System.out.println();
    System.out.println("event-loop allocation, bytes (TLABs and allocations outside them): " + allocTotal);
    print("allocation by class", allocByClass, allocTotal, n);
    print("allocation by innermost io.fulcrum frame", allocBySite, allocTotal, n);
    print("allocation by class and site", allocByFrame, allocTotal, 2 * n);
  }

  private static String name(RecordedFrame f) {
    return f.getMethod().getType().getName() + "." + f.getMethod().getName();
  }

  private static void print(String title, Map<String, Long> counts, long total, int n) {
    System.out.println();
    System.out.println("## " + title);
    List<Map.Entry<String, Long>> list = new ArrayList<>(counts.entrySet());
    list.sort((a, b) -> Long.compare(b.getValue(), a.getValue()));
    for (int i = 0; i < Math.min(n, list.size()); i++) {
      Map.Entry<String, Long> e = list.get(i);
      System.out.printf("%6.2f%%  %s%n", total == 0 ? 0 : 100.0 * e.getValue() / total, e.getKey());
    }
  }
}
