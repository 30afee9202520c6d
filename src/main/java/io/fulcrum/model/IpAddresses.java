package io.fulcrum.model;

import io.netty.util.NetUtil;

/** IP literals without name resolution: a string that is not a literal is never looked up. */
public final class IpAddresses {

  private IpAddresses() {
  }

  /** The 4 or 16 bytes of an IPv4 or IPv6 literal, or {@code null} when {@code text} is not one. */
  public static byte[] parse(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    String t = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
    return NetUtil.createByteArrayFromIpAddressString(t);
  }

  public static boolean isLiteral(String text) {
    return parse(text) != null;
  }

  public static boolean isIpv6(String text) {
    byte[] b = parse(text);
    return b != null && b.length == 16;
  }

  /** The canonical text form ({@code ::1}, {@code 10.0.0.1}). */
  public static String canonical(byte[] address) {
    return NetUtil.bytesToIpAddress(address);
  }
}
