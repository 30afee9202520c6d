package io.fulcrum.listener;

import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.model.Node;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.routing.ForwardRoute;
import io.netty.channel.Channel;
import io.vertx.core.Future;
import java.net.InetSocketAddress;

/**
 * A network load balancer's listener bound on one node address by one event loop: what
 * {@link FlowListeners} (TCP and TLS) and {@link DatagramListeners} (UDP) keep of it. Touched only
 * on its loop.
 */
abstract class NetworkBinding {

  /** {@code address:port}: the same listener's bindings on every loop share it. */
  final String key;
  final Node node;
  /** The node's address and the listener's port: where clients connect, or send to. */
  final InetSocketAddress address;
  ListenerPlan plan;
  /** Its default action: the group, or the weighted groups, it forwards to. */
  ForwardRoute forward;
  LoadBalancerMeters meters;
  /** This loop's socket, once bound; null before, and on loops that bind none. */
  Channel socket;
  /** Completes once the socket is bound (or this loop binds none). */
  Future<?> ready = Future.succeededFuture();

  NetworkBinding(String key, Node node, int port) {
    this.key = key;
    this.node = node;
    this.address = new InetSocketAddress(node.address(), port);
  }

  /** The listener's plan as the snapshot has it now, and its meters at this node. */
  void update(ListenerPlan plan, LoadBalancerMeters meters) {
    this.plan = plan;
    this.meters = meters;
    this.forward = NetworkForward.of(plan);
  }

  /** Stops taking connections or datagrams on this loop (other loops' sockets are theirs). */
  void close() {
    if (socket != null) {
      socket.close();
      socket = null;
    }
  }
}
