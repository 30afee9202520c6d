package io.fulcrum.listener;

import io.fulcrum.balancer.FlowChoice;
import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Node;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.observe.LoopMeters;
import io.fulcrum.time.Timers;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.FixedRecvByteBufAllocator;
import io.netty.channel.socket.DatagramChannel;
import io.netty.channel.socket.DatagramPacket;
import io.netty.channel.socket.InternetProtocolFamily;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.spi.transport.Transport;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The UDP listeners of network load balancers on one event loop (UDP, and the UDP side of
 * TCP_UDP; SPEC §2.4, DESIGN §7). A flow is the datagrams of one client address and port: its
 * first datagram chooses a target of the listener's group by the flow's hash (or the client's
 * address, with {@code source_ip} stickiness), as for TCP, and every datagram of the flow goes to
 * that target, over a socket of the flow's own connected to it ({@link DatagramFlow}); the target's
 * answers go back to the client from the listener's address. A flow with no datagram either way
 * for {@value #IDLE_TIMEOUT_SECONDS} s (NLB's UDP idle timeout, fixed) is forgotten, and so is one
 * whose target's deregistration delay ended (with {@code deregistration_delay.connection_termination}
 * on, the default for UDP groups); the client's next datagram starts a new flow. A flow to a
 * target that became unhealthy goes on (NLB does not end UDP flows on health), and new flows go
 * to healthy targets.
 *
 * <p>Each loop binds its own socket ({@code SO_REUSEPORT}: the kernel hashes each client's
 * datagrams to one of them, so a flow stays on one loop); without it only the first loop's binds.
 * Owned by a {@link ListenerVerticle}, which hands it each snapshot.
 */
final class DatagramListeners {

  private static final Logger LOG = LoggerFactory.getLogger(DatagramListeners.class);
  /** NLB's idle timeout for UDP flows (not configurable on AWS). */
  static final int IDLE_TIMEOUT_SECONDS = 120;
  /** How often idle flows are looked for: a flow is forgotten up to this much after its idle timeout. */
  static final int IDLE_SWEEP_SECONDS = 5;
  /**
   * The largest datagram read whole (the most a UDP datagram over IPv4 carries); each is copied
   * into a buffer of its own size before it is passed on.
   */
  static final int MAX_DATAGRAM = 65_535;
  /**
   * The receive buffer asked for a listener's socket: what a burst of datagrams (new clients'
   * first ones, each opening a flow) waits in. The kernel caps it at {@code net.core.rmem_max}
   * (212,992 bytes on a stock kernel), so raising that sysctl is what makes room.
   */
  static final int RECEIVE_BUFFER = 4 << 20;

  private final Vertx vertx;
  private final LoopMeters meters;
  private final Timers timers;
  private final ContextInternal context;
  private final int index;
  /** This loop's random secret in the flow hash (see {@link FlowListeners}). */
  private final long secret;
  private final Transport transport;
  private final Map<String, Binding> bindings = new LinkedHashMap<>();
  private final Map<String, Set<DatagramFlow>> flowsByGroup = new HashMap<>();
  private DataPlaneSnapshot snapshot = DataPlaneSnapshot.EMPTY;
  private boolean draining;
  /** The idle sweep's timer while flows are open; -1 when none is set. */
  private long sweep = -1;

  DatagramListeners(Vertx vertx, LoopMeters meters, Timers timers, int index, long secret, Transport transport) {
    this.vertx = vertx;
    this.meters = meters;
    this.timers = timers;
    this.context = (ContextInternal) vertx.getOrCreateContext();
    this.index = index;
    this.secret = secret;
    this.transport = transport;
  }

  /** Whether {@code plan} takes datagrams: a network load balancer's UDP or TCP_UDP listener. */
  static boolean serves(ListenerPlan plan) {
    return plan.protocol().isNetworkFamily() && plan.protocol().carriesUdp();
  }

