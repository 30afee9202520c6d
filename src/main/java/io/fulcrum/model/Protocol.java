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

  /**
   * The protocols Fulcrum serves, for listeners and target groups: HTTP and HTTPS (application
   * load balancers), TCP, TLS, UDP and TCP_UDP (network load balancers). QUIC, TCP_QUIC and GENEVE
   * are refused with a message that says so.
   */
  public boolean served() {
    return this == HTTP || this == HTTPS || this == TCP || this == TLS || this == UDP || this == TCP_UDP;
  }

  /** What {@link #served()} accepts, for messages. */
  public static final String SERVED = "HTTP, HTTPS, TCP, TLS, UDP or TCP_UDP";

  /** UDP and TCP_UDP: a network listener that takes datagrams, a group whose targets take them. */
  public boolean carriesUdp() {
    return this == UDP || this == TCP_UDP;
  }

  /** TCP, TLS and TCP_UDP: a network listener that accepts connections. */
  public boolean carriesTcp() {
    return this == TCP || this == TLS || this == TCP_UDP;
  }

  /** HTTPS and TLS: listeners that hold certificates, target groups reached over TLS. */
  public boolean isTls() {
    return this == HTTPS || this == TLS;
  }
}
