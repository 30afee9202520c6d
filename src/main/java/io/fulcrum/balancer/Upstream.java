package io.fulcrum.balancer;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A target as the data plane sees it: where to connect, its zone, and counters shared by every
 * event loop (no locks: atomics only). The registry keeps one instance per target per group across
 * snapshots, so counters survive configuration and health changes.
 */
public final class Upstream {

  private final String key;
  private final String id;
  private final String address;
  private final int port;
  private final String zone;
  private final AtomicInteger outstanding = new AtomicInteger();
  private final AtomicLong requests = new AtomicLong();
  private final AtomicLong errors = new AtomicLong();

  /**
   * @param key     {@code id:port}, the registration's identity
   * @param id      the registered id (IP or instance id)
   * @param address the IP address to connect to; {@code null} for a Lambda function
   * @param port    the traffic port
   * @param zone    its zone, or {@code all}
   */
  public Upstream(String key, String id, String address, int port, String zone) {
    this.key = key;
    this.id = id;
    this.address = address;
    this.port = port;
    this.zone = zone;
  }

  public String key() {
    return key;
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
    return outstanding.get();
  }

  /** Called when a request is dispatched to this target. */
  public void dispatched() {
    outstanding.incrementAndGet();
    requests.incrementAndGet();
  }

  /** Called when a dispatched request ends, whatever its outcome. */
  public void completed() {
    outstanding.decrementAndGet();
  }

  /** Counts an error for anomaly detection: a 5xx from the target, or a connection or TLS error. */
  public void failed() {
    errors.incrementAndGet();
  }

  /** Requests dispatched so far (a running total; anomaly detection takes differences). */
  public long requestCount() {
    return requests.get();
  }

  /** Errors so far (a running total). */
  public long errorCount() {
    return errors.get();
  }

  /** Whether the same target at the same place (a reused instance stays valid only if so). */
  public boolean sameAs(String address, int port, String zone) {
    // Lambda targets have no address.
    return java.util.Objects.equals(this.address, address) && this.port == port && this.zone.equals(zone);
  }

  @Override
  public String toString() {
    return key + "@" + zone;
  }
}
