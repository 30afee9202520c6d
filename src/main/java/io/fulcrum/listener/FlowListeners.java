package io.fulcrum.listener;

import io.fulcrum.balancer.FlowChoice;
import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.forward.ProxyProtocolV2;
import io.fulcrum.forward.TargetTls;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Node;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.observe.LoopMeters;
import io.fulcrum.routing.ForwardRoute;
import io.fulcrum.routing.RouteAction;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.net.NetSocketInternal;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP and TLS listeners of network load balancers on one event loop (SPEC §2.4, §2.5, §4,
 * DESIGN §7): each accepted connection goes, whole, to one target of its listener's group, chosen
 * by the flow's hash (or the client's address with {@code source_ip} stickiness) among the targets
 * its zone may use, and stays there for its lifetime. A TLS listener ends the client's TLS and, for
 * a TLS group, opens a new session to the target (whose certificate is not checked, as with health
 * checks). Owned by a {@link ListenerVerticle}, which hands it each snapshot: flows to a target the
 * snapshot marks unhealthy are reset, flows to a deregistered target go on after its delay unless
 * {@code deregistration_delay.connection_termination.enabled} ends them.
 */
final class FlowListeners {

  private static final Logger LOG = LoggerFactory.getLogger(FlowListeners.class);
  /** How long a flow may carry nothing either way before it is closed: NLB's TCP idle timeout. */
  static final int IDLE_TIMEOUT_SECONDS = 350;
  private static final int BIND_ATTEMPTS = 40;
  /** A bootstrap needs a handler; a flow's channel gets its own after registration. */
  private static final ChannelHandler NO_HANDLER = new NoHandler();
  private static final long BIND_RETRY_MILLIS = 25;

  private final Vertx vertx;
  private final LoopMeters meters;
  private final SocketHandover handover;
  private final int index;
  /** Stands in for the TCP sequence number in the flow hash: this loop's random secret, so a flow's target cannot be foretold. */
  private final long secret;
  /** Makes target connections of this loop's transport; one bootstrap per connect timeout, made on first use. */
  private final ChannelFactory<? extends Channel> channels;
  private final Map<Integer, Bootstrap> bootstraps = new HashMap<>();
  private final Map<String, Binding> bindings = new LinkedHashMap<>();
  private final Map<String, Set<Flow>> flowsByGroup = new HashMap<>();
  private DataPlaneSnapshot snapshot = DataPlaneSnapshot.EMPTY;
  private Promise<Void> drained;

  FlowListeners(Vertx vertx, LoopMeters meters, SocketHandover handover, int index, long secret,
      ChannelFactory<? extends Channel> channels) {
    this.vertx = vertx;
    this.meters = meters;
    this.handover = handover;
    this.index = index;
    this.secret = secret;
    this.channels = channels;
  }

  /**
   * How connections to targets are made on {@code loop} with a connect timeout of
   * {@code connectMillis}: the transport's channels, the pooled allocator, {@code TCP_NODELAY}.
   * (A flow's idle timeout is its client side's: the bytes of both directions cross it.)
   */
  private Bootstrap bootstrap(EventLoop loop, int connectMillis) {
    Bootstrap b = bootstraps.get(connectMillis);
    if (b == null) {
      b = new Bootstrap().group(loop).channelFactory(channels)
          .option(ChannelOption.ALLOCATOR, DirectForwarder.ALLOCATOR)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
          .option(ChannelOption.TCP_NODELAY, true)
          .handler(NO_HANDLER); // each flow adds its own once registered (Flow.open)
      bootstraps.put(connectMillis, b);
    }
    return b;
  }

  /** Whether {@code plan} is a network load balancer's listener, served here rather than by the HTTP servers. */
  static boolean serves(ListenerPlan plan) {
    return plan.protocol().isNetworkFamily();
  }

