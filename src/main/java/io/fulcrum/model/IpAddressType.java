package io.fulcrum.model;

/** A target group's {@code IpAddressType}. */
public enum IpAddressType implements WireEnum {
  IPV4("ipv4"),
  IPV6("ipv6");

  private final String wire;

  IpAddressType(String wire) {
    this.wire = wire;
  }

  @Override
  public String wire() {
    return wire;
  }
}
