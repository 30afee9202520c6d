package io.fulcrum.bus;

import io.fulcrum.balancer.TargetGroupPlan;
import java.util.List;
import java.util.Map;

/**
 * Everything the listener verticles need to serve, as of one version of the resources: the
 * listeners with compiled rules, and the target groups' plans. Built once by the registry, off the
 * request path, and shared by every event loop (immutable). A verticle swaps its reference to it
 * in one field write on its own loop.
 *
 * @param version increases with every change; older snapshots are ignored
 */
public record DataPlaneSnapshot(long version, List<ListenerPlan> listeners, Map<String, TargetGroupPlan> groups) {

  public static final DataPlaneSnapshot EMPTY = new DataPlaneSnapshot(0, List.of(), Map.of());

  public DataPlaneSnapshot {
    listeners = List.copyOf(listeners);
    groups = Map.copyOf(groups);
  }
}
