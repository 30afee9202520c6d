package io.fulcrum.model;

import java.time.Instant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * A load balancer: type, enabled zones, attributes and listeners. Its nodes are the deployment's
 * nodes in its enabled zones. Immutable.
 *
 * @param scheme         internet-facing (the default) or internal; Fulcrum binds the same node
 *                       addresses either way
 * @param ipAddressType  as given when it was created or last set (ipv4 by default)
 * @param securityGroups as given when it was created or last set; Fulcrum has no security groups and
 *                       filters nothing
 * @param createdTime    when the API created it, or took it over from the config file (which seeded
 *                       the state file); {@code null} while the config file owns it
 */
public record LoadBalancer(
    String arn,
    String name,
    LoadBalancerType type,
    String dnsName,
    List<String> zones,
    LoadBalancerAttributes attributes,
    List<Listener> listeners,
    LoadBalancerScheme scheme,
    LoadBalancerIpAddressType ipAddressType,
    List<String> securityGroups,
    Instant createdTime) {

  public static final int MAX_LISTENERS = 50;
  /** Certificates per load balancer besides the default one (SPEC §8.5). */
  public static final int MAX_CERTIFICATES = 25;
  public static final int MAX_RULES = 100;
  public static final int MAX_TARGET_GROUPS = 100;
  /** Targets per application load balancer, counted over the target groups it uses (SPEC §8.5). */
  public static final int MAX_TARGETS = 1000;
  /** Targets per network load balancer (SPEC §8.5). */
  public static final int MAX_NETWORK_TARGETS = 3000;

  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9-]{0,30}[A-Za-z0-9])?");
  private static final String NAME_RULES = "(expected 1-32 letters, digits and hyphens, not beginning or ending"
      + " with a hyphen, not beginning with 'internal-')";

  /** The target groups this load balancer forwards to, in the order its listeners and rules name them. */
  public Set<String> targetGroupArns() {
    Set<String> arns = new LinkedHashSet<>();
    for (Listener l : listeners) {
      forwardedTo(l.defaultActions(), arns);
      for (Rule r : l.rules()) {
        forwardedTo(r.actions(), arns);
      }
    }
    return arns;
  }

  private static void forwardedTo(List<Action> actions, Set<String> arns) {
    for (Action a : actions) {
      if (a instanceof Action.Forward f) {
        f.targetGroups().forEach(w -> arns.add(w.arn()));
      }
    }
  }

  public LoadBalancer {
    zones = List.copyOf(zones);
    listeners = List.copyOf(listeners);
    securityGroups = List.copyOf(securityGroups);
  }

  /** An internet-facing IPv4 load balancer without security groups or creation time (the config file's). */
  public LoadBalancer(String arn, String name, LoadBalancerType type, String dnsName, List<String> zones,
      LoadBalancerAttributes attributes, List<Listener> listeners) {
    this(arn, name, type, dnsName, zones, attributes, listeners, LoadBalancerScheme.INTERNET_FACING,
        LoadBalancerIpAddressType.IPV4, List.of(), null);
  }

  public LoadBalancer withListeners(List<Listener> newListeners) {
    return new LoadBalancer(arn, name, type, dnsName, zones, attributes, newListeners, scheme, ipAddressType,
        securityGroups, createdTime);
  }

  public LoadBalancer withAttributes(LoadBalancerAttributes newAttributes) {
    return new LoadBalancer(arn, name, type, dnsName, zones, newAttributes, listeners, scheme, ipAddressType,
        securityGroups, createdTime);
  }

  /** This load balancer enabled in other zones: its listeners bind on the nodes of those. */
  public LoadBalancer withZones(List<String> newZones) {
    return new LoadBalancer(arn, name, type, dnsName, newZones, attributes, listeners, scheme, ipAddressType,
        securityGroups, createdTime);
  }

  public LoadBalancer withIpAddressType(LoadBalancerIpAddressType newIpAddressType) {
    return new LoadBalancer(arn, name, type, dnsName, zones, attributes, listeners, scheme, newIpAddressType,
        securityGroups, createdTime);
  }

  /** This load balancer created at {@code time}, when it has no creation time yet. */
  public LoadBalancer createdAt(Instant time) {
    return createdTime != null ? this : new LoadBalancer(arn, name, type, dnsName, zones, attributes, listeners,
        scheme, ipAddressType, securityGroups, time);
  }

  public LoadBalancer withSecurityGroups(List<String> newSecurityGroups) {
    return new LoadBalancer(arn, name, type, dnsName, zones, attributes, listeners, scheme, ipAddressType,
        newSecurityGroups, createdTime);
  }

  /**
   * Checks a load balancer name: 1-32 letters, digits and hyphens, not beginning or ending with a
   * hyphen, not beginning with {@code internal-}. Records a problem and returns false when invalid.
   */
  public static boolean checkName(String name, Problems p) {
    if (name == null) {
      p.add("a name is required " + NAME_RULES);
      return false;
    }
    if (!NAME.matcher(name).matches() || name.startsWith("internal-")) {
      p.add("'" + name + "' is not a load balancer name " + NAME_RULES);
      return false;
    }
    return true;
  }
}
