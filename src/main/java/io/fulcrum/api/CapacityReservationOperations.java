package io.fulcrum.api;

import io.vertx.core.Future;
import java.util.List;

/**
 * DescribeCapacityReservation and ModifyCapacityReservation. Fulcrum reserves no capacity: a load
 * balancer's capacity is that of its zones' nodes. So every load balancer is described as AWS
 * describes one without a reservation (no {@code MinimumLoadBalancerCapacity}, no zone states, no
 * decrease requests left), a reset is accepted and changes nothing, and a reservation is refused.
 */
final class CapacityReservationOperations {

  static final String NO_RESERVATIONS = "Fulcrum has no capacity reservations: a load balancer's capacity is that of"
      + " the nodes of its zones, which nothing reserves (ResetCapacityReservation=true alone is accepted and"
      + " changes nothing)";

  private CapacityReservationOperations() {
  }

  static void register(ElbApi api) {
    api.register("DescribeCapacityReservation", CapacityReservationOperations::describe)
        .register("ModifyCapacityReservation", CapacityReservationOperations::modify);
  }

  static Future<List<Xml>> describe(QueryParams p, ApiContext ctx) {
    LbResources.loadBalancer(ctx.resources(), p.required("LoadBalancerArn"));
    return Future.succeededFuture(noReservation());
  }

  /**
   * {@code ResetCapacityReservation=true} alone succeeds, answering what Describe does; a
   * {@code MinimumLoadBalancerCapacity} is {@code OperationNotPermitted}. Either way nothing changes.
   */
  static Future<List<Xml>> modify(QueryParams p, ApiContext ctx) {
    String arn = p.required("LoadBalancerArn");
    boolean capacity = p.hasAny("MinimumLoadBalancerCapacity");
    if (capacity) {
      p.struct("MinimumLoadBalancerCapacity").integer("CapacityUnits");
    }
    boolean reset = Boolean.TRUE.equals(p.bool("ResetCapacityReservation"));
    if (capacity && reset) {
      throw ApiError.validation("You can specify a minimum load balancer capacity or reset the capacity reservation,"
          + " not both");
    }
    if (!capacity && !reset) {
      throw ApiError.validation("You must include at least one MinimumLoadBalancerCapacity or"
          + " ResetCapacityReservation=true");
    }
    LbResources.loadBalancer(ctx.resources(), arn);
    if (capacity) {
      throw ApiError.sender("OperationNotPermitted", NO_RESERVATIONS);
    }
    return Future.succeededFuture(noReservation());
  }

  /** What AWS answers for a load balancer without a reservation. */
  private static List<Xml> noReservation() {
    return List.of(Xml.text("DecreaseRequestsRemaining", 0), Xml.el("CapacityReservationState"));
  }
}
