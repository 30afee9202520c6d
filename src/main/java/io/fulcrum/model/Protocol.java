package io.fulcrum.model;

/** ELBv2 {@code ProtocolEnum}: listener, target group and health-check protocols. */
public enum Protocol implements WireEnum {
  HTTP, HTTPS, TCP, TLS, UDP, TCP_UDP, GENEVE, QUIC, TCP_QUIC;

  @Override
  public String wire() {
    return name();
  }

  /** HTTP and HTTPS: the protocols of an Application Load Balancer. */
  public boolean isHttpFamily() {
    return this == HTTP || this == HTTPS;
  }

  /** The protocols of a Network Load Balancer. */
  public boolean isNetworkFamily() {
    return this == TCP || this == TLS || this == UDP || this == TCP_UDP || this == QUIC || this == TCP_QUIC;
  }

  public boolean isTls() {
    return this == HTTPS || this == TLS;
  }
}
