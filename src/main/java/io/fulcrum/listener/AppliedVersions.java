package io.fulcrum.listener;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Which snapshot version each listener verticle has applied. Each verticle writes only its own
 * slot (an atomic long, no lock); readers take the minimum to know that every event loop routes
 * by a given version.
 */
public final class AppliedVersions {

  private final ConcurrentHashMap<Integer, AtomicLong> slots = new ConcurrentHashMap<>();

  /** The slot of listener instance {@code index}. */
  public AtomicLong slot(int index) {
    return slots.computeIfAbsent(index, i -> new AtomicLong());
  }

  /** The lowest version applied by any instance (0 before all have started). */
  public long min() {
    long min = Long.MAX_VALUE;
    for (AtomicLong v : slots.values()) {
      min = Math.min(min, v.get());
    }
    return slots.isEmpty() ? 0 : min;
  }
}
