package io.fulcrum.admin;

import io.fulcrum.admin.DnsWire.Query;
import io.fulcrum.admin.DnsWire.Rr;
import io.fulcrum.bus.ZoneStatus;
import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.IpAddresses;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramPacket;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.SocketAddress;
import io.vertx.core.parsetools.RecordParser;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An authoritative DNS responder over UDP and TCP (the same port) for the load balancers' DNS
 * names (SPEC §10, DNS failover): {@code A} and {@code AAAA} queries for
 * {@code <name>.<region>.<domain>} are answered with the addresses of the nodes whose zones pass
 * DNS failover (every zone's when all fail), TTL 60 s. Other names under the domain get NXDOMAIN (a name above a load balancer's, NOERROR with no
 * data), both with the domain's SOA for negative caching; names outside it are REFUSED (this is no
 * recursive resolver). Malformed queries get FORMERR (see {@link DnsWire}).
 *
 * <p>An answer too large for the requester's UDP payload is cut and flagged TC; the requester
 * then asks over TCP (RFC 7766), where each message has a two-byte length before it, a connection
 * may carry any number of queries (answered in order), and closes after
 * {@value #TCP_IDLE_SECONDS} s without one; at most {@value #MAX_TCP_CONNECTIONS} are open at once.
 *
 * <p>The zone status comes from the registry over the event bus; every query is answered on this
 * verticle's event loop from an index rebuilt only when the status changes: no lock, no blocking
 * call, nothing logged per query above DEBUG.
 */
public final class DnsResponderVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(DnsResponderVerticle.class);

  /** The TTL of every record (ALB's DNS records: 60 s), also the negative-caching TTL. */
  public static final int TTL_SECONDS = FulcrumConfig.Dns.TTL_SECONDS;
  /** How long a TCP connection may stay without a query (RFC 7766 §6.2.3: some seconds). */
  static final int TCP_IDLE_SECONDS = 10;
  /**
   * How many TCP connections may be open at once (BIND's {@code tcp-clients} default); one more is
   * closed at once, so that idle connections cannot take every file descriptor of the process.
   */
  static final int MAX_TCP_CONNECTIONS = 150;
  /** Port 0: how many free UDP ports are tried for one whose number is free for TCP too. */
  private static final int BIND_ATTEMPTS = 5;

  private final String address;
  private final int port;
  private final Supplier<String> domain;
  private final ZoneStatusFeed feed = new ZoneStatusFeed();
  private DatagramSocket socket;
  private NetServer tcp;
  /** TCP connections open now (touched on this verticle's event loop only). */
  private int tcpOpen;
  /** The status the index was built from, and the index: lower-case DNS name to addresses. */
  private ZoneStatus indexed;
  private Map<String, Addresses> index = Map.of();

  /** A load balancer name's answer data, as records ready to send. */
  private record Addresses(List<Rr> v4, List<Rr> v6) {
  }

  /**
   * @param address the bind address (an IP literal)
   * @param port    the UDP and TCP port; 0 picks one free for both (see {@link #actualPort()})
   * @param domain  the domain of load balancer names, as configured now (it may change on reload)
   */
  public DnsResponderVerticle(String address, int port, Supplier<String> domain) {
    this.address = address;
    this.port = port;
    this.domain = domain;
  }

  @Override
  public Future<?> start() {
    return feed.start(vertx).compose(v -> bind(port, BIND_ATTEMPTS));
  }

  /** Listens on UDP, then on TCP with the same port number; with port 0, tries other free ports. */
  private Future<Void> bind(int wanted, int attempts) {
    socket = vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(IpAddresses.isIpv6(address)));
    socket.handler(this::onPacket);
    tcp = vertx.createNetServer(new NetServerOptions()
        .setIdleTimeout(TCP_IDLE_SECONDS).setIdleTimeoutUnit(TimeUnit.SECONDS));
    tcp.connectHandler(this::onConnection);
    return socket.listen(wanted, address)
        .compose(s -> tcp.listen(s.localAddress().port(), address))
        .<Void>mapEmpty()
        .recover(e -> {
          Future<Void> closed = Future.join(socket.close(), tcp.close()).mapEmpty();
          if (wanted != 0 || attempts <= 1) {
            return closed.transform(ar -> Future.failedFuture(e));
          }
          // The port picked for UDP is taken for TCP: another one.
          return closed.transform(ar -> bind(0, attempts - 1));
        });
  }

  @Override
  public Future<?> stop() {
    return Future.join(socket == null ? Future.succeededFuture() : socket.close(),
        tcp == null ? Future.succeededFuture() : tcp.close());
  }

  /** The port actually bound, for UDP and TCP. */
  public int actualPort() {
    return socket.localAddress().port();
  }

  private void onPacket(DatagramPacket packet) {
    Buffer reply = reply(packet.data(), packet.sender(), false);
    if (reply != null) {
      socket.send(reply, packet.sender().port(), packet.sender().host())
          .onFailure(e -> LOG.debug("DNS answer to {} not sent: {}", packet.sender(), e.toString()));
    }
  }

  /**
   * A TCP connection: messages of a two-byte length and that many bytes, answered in order the
   * same way. A zero length closes it; a client that does not read its answers stops being read.
   */
  private void onConnection(NetSocket so) {
    if (tcpOpen >= MAX_TCP_CONNECTIONS) {
      LOG.debug("DNS over TCP from {}: {} connections open already, closed", so.remoteAddress(), tcpOpen);
      so.close();
      return;
    }
    tcpOpen++;
    so.closeHandler(v -> tcpOpen--);
    RecordParser parser = RecordParser.newFixed(2);
    boolean[] lengthNext = {true};
    parser.handler(part -> {
      if (lengthNext[0]) {
        int length = part.getUnsignedShort(0);
        if (length == 0) {
          so.close();
          return;
        }
        lengthNext[0] = false;
        parser.fixedSizeMode(length);
        return;
      }
      lengthNext[0] = true;
      parser.fixedSizeMode(2);
      Buffer reply = reply(part, so.remoteAddress(), true);
      if (reply != null) {
        so.write(Buffer.buffer(2 + reply.length()).appendUnsignedShort(reply.length()).appendBuffer(reply));
        if (so.writeQueueFull()) {
          so.pause();
          so.drainHandler(v -> so.resume());
        }
      }
    });
    so.handler(parser);
    so.exceptionHandler(e -> LOG.debug("DNS over TCP from {}: {}", so.remoteAddress(), e.toString()));
  }

  /** The answer to one query message, or null when it gets none (a response, a runt). */
  private Buffer reply(Buffer message, SocketAddress from, boolean overTcp) {
    DnsWire.Request request = DnsWire.read(message);
    if (request instanceof Query q) {
      return answer(q, overTcp);
    }
    if (request instanceof DnsWire.Rejected r) {
      LOG.debug("DNS query from {} rejected (rcode {}): {}", from, r.rcode(), r.why());
      return DnsWire.reject(r);
    }
    LOG.debug("DNS message from {} dropped: {}", from, ((DnsWire.Dropped) request).why());
    return null;
  }

  private Buffer answer(Query q, boolean tcp) {
    if (q.edns() != null && q.edns().version() != 0) {
      return DnsWire.answer(q, DnsWire.BADVERS, false, List.of(), List.of(), tcp);
    }
    if (q.qclass() != DnsWire.CLASS_IN && q.qclass() != DnsWire.CLASS_ANY) {
      return DnsWire.answer(q, DnsWire.REFUSED, false, List.of(), List.of(), tcp);
    }
    String apex = domain.get().toLowerCase(Locale.ROOT);
    Addresses found = index().get(q.name());
    if (found != null) {
      List<Rr> records = new ArrayList<>();
      if (q.type() == DnsWire.TYPE_A || q.type() == DnsWire.TYPE_ANY) {
        records.addAll(found.v4());
      }
      if (q.type() == DnsWire.TYPE_AAAA || q.type() == DnsWire.TYPE_ANY) {
        records.addAll(found.v6());
      }
      return DnsWire.answer(q, DnsWire.NOERROR, true, records, records.isEmpty() ? soa(apex) : List.of(), tcp);
    }
    if (!q.name().equals(apex) && !q.name().endsWith("." + apex)) {
      return DnsWire.answer(q, DnsWire.REFUSED, false, List.of(), List.of(), tcp);
    }
    if (q.name().equals(apex) && q.type() == DnsWire.TYPE_SOA) {
      return DnsWire.answer(q, DnsWire.NOERROR, true, soa(apex), List.of(), tcp);
    }
    boolean exists = q.name().equals(apex) || index.keySet().stream().anyMatch(n -> n.endsWith("." + q.name()));
    return DnsWire.answer(q, exists ? DnsWire.NOERROR : DnsWire.NXDOMAIN, true, List.of(), soa(apex), tcp);
  }

  /** The domain's SOA (RFC 2308: its minimum is the negative-caching TTL). */
  private List<Rr> soa(String apex) {
    long serial = feed.current().version();
    return List.of(new Rr(apex, DnsWire.TYPE_SOA, TTL_SECONDS,
        DnsWire.soa("ns." + apex, "hostmaster." + apex, serial, 3600, 600, 86400, TTL_SECONDS)));
  }

  private Map<String, Addresses> index() {
    ZoneStatus status = feed.current();
    if (status != indexed) {
      Map<String, Addresses> next = new HashMap<>();
      for (ZoneStatus.LoadBalancerZones lb : status.loadBalancers()) {
        List<Rr> v4 = new ArrayList<>();
        List<Rr> v6 = new ArrayList<>();
        for (String a : lb.dnsAddresses()) {
          byte[] bytes = IpAddresses.parse(a);
          if (bytes != null) {
            (bytes.length == 4 ? v4 : v6).add(Rr.forQuestion(bytes.length == 4 ? DnsWire.TYPE_A : DnsWire.TYPE_AAAA,
                TTL_SECONDS, bytes));
          }
        }
        next.put(lb.dnsName().toLowerCase(Locale.ROOT), new Addresses(List.copyOf(v4), List.copyOf(v6)));
      }
      index = next;
      indexed = status;
    }
    return index;
  }
}
