package io.fulcrum.balancer;

import io.fulcrum.model.IpAddresses;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * A target as the data plane sees it: where to connect, its zone, and counters shared by every
 * event loop (no locks: atomics only). The registry keeps one instance per target per group across
 * snapshots, so counters survive configuration and health changes.
 *
 * <p>Counters are laid out for the request path: the in-flight count, which least outstanding
 * requests reads on every choice, is a field of this object (one memory access from the selector's
 * array, not two); the running totals, written by every event loop on every request and read only
 * by anomaly detection every few seconds, are {@link LongAdder}s, so loops do not contend on them.
 */
public final class Upstream {

  private static final VarHandle OUTSTANDING;
  private static final VarHandle CREDITS;
  private static final VarHandle SPENT;

  static {
    try {
      OUTSTANDING = MethodHandles.lookup().findVarHandle(Upstream.class, "outstanding", int.class);
      CREDITS = MethodHandles.lookup().findVarHandle(Upstream.class, "credits", int.class);
      SPENT = MethodHandles.lookup().findVarHandle(Upstream.class, "creditsSpent", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String key;
  private final String id;
  private final String address;
  private final int port;
  private final String zone;
  /** Made on first use by {@link #endpoint()}. */
  private String endpoint;
  /** Made on first use by {@link #socketAddress()}. */
  private InetSocketAddress socketAddress;
  /**
   * An application load balancer registered as a target (type alb): its address in each of its
   * zones, where a node of that zone reaches it; null for any other target.
   */
  private final Map<String, String> zoneAddresses;
  /** {@link #zoneAddresses} as socket addresses. */
  private final Map<String, InetSocketAddress> zoneSocketAddresses;
  private volatile int outstanding;
  /** Target optimizer: requests the target's agent has said it is ready for and that are not yet sent. */
  private volatile int credits;
  /** Target optimizer: moves on each time the credits are revoked, so that older credits are not given back. */
  private volatile int creditEpoch;
  private volatile String creditChannel;
  /** Target optimizer: credits of the current channel taken and not given back. */
  private volatile long creditsSpent;
  private final LongAdder requests = new LongAdder();
  private final LongAdder errors = new LongAdder();

  /**
   * @param key     {@code id:port}, the registration's identity
   * @param id      the registered id (IP or instance id)
   * @param address the IP address to connect to; {@code null} for a Lambda function
   * @param port    the traffic port
   * @param zone    its zone, or {@code all}
   */
  public Upstream(String key, String id, String address, int port, String zone) {
    this(key, id, address, port, zone, null);
  }

  /**
   * A target reached at another address from some zones: an application load balancer registered
   * as a target, at its node in each of its zones ({@code zoneAddresses}); {@code address} from the
   * others.
   */
  public Upstream(String key, String id, String address, int port, String zone, Map<String, String> zoneAddresses) {
    this.key = key;
    this.id = id;
    this.address = address;
    this.port = port;
    this.zone = zone;
    this.zoneAddresses = zoneAddresses == null ? null : Map.copyOf(zoneAddresses);
    if (zoneAddresses == null) {
      this.zoneSocketAddresses = null;
    } else {
      Map<String, InetSocketAddress> made = new HashMap<>();
      zoneAddresses.forEach((z, a) -> made.put(z, socketAddress(a, port)));
      this.zoneSocketAddresses = Map.copyOf(made);
    }
  }

  public String key() {
    return key;
  }

  /**
   * {@code address:port} ({@code [address]:port} for IPv6) as the access log's {@code target:port}
   * has it, made on first use; the id for a Lambda function, which has no address.
   */
  public String endpoint() {
    String e = endpoint;
    if (e == null) {
      String a = address == null ? id : address;
      e = (a.indexOf(':') >= 0 ? "[" + a + "]" : a) + ":" + port;
      endpoint = e;
    }
    return e;
  }

  /**
   * The address to connect to, made on first use (the address is an IP literal: no name is
   * looked up). Benign race: event loops may each make an equal one.
   */
  public InetSocketAddress socketAddress() {
    InetSocketAddress a = socketAddress;
    if (a == null) {
      a = socketAddress(address, port);
      socketAddress = a;
    }
    return a;
  }

  /** Whether this is an application load balancer of this process, registered as a target (type alb). */
  public boolean isApplicationLoadBalancer() {
    return zoneAddresses != null;
  }

  /**
   * The address a node of {@code zone} connects to: {@link #socketAddress()} but for an application
   * load balancer that has a node in that zone.
   */
  public InetSocketAddress socketAddressFrom(String zone) {
    InetSocketAddress a = zoneSocketAddresses == null ? null : zoneSocketAddresses.get(zone);
    return a != null ? a : socketAddress();
  }

  private static InetSocketAddress socketAddress(String address, int port) {
    byte[] ip = IpAddresses.parse(address);
    try {
      return ip == null ? InetSocketAddress.createUnresolved(address, port)
          : new InetSocketAddress(InetAddress.getByAddress(ip), port);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e); // not for 4 or 16 bytes
    }
  }

  public String id() {
    return id;
  }

  public String address() {
    return address;
  }

  public int port() {
    return port;
  }

  public String zone() {
    return zone;
  }

  /** Requests in flight to this target, over every event loop (least outstanding requests). */
  public int outstanding() {
    return outstanding;
  }

  /** Called when a request is dispatched to this target. */
  public void dispatched() {
    OUTSTANDING.getAndAdd(this, 1);
    requests.increment();
  }

  /** Called when a dispatched request ends, whatever its outcome. */
  public void completed() {
    OUTSTANDING.getAndAdd(this, -1);
  }

  /**
   * Target optimizer (SPEC §9): takes one of the credits the target's agent granted, if it has one
   * (lock-free; event loops race for the last one and one of them gets it).
   */
  public boolean takeCredit() {
    int c;
    do {
      c = credits;
      if (c <= 0) {
        return false;
      }
    } while (!CREDITS.compareAndSet(this, c, c - 1));
    SPENT.getAndAdd(this, 1L);
    return true;
  }

  /** Target optimizer: the agent granted {@code n} more requests. */
  public void grantCredits(int n) {
    CREDITS.getAndAdd(this, n);
  }

  /**
   * Target optimizer: gives back a credit taken in {@code epoch} whose request never reached the
   * target (the connection to it failed); a credit of an earlier channel is dropped.
   *
   * @return whether the credit is good again (it was of the current channel)
   */
  public boolean returnCredit(int epoch) {
    if (epoch == creditEpoch) {
      SPENT.getAndAdd(this, -1L);
      CREDITS.getAndAdd(this, 1);
      return true;
    }
    return false;
  }

  /** Target optimizer: the channel to the agent closed; its credits are void. */
  public void revokeCredits() {
    creditEpoch++; // written only by the owner of the channel
    creditChannel = null;
    credits = 0;
    creditsSpent = 0;
  }

  /**
   * Target optimizer: the credits of the current channel spent on requests that went out (taken,
   * less those given back), which the load balancer reports to the agent.
   */
  public long creditsSpent() {
    return creditsSpent;
  }

  /** Target optimizer: credits not yet taken. */
  public int credits() {
    return credits;
  }

  /**
   * Target optimizer: the name of the channel whose credits the target holds (a request sent with
   * one carries it to the agent), or null while there is none.
   */
  public String creditChannel() {
    return creditChannel;
  }

  /** Target optimizer: the channel to the agent is named {@code channel}. */
  public void creditChannel(String channel) {
    creditChannel = channel;
  }

  /** Target optimizer: the generation of the current credits (see {@link #returnCredit}). */
  public int creditEpoch() {
    return creditEpoch;
  }

  /** Counts an error for anomaly detection: a 5xx from the target, or a connection or TLS error. */
  public void failed() {
    errors.increment();
  }

  /**
   * Requests dispatched so far (a running total; anomaly detection takes differences). Not an
   * atomic snapshot across event loops, but never lower than a total read before.
   */
  public long requestCount() {
    return requests.sum();
  }

  /** Errors so far (a running total, read like {@link #requestCount()}). */
  public long errorCount() {
    return errors.sum();
  }

  /** Whether the same target at the same place (a reused instance stays valid only if so). */
  public boolean sameAs(String address, int port, String zone) {
    return sameAs(address, port, zone, null);
  }

  /** {@link #sameAs(String, int, String)}, reached from zones at {@code zoneAddresses} (null: none). */
  public boolean sameAs(String address, int port, String zone, Map<String, String> zoneAddresses) {
    // Lambda targets have no address.
    return java.util.Objects.equals(this.address, address) && this.port == port && this.zone.equals(zone)
        && java.util.Objects.equals(this.zoneAddresses, zoneAddresses);
  }

  @Override
  public String toString() {
    return key + "@" + zone;
  }
}
