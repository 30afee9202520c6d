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
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An authoritative DNS responder over UDP for the load balancers' DNS names (SPEC §10, DNS
 * failover): {@code A} and {@code AAAA} queries for {@code <name>.<region>.<domain>} are answered
 * with the addresses of the nodes whose zones pass DNS failover (every zone's when all fail), TTL
 * 60 s. Other names under the domain get NXDOMAIN (a name above a load balancer's, NOERROR with no
 * data), both with the domain's SOA for negative caching; names outside it are REFUSED (this is no
 * recursive resolver). Malformed queries get FORMERR (see {@link DnsWire}).
 *
 * <p>The zone status comes from the registry over the event bus; every datagram is answered on
 * this verticle's event loop from an index rebuilt only when the status changes: no lock, no
 * blocking call, nothing logged per query above DEBUG.
 */
public final class DnsResponderVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(DnsResponderVerticle.class);

  /** The TTL of every record (ALB's DNS records: 60 s), also the negative-caching TTL. */
  public static final int TTL_SECONDS = FulcrumConfig.Dns.TTL_SECONDS;

  private final String address;
  private final int port;
  private final Supplier<String> domain;
  private final ZoneStatusFeed feed = new ZoneStatusFeed();
  private DatagramSocket socket;
  /** The status the index was built from, and the index: lower-case DNS name to addresses. */
  private ZoneStatus indexed;
  private Map<String, Addresses> index = Map.of();

  /** A load balancer name's answer data, as records ready to send. */
  private record Addresses(List<Rr> v4, List<Rr> v6) {
  }

  /**
   * @param address the UDP bind address (an IP literal)
   * @param port    the UDP port; 0 picks a free one (see {@link #actualPort()})
   * @param domain  the domain of load balancer names, as configured now (it may change on reload)
   */
  public DnsResponderVerticle(String address, int port, Supplier<String> domain) {
    this.address = address;
    this.port = port;
    this.domain = domain;
  }

  @Override
  public Future<?> start() {
    socket = vertx.createDatagramSocket(new DatagramSocketOptions().setIpV6(IpAddresses.isIpv6(address)));
    socket.handler(this::onPacket);
    return feed.start(vertx).compose(v -> socket.listen(port, address));
  }

  @Override
  public Future<?> stop() {
    return socket == null ? Future.succeededFuture() : socket.close();
  }

  /** The UDP port actually bound. */
  public int actualPort() {
    return socket.localAddress().port();
  }

  private void onPacket(DatagramPacket packet) {
    Buffer reply;
    DnsWire.Request request = DnsWire.read(packet.data());
    if (request instanceof Query q) {
      reply = answer(q);
    } else if (request instanceof DnsWire.Rejected r) {
      LOG.debug("DNS query from {} rejected (rcode {}): {}", packet.sender(), r.rcode(), r.why());
      reply = DnsWire.reject(r);
    } else {
      LOG.debug("DNS datagram from {} dropped: {}", packet.sender(), ((DnsWire.Dropped) request).why());
      return;
    }
    socket.send(reply, packet.sender().port(), packet.sender().host())
        .onFailure(e -> LOG.debug("DNS answer to {} not sent: {}", packet.sender(), e.toString()));
  }

  private Buffer answer(Query q) {
    if (q.edns() != null && q.edns().version() != 0) {
      return DnsWire.answer(q, DnsWire.BADVERS, false, List.of(), List.of());
    }
    if (q.qclass() != DnsWire.CLASS_IN && q.qclass() != DnsWire.CLASS_ANY) {
      return DnsWire.answer(q, DnsWire.REFUSED, false, List.of(), List.of());
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
      return DnsWire.answer(q, DnsWire.NOERROR, true, records, records.isEmpty() ? soa(apex) : List.of());
    }
    if (!q.name().equals(apex) && !q.name().endsWith("." + apex)) {
      return DnsWire.answer(q, DnsWire.REFUSED, false, List.of(), List.of());
    }
    if (q.name().equals(apex) && q.type() == DnsWire.TYPE_SOA) {
      return DnsWire.answer(q, DnsWire.NOERROR, true, soa(apex), List.of());
    }
    boolean exists = q.name().equals(apex) || index.keySet().stream().anyMatch(n -> n.endsWith("." + q.name()));
    return DnsWire.answer(q, exists ? DnsWire.NOERROR : DnsWire.NXDOMAIN, true, List.of(), soa(apex));
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
