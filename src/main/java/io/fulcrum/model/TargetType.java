package io.fulcrum.model;

/** ELBv2 {@code TargetTypeEnum}. */
public enum TargetType implements WireEnum {
  INSTANCE("instance"),
  IP("ip"),
  LAMBDA("lambda"),
  ALB("alb");

  private final String wire;

  TargetType(String wire) {
    this.wire = wire;
  }

  @Override
  public String wire() {
    return wire;
  }
}
