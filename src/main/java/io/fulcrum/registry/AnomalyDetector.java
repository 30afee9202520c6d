package io.fulcrum.registry;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.model.AnomalyDetection;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Automatic target weights (SPEC §4.5 and Fulcrum's decisions) for one target group: anomaly
 * detection on every HTTP/HTTPS group, and mitigation when the group asks for it.
 *
 * <ul>
 *   <li>Each target's requests and errors (target 5xx, connection and TLS errors) are kept in a
 *       sliding window of {@value #BUCKETS} buckets of {@value #BUCKET_MILLIS} ms;</li>
 *   <li>with at least {@value #MIN_HEALTHY} healthy targets, a target is anomalous when its error
 *       rate over the window is above {@value #RATIO}x the median of its peers' and above
 *       {@value #FLOOR} absolute (and it served at least {@value #MIN_REQUESTS} requests; a target
 *       already mitigated is judged on what few it served, and stays as it was when it served none);</li>
 *   <li>mitigation halves an anomalous target's weight every bucket (floor {@value #MIN_WEIGHT}),
 *       never for more than half of a scope's targets (the worst first); once it is normal again its
 *       weight climbs back linearly to 1 over the window.</li>
 * </ul>
 * Not thread-safe: used on the registry's context. {@link #tick} is called once per bucket.
 */
final class AnomalyDetector {

  static final long BUCKET_MILLIS = 10_000;
  static final int BUCKETS = 6;
  static final int MIN_HEALTHY = 3;
  static final double RATIO = 2.0;
  static final double FLOOR = 0.05;
  static final int MIN_REQUESTS = 10;
  static final double MIN_WEIGHT = 0.01;

  private static final class Window {
    final long[] requests = new long[BUCKETS];
    final long[] errors = new long[BUCKETS];
    /** The target's counters the window reads; a target registered again in another zone gets new ones. */
    Upstream counted;
    long lastRequests;
    long lastErrors;
    double weight = 1;
    boolean anomalous;

    long requests() {
      return Arrays.stream(requests).sum();
    }

    long errors() {
      return Arrays.stream(errors).sum();
    }

    double rate() {
      long r = requests();
      return r == 0 ? 0 : (double) errors() / r;
    }
  }

  private final Map<String, Window> windows = new HashMap<>();
  private int bucket;

  /**
   * Takes one bucket's counts and decides anomalies and weights.
   *
   * @param scopes     the group's targets by scope (one scope with cross-zone on, one per zone off)
   * @param healthy    how many of the group's targets are healthy
   * @param mitigate   whether the group mitigates (weighted_random with anomaly_mitigation on)
   * @return whether any weight changed (the plan must be rebuilt)
   */
  boolean tick(Map<String, List<Upstream>> scopes, int healthy, boolean mitigate) {
    bucket = (bucket + 1) % BUCKETS;
    Map<String, Window> seen = new LinkedHashMap<>();
    for (List<Upstream> targets : scopes.values()) {
      for (Upstream u : targets) {
        // A new window counts from the target's first request: its Upstream was created with it. So
        // does a window whose target has new counters (registered again in another zone): its past stays.
        Window w = windows.computeIfAbsent(u.key(), k -> new Window());
        if (w.counted != u) {
          w.counted = u;
          w.lastRequests = 0;
          w.lastErrors = 0;
        }
        w.requests[bucket] = u.requestCount() - w.lastRequests;
        w.errors[bucket] = u.errorCount() - w.lastErrors;
        w.lastRequests = u.requestCount();
        w.lastErrors = u.errorCount();
        seen.put(u.key(), w);
      }
    }
    windows.keySet().retainAll(seen.keySet());

    boolean detect = healthy >= MIN_HEALTHY;
    for (Map.Entry<String, Window> e : seen.entrySet()) {
      Window w = e.getValue();
      boolean mitigated = w.weight < 1;
      if (!detect) {
        w.anomalous = false;
      } else if (w.requests() >= MIN_REQUESTS || mitigated && w.requests() > 0) {
        // A mitigated target gets few requests (its share is small): what it gets is judged, so that
        // one failing them stays mitigated, and one answering them climbs back.
        w.anomalous = w.rate() > FLOOR && w.rate() > RATIO * peerMedian(seen, e.getKey());
      } else {
        w.anomalous = mitigated && w.anomalous; // nothing to judge it by: as it was
      }
    }

    boolean changed = false;
    for (List<Upstream> targets : scopes.values()) {
      changed |= weigh(targets, mitigate);
    }
    return changed;
  }

  private boolean weigh(List<Upstream> targets, boolean mitigate) {
    boolean changed = false;
    int cap = targets.size() / 2;
    List<Window> candidates = new ArrayList<>();
    int mitigated = 0;
    for (Upstream u : targets) {
      if (windows.get(u.key()).weight < 1) {
        mitigated++;
      }
    }
    for (Upstream u : targets) {
      Window w = windows.get(u.key());
      if (!mitigate || !w.anomalous) {
        // Normal again (or mitigation off): climb back linearly to full weight over the window.
        if (w.weight < 1) {
          w.weight = Math.min(1, w.weight + 1.0 / BUCKETS);
          changed = true;
        }
      } else if (w.weight < 1) {
        w.weight = Math.max(MIN_WEIGHT, w.weight / 2);
        changed = true;
      } else {
        candidates.add(w);
      }
    }
    candidates.sort(Comparator.comparingDouble(Window::rate).reversed());
    for (Window w : candidates) {
      if (mitigated >= cap) {
        break;
      }
      w.weight = Math.max(MIN_WEIGHT, w.weight / 2);
      mitigated++;
      changed = true;
    }
    return changed;
  }

  private double peerMedian(Map<String, Window> all, String self) {
    double[] rates = all.entrySet().stream().filter(e -> !e.getKey().equals(self))
        .mapToDouble(e -> e.getValue().rate()).sorted().toArray();
    if (rates.length == 0) {
      return 0;
    }
    int mid = rates.length / 2;
    return rates.length % 2 == 1 ? rates[mid] : (rates[mid - 1] + rates[mid]) / 2;
  }

  /** Mitigation weights below 1, by target key. */
  Map<String, Double> weights() {
    Map<String, Double> out = new HashMap<>();
    windows.forEach((k, w) -> {
      if (w.weight < 1) {
        out.put(k, w.weight);
      }
    });
    return out;
  }

  /** Each target's result, by key. */
  Map<String, AnomalyDetection> results() {
    Map<String, AnomalyDetection> out = new HashMap<>();
    windows.forEach((k, w) -> out.put(k, new AnomalyDetection(w.anomalous, w.weight < 1)));
    return out;
  }
}
