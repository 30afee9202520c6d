package io.fulcrum.testing;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real UDP target of a network load balancer, as a DNS server is one: datagrams and TCP on the
 * same loopback port. It answers each datagram {@code x} with {@code <id>:x} to its sender; its TCP
 * side is a {@link TcpTarget} (lines answered the same way, health checks by {@code GET}).
 */
public final class UdpTarget implements AutoCloseable {

  private final Vertx vertx;
  private final TcpTarget tcp;
  private DatagramSocket udp;
  private final AtomicInteger datagrams = new AtomicInteger();
  private final Set<String> senders = ConcurrentHashMap.newKeySet();

  private UdpTarget(Vertx vertx, TcpTarget tcp, DatagramSocket udp) {
    this.vertx = vertx;
    this.tcp = tcp;
    this.udp = udp;
  }

  /** Starts a target on a port free for both TCP and UDP. */
  public static UdpTarget start(Vertx vertx, String id) {
    for (int attempt = 0; ; attempt++) {
      TcpTarget tcp = TcpTarget.start(vertx, id);
      // A receive buffer of 64 KB: Vert.x reads each datagram into one of that size (2 KB otherwise,
      // and a larger datagram is cut).
      DatagramSocket udp = vertx.createDatagramSocket(new DatagramSocketOptions().setReceiveBufferSize(65_536));
      try {
        Await.result(udp.listen(tcp.port(), "127.0.0.1"));
      } catch (RuntimeException taken) {
        tcp.close();
        if (attempt == 20) {
          throw taken;
        }
        continue; // the TCP port's number is taken for UDP: another one
      }
      UdpTarget t = new UdpTarget(vertx, tcp, udp);
      t.answer(udp);
      return t;
    }
  }

  private void answer(DatagramSocket socket) {
    socket.handler(packet -> {
      datagrams.incrementAndGet();
      senders.add(packet.sender().host() + ":" + packet.sender().port());
      socket.send(Buffer.buffer(id() + ":").appendBuffer(packet.data()), packet.sender().port(), packet.sender().host());
    });
  }

  /**
   * Closes the UDP side only, as a UDP service that stopped while its host (and its TCP health
   * check) stays up: datagrams to the port are answered by ICMP port unreachable.
   */
  public void stopUdp() {
    Await.result(udp.close());
  }

  /** Opens the UDP side again on the same port. */
  public void startUdp() {
    udp = vertx.createDatagramSocket(new DatagramSocketOptions().setReceiveBufferSize(65_536));
    Await.result(udp.listen(port(), "127.0.0.1"));
    answer(udp);
  }

  public String id() {
    return tcp.id();
  }

  /** The port of both sides. */
  public int port() {
    return tcp.port();
  }

  /** Whether health checks pass. */
  public void healthy(boolean healthy) {
    tcp.healthy(healthy);
  }

  /** Datagrams received. */
  public int datagrams() {
    return datagrams.get();
  }

  /** The addresses and ports datagrams came from: one per flow the load balancer opened to this target. */
  public Set<String> senders() {
    return Set.copyOf(senders);
  }

  /** TCP connections that carried data (not health checks). */
  public int connections() {
    return tcp.connections();
  }

  @Override
  public void close() {
    tcp.close();
    Await.result(udp.close());
  }
}