  /**
   * Applies a snapshot: ends the flows it says end, binds new listeners and closes removed ones.
   * Completes once every listener of the snapshot accepts connections.
   */
  Future<Void> apply(DataPlaneSnapshot next) {
    DataPlaneSnapshot previous = snapshot;
    snapshot = next;
    endFlows(previous, next);
    Map<String, ListenerPlan> desired = new LinkedHashMap<>();
    Map<String, Node> nodes = new HashMap<>();
    for (ListenerPlan plan : next.listeners()) {
      if (!serves(plan)) {
        continue;
      }
      for (Node node : plan.nodes()) {
        String key = node.address() + ":" + plan.port();
        desired.put(key, plan);
        nodes.put(key, node);
      }
    }
    long version = next.version();
    List<Future<?>> binds = new ArrayList<>();
    Map<String, Future<?>> handovers = new HashMap<>();
    for (Iterator<Map.Entry<String, Binding>> it = bindings.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Binding> e = it.next();
      Binding b = e.getValue();
      ListenerPlan plan = desired.get(e.getKey());
      if (plan == null || (plan.tls() == null) != (b.plan.tls() == null)) {
        // Removed: it stops accepting, and its flows go on for up to the idle timeout (sooner closed when
        // their group is no longer used). Turned from TCP to TLS or back: closed with its flows, and the new
        // kind binds once every loop's old server is gone (see SocketHandover).
        it.remove();
        String socket = e.getKey();
        Future<Void> closed = b.ready.transform(ar -> b.server == null ? Future.succeededFuture()
                : plan == null ? b.server.shutdown(IDLE_TIMEOUT_SECONDS, TimeUnit.SECONDS) : b.server.close())
            .onComplete(ar -> handover.released(socket, index, version));
        if (plan != null) {
          handovers.put(socket, closed.transform(ar -> handover.await(vertx, socket, version)));
        }
        continue;
      }
      if (plan.tls() != null && !plan.tls().equals(b.plan.tls()) && b.server != null) {
        binds.add(b.server.updateSSLOptions(Tls.sslOptions(plan.tls()), true));
      }
      b.update(plan, meters(plan, b.node));
      if (!b.ready.isComplete()) {
        binds.add(b.ready);
      }
    }
    for (Map.Entry<String, ListenerPlan> e : desired.entrySet()) {
      if (!bindings.containsKey(e.getKey())) {
        Binding b = new Binding(nodes.get(e.getKey()));
        b.update(e.getValue(), meters(e.getValue(), b.node));
        bindings.put(e.getKey(), b);
        Future<?> handedOver = handovers.get(e.getKey());
        b.ready = handedOver == null ? bind(b, BIND_ATTEMPTS) : handedOver.transform(ar -> bind(b, BIND_ATTEMPTS));
        binds.add(b.ready);
      }
    }
    return Future.join(binds).mapEmpty();
  }

  /**
   * Ends the flows whose group's plan changed to say so: reset those to a target now unhealthy
   * (with termination on, or after its draining interval), reset those to a target whose
   * deregistration delay ended when the group terminates them, close those whose group no load
   * balancer uses any more.
   */
  private void endFlows(DataPlaneSnapshot previous, DataPlaneSnapshot next) {
    for (Map.Entry<String, Set<Flow>> e : List.copyOf(flowsByGroup.entrySet())) {
      TargetGroupPlan plan = next.groups().get(e.getKey());
      if (plan == previous.groups().get(e.getKey())) {
        continue;
      }
      for (Flow flow : List.copyOf(e.getValue())) {
        if (plan == null || plan.flows() == null) {
          flow.end(Flow.End.CLOSED);
        } else if (plan.flows().cut().contains(flow.targetKey())
            || !plan.keepsInFlight(flow.targetKey()) && plan.flows().endDeregistered()) {
          flow.end(Flow.End.ELB_RESET);
        }
      }
    }
  }

  private LoadBalancerMeters meters(ListenerPlan plan, Node node) {
    return meters.loadBalancer(Arns.loadBalancerDimension(plan.arn()), node.zone());
  }

  private Future<NetServer> bind(Binding b, int attemptsLeft) {
    ListenerPlan plan = b.plan;
    NetServerOptions options = new NetServerOptions()
        .setHost(b.node.address())
        .setPort(plan.port())
        .setTcpNoDelay(true)
        .setIdleTimeout(IDLE_TIMEOUT_SECONDS)
        .setIdleTimeoutUnit(TimeUnit.SECONDS);
    if (plan.tls() != null) {
      Tls.configure(options, plan.tls());
    }
    NetServer server = vertx.createNetServer(options);
    server.connectHandler(socket -> accept(b, socket));
    if (plan.tls() != null) {
      server.exceptionHandler(e -> {
        if (ListenerVerticle.tlsFailure(e)) {
          b.meters.clientTlsNegotiationError();
        }
      });
    }
    b.server = server;
    return server.listen()
        .onSuccess(s -> LOG.debug("listening on {}:{} ({}, {})", b.node.address(), plan.port(), plan.protocol(),
            b.node.zone()))
        .recover(e -> {
          String key = b.node.address() + ":" + plan.port();
          if (attemptsLeft > 1 && bindings.get(key) == b && ListenerVerticle.addressInUse(e)) {
            Promise<NetServer> retry = Promise.promise();
            vertx.setTimer(BIND_RETRY_MILLIS, t -> bind(b, attemptsLeft - 1).onComplete(retry));
            return retry.future();
          }
          bindings.values().remove(b);
          return Future.failedFuture(new IllegalStateException("load balancer " + plan.lbName() + " cannot listen on "
              + key + ": " + e.getMessage(), e));
        });
  }

