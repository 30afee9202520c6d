package io.fulcrum.model;

import java.util.List;

/**
 * A load balancer: type, enabled zones, attributes and listeners. Its nodes are the deployment's
 * nodes in its enabled zones. Immutable.
 */
public record LoadBalancer(
    String arn,
    String name,
    LoadBalancerType type,
    String dnsName,
    List<String> zones,
    LoadBalancerAttributes attributes,
    List<Listener> listeners) {

  public static final int MAX_LISTENERS = 50;
  /** Certificates per load balancer besides the default one (SPEC §8.5). */
  public static final int MAX_CERTIFICATES = 25;
  public static final int MAX_RULES = 100;
  public static final int MAX_TARGET_GROUPS = 100;
  public static final int MAX_TARGETS = 1000;

  public LoadBalancer {
    zones = List.copyOf(zones);
    listeners = List.copyOf(listeners);
  }
}
