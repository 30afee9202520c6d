package io.fulcrum.registry;

import io.fulcrum.model.Environment;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.Node;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Resources;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.net.BindException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.channels.DatagramChannel;
import java.nio.channels.NetworkChannel;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether the sockets that an API change adds (a new listener, a listener's new port, a load
 * balancer's new zone) can be bound on this host: when another process holds one, the change is
 * refused ({@code DuplicateListener}) rather than answered with success and the listener then
 * failing to bind, logged where the API's caller does not look. Each socket is bound for a moment
 * and let go; one in use is tried again for up to a second, since a port this process has just
 * let go of (a listener deleted and created again) may be held for that long. A socket that cannot
 * be bound for another reason (an address of another host, as a cluster's other nodes have) is left
 * to the listener, as before.
 */
final class PortProbe {

  static final int ATTEMPTS = 40;
  static final long RETRY_MILLIS = 25;

  /** A socket a listener would bind: {@code path} is the listener's port as the config file names it. */
  record Socket(String path, String address, int port, boolean udp) {

    String key() {
      return (udp ? "udp|" : "tcp|") + address + ":" + port;
    }
  }

  private PortProbe() {
  }

  /** The sockets {@code next}'s listeners bind that {@code before}'s do not. */
  static List<Socket> added(Environment env, Resources before, Resources next) {
    Set<String> held = new HashSet<>();
    sockets(env, before).forEach(s -> held.add(s.key()));
    List<Socket> out = new ArrayList<>();
    for (Socket s : sockets(env, next)) {
      if (held.add(s.key())) {
        out.add(s);
      }
    }
    return out;
  }

  private static List<Socket> sockets(Environment env, Resources resources) {
    List<Socket> out = new ArrayList<>();
    for (int i = 0; i < resources.loadBalancers().size(); i++) {
      LoadBalancer lb = resources.loadBalancers().get(i);
      for (int j = 0; j < lb.listeners().size(); j++) {
        Listener l = lb.listeners().get(j);
        String path = "load-balancers[" + i + "].listeners[" + j + "].port";
        for (Node node : env.nodes()) {
          if (lb.zones().contains(node.zone()) && l.protocol() != null) {
            if (l.protocol() != Protocol.UDP) {
              out.add(new Socket(path, node.address(), l.port(), false));
            }
            if (l.protocol().carriesUdp()) {
              out.add(new Socket(path, node.address(), l.port(), true));
            }
          }
        }
      }
    }
    return out;
  }

  /** A problem for each of {@code sockets} that another process holds; call on an event loop. */
  static Future<List<Problem>> held(Vertx vertx, List<Socket> sockets) {
    List<Future<Problem>> each = new ArrayList<>();
    for (Socket s : sockets) {
      Promise<Problem> p = Promise.promise();
      attempt(vertx, s, ATTEMPTS, p);
      each.add(p.future());
    }
    return Future.all(each).map(all -> {
      List<Problem> out = new ArrayList<>();
      for (Future<Problem> f : each) {
        if (f.result() != null) {
          out.add(f.result());
        }
      }
      return out;
    });
  }

  private static void attempt(Vertx vertx, Socket s, int attemptsLeft, Promise<Problem> done) {
    String refusal = bind(s);
    if (refusal == null) {
      done.complete(null);
    } else if (attemptsLeft > 1) {
      vertx.setTimer(RETRY_MILLIS, t -> attempt(vertx, s, attemptsLeft - 1, done));
    } else {
      done.complete(new Problem(s.path(), "DuplicateListener", "port " + s.port() + " on node " + s.address()
          + " is held by another process (" + refusal + "); a listener needs a port of its own"));
    }
  }

  /** Binds {@code s} for a moment: null when it could be, why not when it is in use or not allowed. */
  private static String bind(Socket s) {
    try (NetworkChannel channel = s.udp() ? DatagramChannel.open() : ServerSocketChannel.open()) {
      channel.setOption(StandardSocketOptions.SO_REUSEADDR, true); // as the listener binds: TIME_WAIT is no holder
      channel.bind(new InetSocketAddress(s.address(), s.port()));
      return null;
    } catch (BindException e) {
      String why = String.valueOf(e.getMessage());
      return why.contains("in use") || why.contains("denied") ? why : null;
    } catch (IOException | RuntimeException e) {
      return null; // not this check's to judge: the listener's bind reports it
    }
  }
}
