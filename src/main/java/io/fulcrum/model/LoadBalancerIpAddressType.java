package io.fulcrum.model;

/** A load balancer's {@code IpAddressType} (a target group's is {@link IpAddressType}). */
public enum LoadBalancerIpAddressType implements WireEnum {
  IPV4("ipv4"),
  DUALSTACK("dualstack"),
  DUALSTACK_WITHOUT_PUBLIC_IPV4("dualstack-without-public-ipv4");

  private final String wire;

  LoadBalancerIpAddressType(String wire) {
    this.wire = wire;
  }

  @Override
  public String wire() {
    return wire;
  }
}
