package io.fulcrum.registry;

import io.fulcrum.model.Arns;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetType;
import io.fulcrum.time.Timers;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The targets whose deregistration delay still runs, by group, each with the end of its delay and
 * the timer that ends it. A target removed from a group that is still there drains for the group's
 * {@code deregistration_delay.timeout_seconds} (not at all for 0); registered again, it stops
 * draining, except an IP target, which is refused until its delay ends. A group that is gone takes
 * its draining targets with it.
 *
 * <p>The registry asks it which targets still drain when it builds plans and registrations; when a
 * delay ends, the target is journaled and {@code onEnded} runs, for the registry to rebuild and
 * publish. Not thread-safe: used on the registry's context, where its timers run too. It logs as
 * the registry, whose lifecycle these lines tell.
 */
final class Deregistrations {

  private static final Logger LOG = LoggerFactory.getLogger(RegistryVerticle.class);

  private final Timers timers;
  private final Journal journal;
  private final Supplier<Resources> resources;
  private final Runnable onEnded;
  private final Map<String, Map<String, Draining>> draining = new HashMap<>();

  /** A deregistered target whose delay still runs. */
  private record Draining(Target target, long deadline, long timer) {
  }

  /**
   * @param resources the registry's current resources, for the name of a group whose delay ends
   * @param onEnded   runs after a target's delay has ended and it is no longer draining
   */
  Deregistrations(Timers timers, Journal journal, Supplier<Resources> resources, Runnable onEnded) {
    this.timers = timers;
    this.journal = journal;
    this.resources = resources;
    this.onEnded = onEnded;
  }

  /** Adds a problem for each IP target of {@code next} registered again while it still drains. */
  void checkReRegistrations(Resources next, Problems problems) {
    for (int i = 0; i < next.targetGroups().size(); i++) {
      TargetGroup g = next.targetGroups().get(i);
      Map<String, Draining> d = draining.get(g.arn());
      if (d == null) {
        continue;
      }
      for (int j = 0; j < g.targets().size(); j++) {
        Target t = g.targets().get(j);
        Draining entry = d.get(t.key());
        if (entry != null && g.targetType() == TargetType.IP) {
          long left = Math.max(1, (entry.deadline() - timers.now() + 999) / 1000);
          problems.at("target-groups").at(i).at("targets").at(j).add(Problem.INVALID_TARGET,
              "the IP target " + t.key() + " cannot be registered again until its deregistration delay ends (in "
                  + left + " s)");
        }
      }
    }
  }

  /**
   * Targets registered before and not now start draining; targets registered again stop; the
   * targets of a group that is gone stop too.
   */
  void startDraining(Resources before, Resources next) {
    Map<String, TargetGroup> nextGroups = new HashMap<>();
    next.targetGroups().forEach(g -> nextGroups.put(g.arn(), g));
    for (TargetGroup old : before.targetGroups()) {
      TargetGroup now = nextGroups.get(old.arn());
      if (now == null) {
        // The group itself is gone: nothing is left to drain into.
        Map<String, Draining> d = draining.remove(old.arn());
        if (d != null) {
          d.values().forEach(e -> timers.cancelTimer(e.timer()));
        }
        continue;
      }
      Map<String, Target> kept = new HashMap<>();
      now.targets().forEach(t -> kept.put(t.key(), t));
      for (Target t : old.targets()) {
        if (!kept.containsKey(t.key())) {
          drain(now, t);
        }
      }
      Map<String, Draining> d = draining.get(now.arn());
      if (d != null) {
        kept.keySet().forEach(key -> {
          Draining e = d.remove(key);
          if (e != null) {
            timers.cancelTimer(e.timer());
          }
        });
      }
    }
  }

  private void drain(TargetGroup group, Target t) {
    long delay = group.attributes().deregistrationDelaySeconds() * 1000L;
    if (delay == 0) {
      return;
    }
    String arn = group.arn();
    long timer = timers.setTimer(delay, id -> drainEnded(arn, t.key()));
    draining.computeIfAbsent(arn, k -> new LinkedHashMap<>()).put(t.key(), new Draining(t, timers.now() + delay, timer));
    LOG.info("target {} of {}: draining for {} s", t.key(), group.name(), delay / 1000);
    journal.drainingStarted(group, t, delay, timers.now());
  }

  private void drainEnded(String arn, String key) {
    Map<String, Draining> d = draining.get(arn);
    Draining ended = d == null ? null : d.remove(key);
    if (ended == null) {
      return;
    }
    journal.drainingEnded(resources.get().targetGroup(arn).map(TargetGroup::name)
        .orElse(Arns.targetGroupDimension(arn)), ended.target(), timers.now());
    if (d.isEmpty()) {
      draining.remove(arn);
    }
    LOG.info("target {}: deregistration delay over", key);
    onEnded.run();
  }

  /** The group's draining targets, in the order they started draining. */
  List<Target> targets(String groupArn) {
    return draining.getOrDefault(groupArn, Map.of()).values().stream().map(Draining::target).toList();
  }

  /** Every group's draining targets, by group ARN (groups with none absent). */
  Map<String, List<Target>> targets() {
    Map<String, List<Target>> out = new HashMap<>();
    draining.keySet().forEach(arn -> out.put(arn, targets(arn)));
    return out;
  }

  /** The end of each draining target's delay (epoch millis), by target key. */
  Map<String, Long> deadlines(String groupArn) {
    Map<String, Long> out = new HashMap<>();
    draining.getOrDefault(groupArn, Map.of()).forEach((k, d) -> out.put(k, d.deadline()));
    return out;
  }

  /** The draining targets as they were registered, by target key, in the order they started draining. */
  Map<String, Target> targetsByKey(String groupArn) {
    Map<String, Target> out = new LinkedHashMap<>();
    draining.getOrDefault(groupArn, Map.of()).forEach((k, d) -> out.put(k, d.target()));
    return out;
  }
}