  /**
   * Applies a snapshot: forgets the flows it says end, binds new listeners and closes removed ones.
   * Completes once every UDP listener of the snapshot takes datagrams.
   */
  Future<Void> apply(DataPlaneSnapshot next) {
    DataPlaneSnapshot previous = snapshot;
    snapshot = next;
    endFlows(previous, next);
    Map<String, ListenerPlan> desired = new LinkedHashMap<>();
    Map<String, Node> nodes = new HashMap<>();
    for (ListenerPlan plan : next.listeners()) {
      if (serves(plan)) {
        for (Node node : plan.nodes()) {
          String key = node.address() + ":" + plan.port();
          desired.put(key, plan);
          nodes.put(key, node);
        }
      }
    }
    List<Future<?>> binds = new ArrayList<>();
    for (Iterator<Binding> it = bindings.values().iterator(); it.hasNext(); ) {
      Binding b = it.next();
      ListenerPlan plan = desired.get(b.key);
      if (plan == null) {
        it.remove();
        b.close(); // its flows can no longer answer their clients: forgotten with it
        List.copyOf(b.flows.values()).forEach(DatagramFlow::end);
      } else {
        b.update(plan, meters(plan, b.node));
        if (!b.ready.isComplete()) {
          binds.add(b.ready);
        }
      }
    }
    for (Map.Entry<String, ListenerPlan> e : desired.entrySet()) {
      if (!bindings.containsKey(e.getKey())) {
        ListenerPlan plan = e.getValue();
        Binding b = new Binding(e.getKey(), nodes.get(e.getKey()), plan.port());
        b.update(plan, meters(plan, b.node));
        bindings.put(b.key, b);
        b.ready = bind(b);
        binds.add(b.ready);
      }
    }
    return Future.join(binds).mapEmpty();
  }

  /**
   * Forgets the flows whose group's plan changed to say so: those to a target the plan cuts, those
   * to a target whose deregistration delay ended when the group ends them, and every flow of a
   * group no load balancer uses any more.
   */
  private void endFlows(DataPlaneSnapshot previous, DataPlaneSnapshot next) {
    for (Map.Entry<String, Set<DatagramFlow>> e : List.copyOf(flowsByGroup.entrySet())) {
      TargetGroupPlan plan = next.groups().get(e.getKey());
      if (plan == previous.groups().get(e.getKey())) {
        continue;
      }
      for (DatagramFlow flow : List.copyOf(e.getValue())) {
        if (plan == null || plan.flows() == null || plan.endsFlowsTo(flow.targetKey())) {
          flow.end();
        }
      }
    }
  }

  private LoadBalancerMeters meters(ListenerPlan plan, Node node) {
    return meters.loadBalancer(Arns.loadBalancerDimension(plan.arn()), node.zone());
  }

  /**
   * Binds {@code b}'s socket on this loop ({@link LoopSockets}); a failure fails the snapshot's
   * listeners.
   */
  private Future<Void> bind(Binding b) {
    return LoopSockets.bind(context, index, () -> {
      DatagramChannel socket = socket(b.address.getAddress());
      socket.config().setReceiveBufferSize(RECEIVE_BUFFER);
      socket.pipeline().addLast("datagrams", new Receiver(b));
      return socket;
    }, b.address, () -> bindings.get(b.key) == b, "load balancer " + b.plan.lbName() + " cannot listen on "
        + b.key + "/udp")
        .map(socket -> {
          if (socket != null) {
            b.socket = socket;
            LOG.debug("listening on {}/udp ({}, {})", b.key, b.plan.protocol(), b.node.zone());
          }
          return (Void) null;
        })
        .onFailure(e -> bindings.values().remove(b));
  }

  /**
   * A datagram socket of this loop's transport for {@code address}'s family, reading each datagram
   * whole ({@link #MAX_DATAGRAM}) into the pooled allocator's buffers.
   */
  private DatagramChannel socket(InetAddress address) {
    DatagramChannel socket = transport.datagramChannel(
        address instanceof Inet6Address ? InternetProtocolFamily.IPv6 : InternetProtocolFamily.IPv4);
    socket.config().setAllocator(DirectForwarder.ALLOCATOR);
    socket.config().setRecvByteBufAllocator(new FixedRecvByteBufAllocator(MAX_DATAGRAM));
    return socket;
  }

  /**
   * A datagram from {@code client} reached {@code b}: to its flow's target, or to a new flow's.
   * Dropped when there is no target to take it (there is no connection to refuse).
   */
  private void received(Binding b, InetSocketAddress client, ByteBuf data) {
    DatagramFlow flow = b.flows.get(client);
    if (flow == null) {
      flow = open(b, client);
      if (flow == null) {
        data.release();
        return;
      }
    }
    if (flow.fromClient(data)) {
      b.unflushed.add(flow);
    }
  }

