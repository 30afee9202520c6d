package io.fulcrum.bus;

import java.util.ArrayList;
import java.util.List;

/**
 * DNS failover state (SPEC §10): for each load balancer, which zones meet the DNS-failover
 * threshold of every target group it uses. Published by the registry after every change that can
 * move it; read by the DNS responder and the readiness probes. Immutable.
 */
public record ZoneStatus(long version, List<LoadBalancerZones> loadBalancers) {

  public static final ZoneStatus EMPTY = new ZoneStatus(0, List.of());

  public ZoneStatus {
    loadBalancers = List.copyOf(loadBalancers);
  }

  /**
   * One load balancer's zones.
   *
   * @param name    the load balancer's name
   * @param dnsName its DNS name
   * @param zones   its enabled zones
   */
  public record LoadBalancerZones(String name, String dnsName, List<Zone> zones) {
    public LoadBalancerZones {
      zones = List.copyOf(zones);
    }

    /** When every zone fails, DNS fails open and advertises every zone. */
    public boolean failOpen() {
      return zones.stream().noneMatch(Zone::passing);
    }

    /** Whether DNS advertises the zone: it passes, or every zone fails. */
    public boolean advertised(String zone) {
      return failOpen() || zones.stream().anyMatch(z -> z.name().equals(zone) && z.passing());
    }

    /** The node addresses DNS answers with for this load balancer's name. */
    public List<String> dnsAddresses() {
      List<String> out = new ArrayList<>();
      for (Zone z : zones) {
        if (advertised(z.name())) {
          out.addAll(z.nodeAddresses());
        }
      }
      return out;
    }
  }

  /**
   * A zone of a load balancer.
   *
   * @param name          the zone
   * @param nodeAddresses its node's addresses
   * @param passing       whether it meets the DNS-failover threshold of every target group
   * @param failing       the target groups whose threshold it breaches (for messages)
   */
  public record Zone(String name, List<String> nodeAddresses, boolean passing, List<String> failing) {
    public Zone {
      nodeAddresses = List.copyOf(nodeAddresses);
      failing = List.copyOf(failing);
    }
  }

  /** The load balancer with this DNS name (case-insensitive), or null. */
  public LoadBalancerZones byDnsName(String name) {
    for (LoadBalancerZones lb : loadBalancers) {
      if (lb.dnsName().equalsIgnoreCase(name)) {
        return lb;
      }
    }
    return null;
  }

  /**
   * Whether the node of {@code zone} is ready: every load balancer enabled in the zone advertises
   * it (the zone passes, or that load balancer fails open everywhere).
   */
  public boolean zoneReady(String zone) {
    for (LoadBalancerZones lb : loadBalancers) {
      boolean enabledHere = lb.zones().stream().anyMatch(z -> z.name().equals(zone));
      if (enabledHere && !lb.advertised(zone)) {
        return false;
      }
    }
    return true;
  }
}
