package io.fulcrum.model;

/**
 * Which family of load balancer a target group belongs to. Defaults and ranges of health checks
 * and attributes depend on it (SPEC §1.2, §3.1), and it follows from the target type and protocol.
 */
public enum TargetGroupKind {
  /** An ALB target group of type instance or ip (protocol HTTP or HTTPS). */
  ALB,
  /** An ALB target group of type lambda. */
  ALB_LAMBDA,
  /** A Network Load Balancer target group (TCP, TLS, UDP, TCP_UDP, QUIC, TCP_QUIC). */
  NLB,
  /** A Gateway Load Balancer target group (GENEVE). */
  GWLB;

  public static TargetGroupKind of(TargetType type, Protocol protocol) {
    if (type == TargetType.LAMBDA) {
      return ALB_LAMBDA;
    }
    if (protocol == Protocol.GENEVE) {
      return GWLB;
    }
    if (protocol != null && protocol.isNetworkFamily()) {
      return NLB;
    }
    return ALB;
  }
}
