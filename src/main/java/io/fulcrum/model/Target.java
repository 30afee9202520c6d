package io.fulcrum.model;

/**
 * A registered target, resolved: the id it was registered with, the port traffic goes to, its
 * zone ({@code all} where allowed) and the address to connect to.
 *
 * @param id      an IP address, an instance id or a function name/ARN
 * @param port    the traffic port (the target group's port unless overridden); 0 for lambda
 * @param zone    the zone, or {@code all}
 * @param address the IP address to connect to; {@code null} for lambda targets
 * @param zoneGiven whether the zone was given at registration (DescribeTargetHealth echoes it)
 */
public record Target(String id, int port, String zone, String address, boolean zoneGiven) {

  public static final String ALL_ZONES = "all";

  /** The identity of a registration: the same id may be registered on several ports. */
  public String key() {
    return id + ":" + port;
  }
}
