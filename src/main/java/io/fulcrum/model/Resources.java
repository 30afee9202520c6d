package io.fulcrum.model;

import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every load balancer and target group Fulcrum runs, and the tags of every resource (by ARN, in
 * the order they were added). Immutable; a change makes a new one.
 */
public record Resources(List<LoadBalancer> loadBalancers, List<TargetGroup> targetGroups,
    Map<String, Map<String, String>> tags) {

  public static final Resources EMPTY = new Resources(List.of(), List.of());

  public Resources {
    loadBalancers = List.copyOf(loadBalancers);
    targetGroups = List.copyOf(targetGroups);
    Map<String, Map<String, String>> copy = new LinkedHashMap<>();
    tags.forEach((arn, t) -> copy.put(arn, Collections.unmodifiableMap(new LinkedHashMap<>(t))));
    tags = Collections.unmodifiableMap(copy);
  }

  public Resources(List<LoadBalancer> loadBalancers, List<TargetGroup> targetGroups) {
    this(loadBalancers, targetGroups, Map.of());
  }

  /**
   * These resources with {@code time} as the creation time of each load balancer that has none:
   * the config file's, when they seed the state file and the API takes them over.
   */
  public Resources createdAt(Instant time) {
    return new Resources(loadBalancers.stream().map(lb -> lb.createdAt(time)).toList(), targetGroups, tags);
  }

  public Optional<TargetGroup> targetGroup(String arn) {
    return targetGroups.stream().filter(t -> t.arn().equals(arn)).findFirst();
  }

  public Optional<TargetGroup> targetGroupByName(String name) {
    return targetGroups.stream().filter(t -> t.name().equals(name)).findFirst();
  }

  public Optional<LoadBalancer> loadBalancer(String arn) {
    return loadBalancers.stream().filter(l -> l.arn().equals(arn)).findFirst();
  }

  /** The tags of a resource, in order; empty when it has none. */
  public Map<String, String> tagsOf(String arn) {
    return tags.getOrDefault(arn, Map.of());
  }
}
