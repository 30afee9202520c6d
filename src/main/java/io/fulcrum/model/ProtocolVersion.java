package io.fulcrum.model;

/** A target group's {@code ProtocolVersion} (HTTP/HTTPS target groups only). */
public enum ProtocolVersion implements WireEnum {
  HTTP1, HTTP2, GRPC;

  @Override
  public String wire() {
    return name();
  }
}
