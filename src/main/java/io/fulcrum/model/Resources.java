package io.fulcrum.model;

import java.util.List;
import java.util.Optional;

/** Every load balancer and target group Fulcrum runs. Immutable; a change makes a new one. */
public record Resources(List<LoadBalancer> loadBalancers, List<TargetGroup> targetGroups) {

  public static final Resources EMPTY = new Resources(List.of(), List.of());

  public Resources {
    loadBalancers = List.copyOf(loadBalancers);
    targetGroups = List.copyOf(targetGroups);
  }

  public Optional<TargetGroup> targetGroup(String arn) {
    return targetGroups.stream().filter(t -> t.arn().equals(arn)).findFirst();
  }

  public Optional<TargetGroup> targetGroupByName(String name) {
    return targetGroups.stream().filter(t -> t.name().equals(name)).findFirst();
  }
}
