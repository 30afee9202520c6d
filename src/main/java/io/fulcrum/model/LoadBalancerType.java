package io.fulcrum.model;

/** ELBv2 {@code LoadBalancerTypeEnum}. */
public enum LoadBalancerType implements WireEnum {
  APPLICATION("application"),
  NETWORK("network");

  private final String wire;

  LoadBalancerType(String wire) {
    this.wire = wire;
  }

  @Override
  public String wire() {
    return wire;
  }
}
