package io.fulcrum.model;

/** ELBv2 {@code LoadBalancerSchemeEnum}. */
public enum LoadBalancerScheme implements WireEnum {
  INTERNET_FACING("internet-facing"),
  INTERNAL("internal");

  private final String wire;

  LoadBalancerScheme(String wire) {
    this.wire = wire;
  }

  @Override
  public String wire() {
    return wire;
  }
}