  /** A client connected: its flow goes to a target of the group, or is reset when there is none. */
  private void accept(Binding b, NetSocket socket) {
    // Not paused: Flow takes the socket's reads itself before any can come, and holds them until the target answers.
    Channel channel = ((NetSocketInternal) socket).channelHandlerContext().channel();
    channel.config().setAllocator(DirectForwarder.ALLOCATOR);
    LoadBalancerMeters m = b.meters;
    m.flowOpened();
    if (drained != null) {
      m.flowClosed();
      socket.close();
      return;
    }
    TargetGroupPlan group = b.group == null ? null : snapshot.groups().get(b.group);
    Scope scope = group == null ? null : group.scope(b.node.zone());
    InetSocketAddress from = (InetSocketAddress) channel.remoteAddress();
    InetSocketAddress to = (InetSocketAddress) channel.localAddress();
    byte[] source = from.getAddress().getAddress();
    byte[] destination = to.getAddress().getAddress();
    TargetGroupPlan.Flows flows = group == null ? null : group.flows();
    Upstream target = scope == null || flows == null ? null
        : FlowChoice.choose(scope, FlowChoice.flowHash(source, from.getPort(), destination, to.getPort(), secret),
            FlowChoice.addressHash(source), flows.sourceIp());
    if (target == null) {
      // Nothing to route to: the connection fails (SPEC §2.5), with a reset as a closed port would.
      m.elbReset();
      m.flowClosed();
      Flow.reset(socket);
      return;
    }
    m.group(group.arn()).flow(scope.unhealthyRouting());
    Flow flow = new Flow(this, socket, group.arn(), target, m, !group.tls());
    flowsByGroup.computeIfAbsent(group.arn(), k -> new LinkedHashSet<>()).add(flow);
    byte[] header = flows.proxyProtocol()
        ? ProxyProtocolV2.header(source, from.getPort(), destination, to.getPort()) : null;
    // A target's certificate is not checked (SPEC §1.5: nor is it by health checks).
    flow.open(bootstrap(channel.eventLoop(), b.plan.proxy().connectTimeoutMillis()),
        group.tls() ? TargetTls.context(true) : null, header, m.group(group.arn()));
  }

  /** A flow ended: it is no longer tracked (the counters are the flow's). */
  void ended(Flow flow) {
    Set<Flow> flows = flowsByGroup.get(flow.group());
    if (flows != null && flows.remove(flow) && flows.isEmpty()) {
      flowsByGroup.remove(flow.group());
    }
    flow.meters().flowClosed();
    if (drained != null && flowsByGroup.isEmpty()) {
      drained.tryComplete();
    }
  }

  /**
   * Stops accepting; open flows get {@code timeoutMillis} to end by themselves, then are closed.
   */
  Future<Void> drain(long timeoutMillis) {
    drained = Promise.promise();
    List<Future<?>> closes = new ArrayList<>();
    for (Binding b : bindings.values()) {
      if (b.server != null) {
        // Stops accepting; its connections are left to the flows (Vert.x closes what is left at the timeout).
        closes.add(b.server.shutdown(Math.max(1, timeoutMillis), TimeUnit.MILLISECONDS));
      }
    }
    bindings.clear();
    if (flowsByGroup.isEmpty()) {
      drained.tryComplete();
    } else {
      long timer = vertx.setTimer(Math.max(1, timeoutMillis), t -> {
        for (Set<Flow> flows : List.copyOf(flowsByGroup.values())) {
          List.copyOf(flows).forEach(f -> f.end(Flow.End.CLOSED));
        }
        drained.tryComplete();
      });
      drained.future().onComplete(ar -> vertx.cancelTimer(timer));
    }
    return Future.join(closes).transform(ar -> drained.future());
  }

  /** One network listener bound on one node address. */
  private static final class Binding {
    final Node node;
    ListenerPlan plan;
    /** The group its default action forwards to. */
    String group;
    LoadBalancerMeters meters;
    NetServer server;
    Future<?> ready = Future.succeededFuture();

    Binding(Node node) {
      this.node = node;
    }

    void update(ListenerPlan plan, LoadBalancerMeters meters) {
      this.plan = plan;
      this.meters = meters;
      this.group = null;
      for (RouteAction a : plan.routes().actions()) {
        if (a instanceof ForwardRoute f && f.groupCount() > 0) {
          group = f.arnAt(0);
        }
      }
    }
  }

  /** Does nothing, for every channel (see {@link #NO_HANDLER}). */
  @ChannelHandler.Sharable
  private static final class NoHandler extends ChannelHandlerAdapter {
  }
}
