package io.fulcrum.model;

/**
 * A socket of this process that is not a listener's: the control port, the DNS responder, a demo
 * target, the cluster's ports. A listener may not take it: within one process, servers on one
 * address and port share the socket, and the connections would go to either in turn.
 *
 * @param address the address it binds ({@code 0.0.0.0} or {@code ::}: every address of its family)
 * @param port    its port (never 0: a port picked at start cannot be foreseen)
 * @param tcp     whether it takes TCP
 * @param udp     whether it takes UDP
 * @param what    what it is, for the message that refuses a listener on it ({@code the control port (control.port)})
 */
public record ReservedSocket(String address, int port, boolean tcp, boolean udp, String what) {

  /**
   * Whether a listener bound to {@code nodeAddress} and {@code listenerPort}, over TCP and/or UDP, would
   * share this socket: the same port and transport, and the same address or a wildcard on either side.
   */
  public boolean clashes(String nodeAddress, int listenerPort, boolean overTcp, boolean overUdp) {
    if (listenerPort != port || !((overTcp && tcp) || (overUdp && udp))) {
      return false;
    }
    byte[] a = IpAddresses.parse(address);
    byte[] b = IpAddresses.parse(nodeAddress);
    if (a == null || b == null) {
      return address.equals(nodeAddress);
    }
    return java.util.Arrays.equals(a, b) || (a.length == b.length && (wildcard(a) || wildcard(b)));
  }

  private static boolean wildcard(byte[] address) {
    for (byte x : address) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }
}
