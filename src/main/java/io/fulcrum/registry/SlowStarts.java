package io.fulcrum.registry;

import io.fulcrum.bus.GroupHealth;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * Which targets are in slow start (SPEC §4.6) and since when, by group, and which may enter it
 * when they next turn healthy. The registry tells it of each health decision ({@link #track}) and
 * of each change of registrations ({@link #markCandidates}), and builds each group's plan with
 * {@link #since}; the plan ramps a target's weight up from then. An entry ends when a later health
 * decision finds its duration over or the target no longer healthy.
 *
 * <p>It keeps no timers and reads the time it is given. Not thread-safe: used on the registry's
 * context.
 */
final class SlowStarts {

  /** When targets entered slow start, by group and target key. */
  private final Map<String, Map<String, Long>> slowStart = new HashMap<>();
  /**
   * Targets that may slow-start when they turn healthy: registered while their group already had
   * a healthy target not in slow start, or healthy before (then slow start starts over).
   */
  private final Map<String, Set<String>> slowStartCandidates = new HashMap<>();

  /**
   * A health decision for {@code group} at {@code now}: a target that turns healthy enters slow
   * start when it was registered while its group already had a healthy target not in slow start (a
   * batch registered into a group with none does not slow-start), or when it had been healthy
   * before; and only if such a peer exists now. It leaves slow start early when it stops being
   * healthy.
   */
  void track(TargetGroup group, Map<String, TargetHealth> before, Map<String, TargetHealth> after, long now) {
    long duration = group.attributes().slowStartSeconds() * 1000L;
    Map<String, Long> since = slowStart.computeIfAbsent(group.arn(), k -> new HashMap<>());
    Set<String> candidates = slowStartCandidates.computeIfAbsent(group.arn(), k -> new HashSet<>());
    since.values().removeIf(t -> now - t >= duration);
    since.keySet().removeIf(key -> !after.getOrDefault(key, TargetHealth.NOT_REGISTERED).healthy());
    if (duration == 0) {
      since.clear();
    }
    boolean settledPeer = after.entrySet().stream()
        .anyMatch(e -> e.getValue().healthy() && before.getOrDefault(e.getKey(), TargetHealth.NOT_REGISTERED).healthy()
            && !since.containsKey(e.getKey()));
    after.forEach((key, h) -> {
      if (h.healthy() && !before.getOrDefault(key, TargetHealth.NOT_REGISTERED).healthy()) {
        if (duration > 0 && settledPeer && candidates.contains(key)) {
          since.put(key, now);
        }
        // Healthy once: if it falls and recovers, slow start starts over.
        candidates.add(key);
      }
    });
  }

  /**
   * Marks targets added by a reload as slow-start candidates when their group has a settled healthy
   * target. A slow start whose duration (as it was) is over at {@code now} ends here, and every one
   * of a group whose slow start is turned off: a longer duration, or slow start turned off and on,
   * never starts again a ramp that had ended (SPEC §4.6: targets already healthy do not slow-start).
   *
   * @param health the latest health by group
   */
  void markCandidates(Resources before, Resources next, Map<String, GroupHealth> health, long now) {
    Map<String, TargetGroup> old = new HashMap<>();
    before.targetGroups().forEach(g -> old.put(g.arn(), g));
    for (TargetGroup g : next.targetGroups()) {
      TargetGroup prev = old.get(g.arn());
      Map<String, Long> ramping = slowStart.get(g.arn());
      if (ramping != null && prev != null) {
        long was = prev.attributes().slowStartSeconds() * 1000L;
        ramping.values().removeIf(t -> now - t >= was);
        if (g.attributes().slowStartSeconds() == 0) {
          ramping.clear();
        }
      }
      Set<String> candidates = slowStartCandidates.computeIfAbsent(g.arn(), k -> new HashSet<>());
      Set<String> known = new HashSet<>();
      if (prev != null) {
        prev.targets().forEach(t -> known.add(t.key()));
      }
      GroupHealth gh = health.get(g.arn());
      Map<String, Long> since = slowStart.getOrDefault(g.arn(), Map.of());
      boolean settled = gh != null && gh.targets().entrySet().stream()
          .anyMatch(e -> e.getValue().healthy() && !since.containsKey(e.getKey()));
      for (Target t : g.targets()) {
        if (!known.contains(t.key())) {
          // A new registration starts over: it slow-starts only if a settled peer is there now.
          candidates.remove(t.key());
          if (settled) {
            candidates.add(t.key());
          }
        }
      }
      if (prev != null) {
        Set<String> current = new HashSet<>();
        g.targets().forEach(t -> current.add(t.key()));
        candidates.retainAll(current);
      }
    }
  }

  /** When the group's targets in slow start entered it (epoch millis), by target key. */
  Map<String, Long> since(String groupArn) {
    return slowStart.getOrDefault(groupArn, Map.of());
  }

  /** Forgets a group that is gone. */
  void forget(String groupArn) {
    slowStart.remove(groupArn);
    slowStartCandidates.remove(groupArn);
  }
}