  /** A new flow from {@code client}, its target chosen and its socket opening; null when none may take it. */
  private DatagramFlow open(Binding b, InetSocketAddress client) {
    if (draining) {
      return null;
    }
    byte[] source = client.getAddress().getAddress();
    long flowHash = FlowChoice.flowHash(FlowChoice.UDP, source, client.getPort(), b.address.getAddress().getAddress(),
        b.address.getPort(), secret);
    long sourceHash = FlowChoice.addressHash(source);
    TargetGroupPlan group = NetworkForward.group(b.forward, snapshot.groups(), flowHash, sourceHash);
    Scope scope = group == null ? null : group.scope(b.node.zone());
    TargetGroupPlan.Flows flows = group == null ? null : group.flows();
    if (scope == null || flows == null) {
      return null;
    }
    Upstream target = FlowChoice.choose(scope, flowHash, sourceHash, flows.sourceIp());
    if (target == null) {
      return null;
    }
    LoadBalancerMeters m = b.meters;
    m.udpFlowOpened();
    m.group(group.arn()).flow(scope.unhealthyRouting());
    DatagramFlow flow = new DatagramFlow(this, b, client, group.arn(), target, m, m.group(group.arn()));
    b.flows.put(client, flow);
    flowsByGroup.computeIfAbsent(group.arn(), k -> new LinkedHashSet<>()).add(flow);
    if (sweep < 0) {
      // Datagrams are read on the loop outside the verticle's context: the timer is set in it.
      context.dispatch(v -> sweep = timers.setTimer(IDLE_SWEEP_SECONDS * 1000L, this::sweep));
    }
    flow.open(socket(target.socketAddress().getAddress()), context.nettyEventLoop());
    return flow;
  }

  /** Forgets the flows that saw no datagram for the idle timeout; set again while flows are open. */
  private void sweep(long timer) {
    sweep = -1;
    // A flow's last datagram came at most one sweep period before the first quiet sweep: one sweep
    // more than the timeout holds makes sure it was idle for the whole timeout.
    int quietSweeps = IDLE_TIMEOUT_SECONDS / IDLE_SWEEP_SECONDS + 1;
    for (Set<DatagramFlow> flows : List.copyOf(flowsByGroup.values())) {
      for (DatagramFlow flow : List.copyOf(flows)) {
        if (flow.quietSweep() >= quietSweeps) {
          flow.end();
        }
      }
    }
    if (!flowsByGroup.isEmpty()) {
      sweep = timers.setTimer(IDLE_SWEEP_SECONDS * 1000L, this::sweep);
    }
  }

  /** A flow ended: it is no longer tracked. */
  void ended(DatagramFlow flow) {
    flow.listener().flows.remove(flow.client(), flow);
    Set<DatagramFlow> flows = flowsByGroup.get(flow.group());
    if (flows != null && flows.remove(flow) && flows.isEmpty()) {
      flowsByGroup.remove(flow.group());
    }
    flow.meters().udpFlowClosed();
  }

  /** Stops taking datagrams and forgets every flow (a datagram flow has nothing to finish). */
  Future<Void> drain() {
    draining = true;
    bindings.values().forEach(Binding::close);
    bindings.clear();
    for (Set<DatagramFlow> flows : List.copyOf(flowsByGroup.values())) {
      List.copyOf(flows).forEach(DatagramFlow::end);
    }
    if (sweep >= 0) {
      timers.cancelTimer(sweep);
      sweep = -1;
    }
    return Future.succeededFuture();
  }

  /** {@code data} in a buffer of its own size (a read fills one of {@link #MAX_DATAGRAM} bytes); takes {@code data}. */
  static ByteBuf exact(ByteBuf data) {
    try {
      return data.alloc().directBuffer(data.readableBytes()).writeBytes(data);
    } finally {
      data.release();
    }
  }

  /** One UDP listener bound on one node address, and the flows its socket on this loop took. */
  static final class Binding extends NetworkBinding {
    final Map<InetSocketAddress, DatagramFlow> flows = new HashMap<>();
    /** The flows this socket's current read wrote to, flushed when the read is done. */
    final List<DatagramFlow> unflushed = new ArrayList<>();

    Binding(String key, Node node, int port) {
      super(key, node, port);
    }

    /**
     * Writes {@code data} to {@code client} from the listener's address, to go out at the next
     * {@link #flush}; false (and {@code data} released) when the socket is closed or its buffer full.
     */
    boolean send(ByteBuf data, InetSocketAddress client) {
      Channel s = socket;
      if (s == null || !s.isActive() || !s.isWritable()) {
        data.release();
        return false;
      }
      s.write(new DatagramPacket(data, client), s.voidPromise());
      return true;
    }

    void flush() {
      Channel s = socket;
      if (s != null) {
        s.flush();
      }
    }

    /** The socket read what it could: the datagrams written to each flow's target go out. */
    void flushFlows() {
      for (int i = 0; i < unflushed.size(); i++) {
        unflushed.get(i).flush();
      }
      unflushed.clear();
    }

  }

  /** Takes each datagram the listening socket reads. */
  private final class Receiver extends ChannelInboundHandlerAdapter {
    private final Binding binding;

    Receiver(Binding binding) {
      this.binding = binding;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      DatagramPacket packet = (DatagramPacket) message;
      received(binding, packet.sender(), exact(packet.content()));
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
      binding.flushFlows();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      LOG.debug("{}/udp: {}", binding.key, cause.toString()); // one datagram's error: the socket goes on
    }
  }
}
