package io.fulcrum.api;

import io.fulcrum.bus.HealthReport;
import io.fulcrum.model.AnomalyDetection;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetDescription;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.model.TargetState;
import io.fulcrum.model.TargetType;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * DescribeTargetHealth: what the health checker and the anomaly detector see for each target
 * (SPEC §2), with the registry's view of registrations and deregistration delays laid over it:
 * a draining target is {@code draining} / {@code Target.DeregistrationInProgress}; a target the
 * health checker has not taken in yet is {@code initial} / {@code Elb.RegistrationInProgress}
 * (or {@code unused} / {@code Target.NotInUse} when no rule uses its group); a target that is not
 * registered is {@code unused} / {@code Target.NotRegistered}, without a health check port.
 */
public final class TargetHealthOperation {

  static final List<String> INCLUDE = List.of("AnomalyDetection", "All");

  private TargetHealthOperation() {
  }

  static void register(ElbApi api) {
    api.register("DescribeTargetHealth", TargetHealthOperation::describe);
  }

  /**
   * One target of a group as DescribeTargetHealth reports it.
   *
   * @param zone            the zone given at registration, or null
   * @param healthCheckPort the port its health checks go to; null for a Lambda function and for a
   *                        target that is not registered
   * @param registered      false for a draining target, and for one a filter named that is not registered
   */
  public record Row(String id, int port, String zone, TargetHealth health, Integer healthCheckPort,
      boolean registered) {
  }

  /**
   * Every registered and draining target of {@code g}, in order, as DescribeTargetHealth reports
   * them (the dashboard shows the same).
   */
  public static Future<List<Row>> targets(ApiContext ctx, TargetGroup g) {
    boolean inUse = ResourceLookup.inUse(ctx.resources(), g.arn());
    return Future.all(ctx.health(g.arn()), ctx.registry().drainingTargets(g.arn()))
        .map(all -> rows(g, List.of(), all.resultAt(0), all.resultAt(1), inUse));
  }

  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    Violations v = new Violations();
    String arn = v.required(p, "TargetGroupArn");
    List<String> include = p.strings("Include");
    for (int i = 0; i < include.size(); i++) {
      if (!INCLUDE.contains(include.get(i))) {
        v.add(p, "Include.member." + (i + 1), include.get(i), "satisfy enum value set: [" + String.join(", ", INCLUDE)
            + "]");
      }
    }
    List<TargetDescription> filter = TargetRegistrationOperations.descriptions(p, v, false);
    v.throwIfAny();
    Resources r = ctx.resources();
    TargetGroup g = ResourceLookup.targetGroup(r, arn);
    if (g.targetType() == TargetType.INSTANCE) {
      for (TargetDescription d : filter) {
        boolean known = ctx.environment().instances().containsKey(d.id())
            || g.targets().stream().anyMatch(t -> t.id().equals(d.id()));
        if (!known) {
          // AWS: an instance that does not exist (the TargetDeregistered waiter counts on this error).
          throw ApiError.sender("InvalidTarget",
              "The specified target does not exist or is not in the same VPC as the target group. ('" + d.id()
                  + "' is not in the instance inventory)");
        }
      }
    }
    boolean anomalies = !include.isEmpty();
    boolean inUse = ResourceLookup.inUse(r, arn);
    return Future.all(ctx.health(arn), ctx.registry().drainingTargets(arn), ctx.anomalies(arn))
        .recover(e -> Future.failedFuture(new ApiError("HealthUnavailable",
            "The health of the target group's targets is unavailable: " + e.getMessage(), 500)))
        .map(all -> {
          Map<String, AnomalyDetection> detected = all.resultAt(2);
          List<Row> rows = rows(g, filter, all.resultAt(0), all.resultAt(1), inUse);
          return List.of(Xml.list("TargetHealthDescriptions", rows, row -> member(g, row, anomalies, detected)));
        });
  }

  /** Every registered and draining target in order, or the targets the filter names. */
  private static List<Row> rows(TargetGroup g, List<TargetDescription> filter, HealthReport report,
      Map<String, Target> draining, boolean inUse) {
    List<Row> rows = new ArrayList<>();
    if (filter.isEmpty()) {
      g.targets().forEach(t -> rows.add(registered(g, t, report, inUse)));
      draining.values().stream().filter(t -> g.targets().stream().noneMatch(x -> x.key().equals(t.key())))
          .forEach(t -> rows.add(draining(g, t)));
      return rows;
    }
    Map<String, Target> registered = new LinkedHashMap<>();
    g.targets().forEach(t -> registered.put(t.key(), t));
    for (TargetDescription d : filter) {
      String key = TargetRegistrationOperations.key(d, g);
      Target t = registered.get(key);
      Target gone = draining.get(key);
      if (t != null) {
        rows.add(registered(g, t, report, inUse));
      } else if (gone != null) {
        rows.add(draining(g, gone));
      } else {
        int port = d.port() != null ? d.port() : g.port() == null ? 0 : g.port();
        rows.add(new Row(d.id(), port, d.zone(), TargetHealth.NOT_REGISTERED, null, false));
      }
    }
    return rows;
  }

  private static Row registered(TargetGroup g, Target t, HealthReport report, boolean inUse) {
    HealthReport.TargetReport tr = report.targets().get(t.key());
    TargetHealth health;
    if (tr == null || tr.health().state() == TargetState.DRAINING) {
      // The health checker has not taken this registration in yet.
      health = inUse ? TargetHealth.REGISTRATION_IN_PROGRESS : TargetHealth.NOT_IN_USE;
    } else {
      health = inUse ? tr.health().inUse() : tr.health();
    }
    // SPEC §2.3: the port probed, for targets in use only (an unused one is not probed).
    Integer port = health.state() == TargetState.UNUSED ? null
        : tr != null && tr.healthCheckPort() > 0 ? Integer.valueOf(tr.healthCheckPort()) : checkPort(g, t);
    return new Row(t.id(), t.port(), t.zoneGiven() ? t.zone() : null, health, port, true);
  }

  private static Row draining(TargetGroup g, Target t) {
    return new Row(t.id(), t.port(), t.zoneGiven() ? t.zone() : null, TargetHealth.DRAINING, checkPort(g, t), false);
  }

  /** The port a health check of the target goes to; none for lambda targets. */
  private static Integer checkPort(TargetGroup g, Target t) {
    return g.targetType() == TargetType.LAMBDA ? null : g.healthCheck().portFor(t.port());
  }

  private static Xml member(TargetGroup g, Row row, boolean anomalies, Map<String, AnomalyDetection> detected) {
    Xml target = Xml.el("Target").add("Id", row.id());
    if (g.targetType() != TargetType.LAMBDA) {
      target.add("Port", row.port());
    }
    target.add("AvailabilityZone", row.zone());
    Xml health = Xml.el("TargetHealth").add("State", row.health().state().wire())
        .add("Reason", row.health().reason()).add("Description", row.health().description());
    Xml m = Xml.el("member").add(target)
        .add("HealthCheckPort", row.healthCheckPort() == null ? null : row.healthCheckPort().toString())
        .add(health);
    if (row.registered()) {
      if (anomalies) {
        AnomalyDetection a = detected.getOrDefault(row.id() + ":" + row.port(), AnomalyDetection.NORMAL);
        m.add(Xml.el("AnomalyDetection").add("Result", a.result()).add("MitigationInEffect", a.mitigation()));
      }
      m.add(Xml.el("AdministrativeOverride").add("State", "no_override")
          .add("Reason", "AdministrativeOverride.NoOverride")
          .add("Description", "No override is currently active on target"));
    }
    return m;
  }
}
