package io.fulcrum.model;

import java.util.Arrays;

/**
 * An IPv4 or IPv6 CIDR block. Immutable; {@link #contains(byte[])} allocates nothing, so it is safe
 * on the request path (source-ip conditions).
 */
public final class Cidr {

  private final byte[] network;
  private final int prefix;
  private final String text;

  private Cidr(byte[] network, int prefix) {
    this.network = network;
    this.prefix = prefix;
    this.text = IpAddresses.canonical(network) + "/" + prefix;
  }

  /**
   * Parses {@code 10.0.0.0/8}, {@code ::1/128} or a bare address (a /32 or /128). Host bits
   * are cleared, so {@code 10.1.2.3/8} means {@code 10.0.0.0/8}.
   *
   * @throws IllegalArgumentException with a message saying what was expected
   */
  public static Cidr parse(String text) {
    if (text == null) {
      throw new IllegalArgumentException("a CIDR block is required (e.g. 10.0.0.0/8)");
    }
    int slash = text.indexOf('/');
    String addr = slash < 0 ? text : text.substring(0, slash);
    byte[] bytes = IpAddresses.parse(addr);
    if (bytes == null) {
      throw new IllegalArgumentException("'" + text + "' is not a CIDR block (expected e.g. 10.0.0.0/8 or 2001:db8::/32)");
    }
    int max = bytes.length * 8;
    int prefix = max;
    if (slash >= 0) {
      try {
        prefix = Integer.parseInt(text.substring(slash + 1));
      } catch (NumberFormatException e) {
        prefix = -1;
      }
      if (prefix < 0 || prefix > max) {
        throw new IllegalArgumentException("'" + text + "' has an invalid prefix length (expected 0-" + max + ")");
      }
    }
    byte[] network = bytes.clone();
    for (int bit = prefix; bit < max; bit++) {
      network[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
    }
    return new Cidr(network, prefix);
  }

  /** Whether the address (4 or 16 bytes) is inside this block; false for the other family. */
  public boolean contains(byte[] address) {
    if (address == null || address.length != network.length) {
      return false;
    }
    int full = prefix / 8;
    for (int i = 0; i < full; i++) {
      if (address[i] != network[i]) {
        return false;
      }
    }
    int rest = prefix % 8;
    if (rest == 0) {
      return true;
    }
    int mask = (0xFF << (8 - rest)) & 0xFF;
    return (address[full] & mask) == (network[full] & 0xFF);
  }

  public boolean contains(String address) {
    return contains(IpAddresses.parse(address));
  }

  public boolean isIpv6() {
    return network.length == 16;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Cidr c && c.prefix == prefix && Arrays.equals(c.network, network);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(network) * 31 + prefix;
  }

  @Override
  public String toString() {
    return text;
  }
}
