package io.fulcrum.bootstrap;

import com.sun.jna.LastErrorException;
import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Platform;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code sched_getaffinity(2)} and {@code sched_setaffinity(2)} for the calling thread, through
 * JNA's direct mapping of the C library, loaded on first use (only {@link CpuAffinity} calls it, and
 * only when asked to pin). Masks are {@code cpu_set_t}s of 1,024 CPUs, held as 64-bit words so that
 * bit {@code c} is CPU {@code c} whatever the byte order.
 */
final class LinuxScheduler {

  static final int MAX_CPUS = 1024;
  private static final int WORDS = MAX_CPUS / Long.SIZE;
  private static final NativeLong MASK_BYTES = new NativeLong((long) WORDS * Long.BYTES);

  private LinuxScheduler() {
  }

  /**
   * The CPUs the calling thread may run on (from the main thread: the process's mask).
   *
   * @throws UnsupportedOperationException off Linux
   * @throws LinkageError                  when JNA's native library cannot be loaded
   */
  static List<Integer> allowedCpus() {
    long[] mask = new long[WORDS];
    call(() -> Calls.sched_getaffinity(0, MASK_BYTES, mask));
    List<Integer> cpus = new ArrayList<>();
    for (int c = 0; c < MAX_CPUS; c++) {
      if ((mask[c / Long.SIZE] & (1L << (c % Long.SIZE))) != 0) {
        cpus.add(c);
      }
    }
    return List.copyOf(cpus);
  }

  /**
   * Lets the calling thread run on {@code cpu} only.
   *
   * @throws IllegalStateException with the error the kernel gave (a CPU outside the cgroup's set: "Invalid argument")
   */
  static void pinCurrentThread(int cpu) {
    setCurrentThread(mask(List.of(cpu)));
  }

  /** Lets the calling thread run on the CPUs of {@code mask} ({@link #mask}). */
  static void setCurrentThread(long[] mask) {
    call(() -> Calls.sched_setaffinity(0, MASK_BYTES, mask));
  }

  /** The mask of {@code cpus}, each below {@link #MAX_CPUS}. */
  static long[] mask(List<Integer> cpus) {
    long[] mask = new long[WORDS];
    for (int cpu : cpus) {
      mask[cpu / Long.SIZE] |= 1L << (cpu % Long.SIZE);
    }
    return mask;
  }

  private static void call(Runnable syscall) {
    if (!Platform.isLinux()) {
      throw new UnsupportedOperationException("pinning event loops to CPUs needs Linux (this is " + System.getProperty("os.name") + ")");
    }
    try {
      syscall.run();
    } catch (LastErrorException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  /** The C library's calls; registered when this class is first used. */
  private static final class Calls {

    static {
      Native.register(Calls.class, Platform.C_LIBRARY_NAME);
    }

    static native int sched_getaffinity(int pid, NativeLong size, long[] mask) throws LastErrorException;

    static native int sched_setaffinity(int pid, NativeLong size, long[] mask) throws LastErrorException;
  }
}
