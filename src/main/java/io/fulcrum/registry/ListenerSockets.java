package io.fulcrum.registry;

import io.fulcrum.model.Environment;
import io.fulcrum.model.IpAddresses;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Node;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Resources;
import io.fulcrum.model.Target;
import io.fulcrum.model.TargetGroup;
import io.fulcrum.model.TargetType;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.net.UnknownHostException;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Where the deployment's load balancers listen: each node address of a load balancer's zones with
 * each of its listeners' ports, over TCP (HTTP, HTTPS, TCP, TLS listeners) or UDP (UDP listeners;
 * TCP_UDP ones both). A target of an {@code ip} or {@code instance} group at one of those, over the
 * transport its group uses, is the load balancer itself (SPEC §8.2: an IP a load balancer uses is
 * {@code unused} / {@code Target.IpUnusable}): a request sent to it would come back in and go round
 * until its X-Forwarded-For overflowed, so it gets nothing. A node bound to the wildcard address listens on
 * every local address: its ports taken by a loopback target, or one at an address of this host,
 * are the load balancer's too. Immutable; made by the registry with each change of the resources.
 */
final class ListenerSockets {

  static final ListenerSockets NONE = new ListenerSockets(Set.of(), Set.of());
  private static final List<String> TCP = List.of("tcp|");
  private static final List<String> UDP = List.of("udp|");
  private static final List<String> BOTH = List.of("tcp|", "udp|");

  /** {@code tcp|udp canonical-address:port} of every node-specific listening socket. */
  private final Set<String> exact;
  /** {@code tcp|udp port} of the ports listened on at a wildcard node address. */
  private final Set<String> everyAddress;

  private ListenerSockets(Set<String> exact, Set<String> everyAddress) {
    this.exact = exact;
    this.everyAddress = everyAddress;
  }

  static ListenerSockets of(Environment env, Resources resources) {
    Set<String> exact = new HashSet<>();
    Set<String> everyAddress = new HashSet<>();
    for (LoadBalancer lb : resources.loadBalancers()) {
      for (Node node : env.nodes()) {
        if (!lb.zones().contains(node.zone())) {
          continue;
        }
        byte[] address = IpAddresses.parse(node.address());
        boolean wildcard = address != null && isWildcard(address);
        for (Listener l : lb.listeners()) {
          for (String transport : transports(l.protocol())) {
            if (wildcard) {
              everyAddress.add(transport + l.port());
            } else if (address != null) {
              exact.add(transport + IpAddresses.canonical(address) + ":" + l.port());
            }
          }
        }
      }
    }
    return new ListenerSockets(Set.copyOf(exact), Set.copyOf(everyAddress));
  }

  /**
   * Whether {@code t} of {@code group} is one of the load balancers' own sockets. Only {@code ip} and
   * {@code instance} targets can be: an {@code alb} target is an application load balancer's
   * listener by design, and a function is no address.
   */
  boolean holds(TargetGroup group, Target t) {
    if (group.targetType() != TargetType.IP && group.targetType() != TargetType.INSTANCE) {
      return false;
    }
    byte[] address = IpAddresses.parse(t.address());
    if (address == null) {
      return false;
    }
    String canonical = IpAddresses.canonical(address);
    for (String transport : transports(group.protocol())) {
      if (exact.contains(transport + canonical + ":" + t.port())
          || everyAddress.contains(transport + t.port()) && (isWildcard(address) || isLoopback(address)
          || LocalAddresses.ALL.contains(canonical))) {
        return true;
      }
    }
    return false;
  }

  /** How a listener or a group of {@code protocol} carries its traffic: over TCP, UDP or both. */
  private static List<String> transports(Protocol protocol) {
    if (protocol == null || !protocol.carriesUdp()) {
      return TCP;
    }
    return protocol.carriesTcp() ? BOTH : UDP;
  }


  private static boolean isWildcard(byte[] address) {
    for (byte b : address) {
      if (b != 0) {
        return false;
      }
    }
    return true;
  }

  private static boolean isLoopback(byte[] address) {
    try {
      return InetAddress.getByAddress(address).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false; // not 4 or 16 bytes: cannot happen for a parsed literal
    }
  }

  /** This host's interface addresses, read once (the first time a wildcard node needs them). */
  private static final class LocalAddresses {
    static final Set<String> ALL = read();

    private static Set<String> read() {
      Set<String> out = new HashSet<>();
      try {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
          for (InetAddress a : Collections.list(nic.getInetAddresses())) {
            out.add(IpAddresses.canonical(a.getAddress()));
          }
        }
      } catch (SocketException e) {
        // Without the list, only loopback targets count as this host's.
      }
      return Set.copyOf(out);
    }
  }
}
