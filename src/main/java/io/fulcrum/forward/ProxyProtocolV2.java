package io.fulcrum.forward;

import java.nio.ByteBuffer;

/**
 * The PROXY protocol version 2 header a network load balancer sends first on each connection to a
 * target when {@code proxy_protocol_v2.enabled} is on (SPEC §3): the binary form of HAProxy's
 * specification, command PROXY over TCP, with the client's address and port as source and the
 * listener's as destination. Both addresses are of one family; a client over IPv4 reaching an IPv6
 * listener (or the reverse) is sent as IPv6, the IPv4 address mapped.
 */
public final class ProxyProtocolV2 {

  /** The twelve bytes every version 2 header starts with. */
  static final byte[] SIGNATURE = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};
  private static final int VERSION_PROXY = 0x21;
  private static final int TCP_OVER_IPV4 = 0x11;
  private static final int TCP_OVER_IPV6 = 0x21;

  /**
   * The header of a connection the load balancer opens for itself (command {@code LOCAL}, family
   * unspecified, no addresses): what its health checks start with (SPEC §1.5).
   */
  public static byte[] local() {
    return ByteBuffer.allocate(16).put(SIGNATURE).put((byte) 0x20).put((byte) 0x00).putShort((short) 0).array();
  }

  private ProxyProtocolV2() {
  }

  /** The header for a client at {@code source}:{@code sourcePort} that reached {@code destination}:{@code destinationPort}. */
  public static byte[] header(byte[] source, int sourcePort, byte[] destination, int destinationPort) {
    boolean v4 = source.length == 4 && destination.length == 4;
    byte[] src = v4 ? source : ipv6(source);
    byte[] dst = v4 ? destination : ipv6(destination);
    int length = src.length + dst.length + 4;
    return ByteBuffer.allocate(16 + length)
        .put(SIGNATURE)
        .put((byte) VERSION_PROXY)
        .put((byte) (v4 ? TCP_OVER_IPV4 : TCP_OVER_IPV6))
        .putShort((short) length)
        .put(src)
        .put(dst)
        .putShort((short) sourcePort)
        .putShort((short) destinationPort)
        .array();
  }

  private static byte[] ipv6(byte[] address) {
    if (address.length == 16) {
      return address;
    }
    byte[] mapped = new byte[16];
    mapped[10] = (byte) 0xFF;
    mapped[11] = (byte) 0xFF;
    System.arraycopy(address, 0, mapped, 12, 4);
    return mapped;
  }
}
