package io.fulcrum.model;

/** ELBv2 {@code TargetHealthStateEnum} (SPEC §2.1). */
public enum TargetState implements WireEnum {
  INITIAL("initial"),
  HEALTHY("healthy"),
  UNHEALTHY("unhealthy"),
  UNHEALTHY_DRAINING("unhealthy.draining"),
  UNUSED("unused"),
  DRAINING("draining"),
  UNAVAILABLE("unavailable");

  private final String wire;

  TargetState(String wire) {
    this.wire = wire;
  }

  @Override
  public String wire() {
    return wire;
  }
}
