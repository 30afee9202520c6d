package io.fulcrum.api;

import io.fulcrum.model.AlbTargets;
import io.fulcrum.model.Environment;
import io.fulcrum.model.IpAddresses;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Problems;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetDescription;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetGroupAttributes;
import io.fulcrum.model.TargetType;
import io.fulcrum.model.Targets;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * RegisterTargets and DeregisterTargets. Registration follows AWS's rules for ids, IP ranges and
 * zones (SPEC §8.2, {@link Targets}); registering a registered target again is harmless;
 * deregistering an unknown target succeeds. A target registered with a port override is named
 * with that port.
 */
final class TargetRegistrationOperations {

  private TargetRegistrationOperations() {
  }

  static void register(ElbApi api) {
    api.register("RegisterTargets", TargetRegistrationOperations::registerTargets)
        .register("DeregisterTargets", TargetRegistrationOperations::deregisterTargets);
  }

  /**
   * The {@code Targets.member.N} of a request ({@code Id}, {@code Port}, {@code AvailabilityZone}),
   * with AWS's field constraints recorded in {@code v}.
   *
   * @param required whether the list must be given (RegisterTargets, DeregisterTargets)
   */
  static List<TargetDescription> descriptions(QueryParams p, Violations v, boolean required) {
    List<QueryParams> list = p.structs("Targets");
    if (list.isEmpty() && required) {
      v.add(p, "Targets", null, "not be null");
    }
    List<TargetDescription> out = new ArrayList<>();
    for (QueryParams t : list) {
      String id = v.required(t, "Id");
      Integer port = v.range(t, "Port", 1, 65535);
      String zone = t.string("AvailabilityZone");
      if (id != null) {
        out.add(new TargetDescription(id, port, zone));
      }
    }
    return out;
  }

  /** The key ({@code id:port}) a description names in a group: the group's port unless one is given. */
  static String key(TargetDescription d, TargetGroup g) {
    byte[] ip = IpAddresses.parse(d.id());
    String id = ip == null ? d.id() : IpAddresses.canonical(ip);
    int port = d.port() != null ? d.port() : g.port() == null ? 0 : g.port();
    return id + ":" + port;
  }

  static Future<List<Xml>> registerTargets(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String arn = v.required(p, "TargetGroupArn");
    List<TargetDescription> given = descriptions(p, v, true);
    v.throwIfAny();
    Environment env = ctx.environment();
    return ctx.mutate(r -> {
      TargetGroup g = ResourceLookup.targetGroup(r, arn);
      Problems problems = new Problems();
      List<Target> targets = new ArrayList<>(g.targets());
      Map<String, Integer> position = new HashMap<>();
      for (int i = 0; i < targets.size(); i++) {
        position.put(targets.get(i).key(), i);
      }
      for (int i = 0; i < given.size(); i++) {
        Target t = Targets.resolve(given.get(i), g.targetType(), g.port(), g.ipAddressType(), env,
            problems.at("Targets").at(i + 1));
        if (t == null) {
          continue;
        }
        if (g.targetType() == TargetType.ALB) {
          String problem = AlbTargets.listenerProblem(r, t);
          if (problem != null) {
            problems.at("Targets").at(i + 1).at("id").add(Problem.INVALID_TARGET, problem);
            continue;
          }
          t = AlbTargets.located(env, r, t);
        }
        Integer at = position.get(t.key());
        if (at != null) {
          // Registered already: harmless. A zone given moves the target there; none keeps the one it has.
          if (t.zoneGiven() || !targets.get(at).zoneGiven()) {
            targets.set(at, t);
          }
        } else {
          position.put(t.key(), targets.size());
          targets.add(t);
        }
      }
      if (!problems.isEmpty()) {
        throw TargetGroupShapes.fromModel(problems.list(), Map.of());
      }
      int max = g.targetType() == TargetType.LAMBDA || g.targetType() == TargetType.ALB ? 1
          : TargetGroupAttributes.MAX_TARGETS;
      if (targets.size() > max) {
        throw ApiError.sender("TooManyTargets", "You've reached the limit on the number of targets per target group: '"
            + g.name() + "' would have " + targets.size() + " targets (at most " + max + ")");
      }
      return targets.equals(g.targets()) ? r : TargetGroupShapes.replace(r, g.withTargets(targets));
    }).map(r -> List.of());
  }

  static Future<List<Xml>> deregisterTargets(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String arn = v.required(p, "TargetGroupArn");
    List<TargetDescription> given = descriptions(p, v, true);
    v.throwIfAny();
    return ctx.mutate(r -> {
      TargetGroup g = ResourceLookup.targetGroup(r, arn);
      Set<String> keys = new HashSet<>();
      given.forEach(d -> keys.add(key(d, g)));
      List<Target> left = g.targets().stream().filter(t -> !keys.contains(t.key())).toList();
      // Unknown targets (or a port-overridden target named without its port) change nothing.
      return left.size() == g.targets().size() ? r : TargetGroupShapes.replace(r, g.withTargets(left));
    }).map(r -> List.of());
  }
}
