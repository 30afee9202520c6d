package io.fulcrum.listener;

import io.netty.channel.Channel;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.net.impl.ConnectionBase;
import java.net.InetSocketAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The clients of network load balancer flows that go to an application load balancer of this
 * process (target type {@code alb}): the ALB sees each connection as coming from its client, as
 * an NLB that preserves client addresses shows them to its targets, so its {@code X-Forwarded-For},
 * {@code source-ip} conditions and logs name the client rather than Fulcrum.
 *
 * <p>The NLB's connection to the ALB is bound to a port of its own before it connects, and the
 * client is noted under that address ({@link #carry}) before the ALB can accept it; the ALB takes
 * it as it accepts the connection ({@link #adopt}), which only that connection's address finds.
 * The address is the kernel's for as long as the connection is open, so no other connection, of
 * this process or another, can be taken for it; a note is dropped when the NLB's connection closes.
 * Process-wide, lock-free (one concurrent map); empty unless ALBs are targets of NLBs.
 */
public final class CarriedClients {

  private static final Map<InetSocketAddress, InetSocketAddress> CLIENTS = new ConcurrentHashMap<>();

  private CarriedClients() {
  }

  /** Notes that the connection from {@code via} carries {@code client}'s flow; until {@link #drop}. */
  static void carry(InetSocketAddress via, InetSocketAddress client) {
    CLIENTS.put(via, client);
  }

  /** Forgets the connection from {@code via}. */
  static void drop(InetSocketAddress via) {
    CLIENTS.remove(via);
  }

  /** The client a connection from {@code remote} carries, or null when it is not a carried flow. */
  static InetSocketAddress clientOf(java.net.SocketAddress remote) {
    return CLIENTS.isEmpty() || !(remote instanceof InetSocketAddress a) ? null : CLIENTS.get(a);
  }

  /**
   * For a connection an HTTP listener has just accepted, before anything asked for its address:
   * when it carries a flow, Vert.x's connection gives the client as its remote address (the
   * attribute Vert.x's own PROXY protocol support sets).
   */
  static void adopt(Channel channel) {
    InetSocketAddress client = clientOf(channel.remoteAddress());
    if (client != null) {
      channel.attr(ConnectionBase.REMOTE_ADDRESS_OVERRIDE).set(SocketAddress.inetSocketAddress(client));
    }
  }

  /** How many flows are noted now (none is left behind once they close). */
  public static int size() {
    return CLIENTS.size();
  }
}
