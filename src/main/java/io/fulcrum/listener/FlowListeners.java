package io.fulcrum.listener;

import io.fulcrum.balancer.FlowChoice;
import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.Upstream;
import io.fulcrum.bootstrap.CloseAfterRead;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.bus.ListenerTls;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.forward.ProxyProtocolV2;
import io.fulcrum.forward.TargetTls;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Node;
import io.fulcrum.observe.AccessLogs;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.observe.LoopLog;
import io.fulcrum.observe.LoopMeters;
import io.fulcrum.time.Timers;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelConfig;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerAdapter;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.ServerChannel;
import io.netty.handler.ssl.SniCompletionEvent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.internal.net.SslChannelProvider;
import io.vertx.core.net.HostAndPort;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TCP and TLS listeners (and TCP_UDP ones' TCP side) of network load balancers on one event
 * loop (SPEC §2.4, §2.5, §4, DESIGN §7): each accepted connection goes, whole, to one target of its
 * listener's group (or of one of its weighted groups, {@link NetworkForward}), chosen by the flow's
 * hash (or the client's address with {@code source_ip} stickiness) among the targets its zone may
 * use and the loop's passive checks do not pass over ({@link PassiveChecks}), and stays there for
 * its lifetime. A TLS listener ends the client's TLS and, for
 * a TLS group, opens a new session to the target (whose certificate is not checked, as with health
 * checks). Owned by a {@link ListenerVerticle}, which hands it each snapshot: flows to a target the
 * snapshot marks unhealthy are reset, flows to a deregistered target go on after its delay unless
 * {@code deregistration_delay.connection_termination.enabled} ends them.
 *
 * <p>Each loop accepts on its own socket ({@code SO_REUSEPORT}: the kernel spreads connections
 * over the loops' sockets), in plain Netty: a connection is accepted, relayed and closed on one
 * thread, with no socket option set beyond Netty's own ({@code TCP_NODELAY} is on by default for
 * its socket channels). Vert.x's server would hand each connection from its acceptor thread to the
 * loop and set and read four options more; a short flow's cost is mostly its system calls. TLS is
 * Vert.x's own machinery, as for HTTPS listeners: the same certificates, SNI and security policies.
 */
final class FlowListeners {

  private static final Logger LOG = LoggerFactory.getLogger(FlowListeners.class);
  /**
   * How often idle flows are looked for. A flow that carries nothing either way for its listener's
   * {@code tcp.idle_timeout.seconds} (NLB's TCP idle timeout, 350 s by default) is closed within 5 s after.
   */
  static final int IDLE_SWEEP_SECONDS = 5;
  /** How long a client has to finish its TLS handshake (Vert.x's default for its servers). */
  private static final long TLS_HANDSHAKE_SECONDS = 10;
  /** A bootstrap needs a handler; a flow's channel gets its own after registration. */
  private static final ChannelHandler NO_HANDLER = new NoHandler();

  private final Vertx vertx;
  private final LoopMeters meters;
  private final Timers timers;
  /** The process's log writer, this loop's lines, and the data plane's clock (the access log's times). */
  private final AccessLogs accessLogs;
  private final LoopLog log;
  private final Clock clock;
  /** The owning verticle's context: its loop accepts, and timers are set in it. */
  private final ContextInternal context;
  private final int index;
  /** Stands in for the TCP sequence number in the flow hash: this loop's random secret, so a flow's target cannot be foretold. */
  private final long secret;
  /** Makes target connections of this loop's transport; one bootstrap per connect timeout, made on first use. */
  private final ChannelFactory<? extends Channel> channels;
  /** Makes this loop's listening sockets, of the same transport. */
  private final ChannelFactory<? extends ServerChannel> servers;
  private final Map<Integer, Bootstrap> bootstraps = new HashMap<>();
  private final Map<String, Binding> bindings = new LinkedHashMap<>();
  private final Map<String, Set<Flow>> flowsByGroup = new HashMap<>();
  private DataPlaneSnapshot snapshot = DataPlaneSnapshot.EMPTY;
  /** The targets this loop's new flows pass over for a while: they failed connections (NLB's passive checks). */
  private final PassiveChecks passive;
  private Promise<Void> drained;
  /** The idle sweep's timer while flows are open; -1 when none is set. */
  private long sweep = -1;

  /**
   * @param index    which of the process's listener verticles this loop is (without
   *                 {@code SO_REUSEPORT}, only the first accepts)
   * @param channels makes the transport's channels (epoll, io_uring or NIO)
   * @param servers  makes the same transport's listening channels
   * @param log      this loop's access log lines (a TLS listener's connections, when its load
   *                 balancer keeps an access log)
   */
  FlowListeners(Vertx vertx, LoopMeters meters, Timers timers, int index, long secret,
      ChannelFactory<? extends Channel> channels, ChannelFactory<? extends ServerChannel> servers,
      AccessLogs accessLogs, LoopLog log, Clock clock) {
    this.accessLogs = accessLogs;
    this.log = log;
    this.clock = clock;
    this.vertx = vertx;
    this.meters = meters;
    this.timers = timers;
    this.context = (ContextInternal) vertx.getOrCreateContext();
    this.index = index;
    this.secret = secret;
    this.channels = channels;
    this.servers = servers;
    this.passive = new PassiveChecks(clock);
  }

  /**
   * How connections to targets are made on {@code loop} with a connect timeout of
   * {@code connectMillis}: the transport's channels and the pooled allocator ({@code TCP_NODELAY}
   * is Netty's default).
   */
  private Bootstrap bootstrap(EventLoop loop, int connectMillis) {
    Bootstrap b = bootstraps.get(connectMillis);
    if (b == null) {
      b = new Bootstrap().group(loop).channelFactory(channels)
          .option(ChannelOption.ALLOCATOR, DirectForwarder.ALLOCATOR)
          .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
          .handler(NO_HANDLER); // each flow adds its own once registered (Flow.open)
      bootstraps.put(connectMillis, b);
    }
    return b;
  }

  /**
   * Whether {@code plan} is a network load balancer's listener that accepts connections (TCP, TLS
   * and the TCP side of TCP_UDP), served here rather than by the HTTP servers.
   */
  static boolean serves(ListenerPlan plan) {
    return plan.protocol().isNetworkFamily() && plan.protocol().carriesTcp();
  }

  /**
   * Applies a snapshot: ends the flows it says end, binds new listeners and closes removed ones.
   * Completes once every listener of the snapshot accepts connections.
   */
  Future<Void> apply(DataPlaneSnapshot next) {
    DataPlaneSnapshot previous = snapshot;
    snapshot = next;
    endFlows(previous, next);
    passive.forgetSettled();
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
    List<Future<?>> binds = new ArrayList<>();
    for (Iterator<Map.Entry<String, Binding>> it = bindings.entrySet().iterator(); it.hasNext(); ) {
      Binding b = it.next().getValue();
      ListenerPlan plan = desired.get(b.key);
      if (plan == null) {
        // Removed: it stops accepting, and its flows go on until they end or go idle (sooner closed when
        // their group is no longer used).
        it.remove();
        b.close();
        continue;
      }
      if ((plan.tls() == null) != (b.plan.tls() == null)) {
        // Turned from TCP to TLS or back: its flows are closed, and the socket takes the new kind.
        endFlows(b);
      }
      b.update(plan, meters(plan, b.node));
      b.log = lines(plan, b.node);
      if (plan.tls() == null) {
        b.tls = null;
        b.tlsOf = null;
      } else if (!plan.tls().equals(b.tlsOf)) {
        // New certificates or policy: new connections get them once loaded (open ones keep their session).
        b.ready = b.ready.transform(ar -> tls(b, plan.tls()));
      }
      if (!b.ready.isComplete()) {
        binds.add(b.ready);
      }
    }
    for (Map.Entry<String, ListenerPlan> e : desired.entrySet()) {
      if (!bindings.containsKey(e.getKey())) {
        ListenerPlan plan = e.getValue();
        Binding b = new Binding(e.getKey(), nodes.get(e.getKey()), plan.port());
        b.update(plan, meters(plan, b.node));
        b.log = lines(plan, b.node);
        bindings.put(e.getKey(), b);
        Future<?> tls = plan.tls() == null ? Future.succeededFuture() : tls(b, plan.tls());
        // A listener whose certificates cannot be loaded is not kept: the next snapshot tries it afresh.
        b.ready = tls.compose(v -> bind(b)).onFailure(failed -> bindings.remove(b.key, b));
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
        } else if (plan.endsFlowsTo(flow.targetKey())) {
          flow.end(Flow.End.ELB_RESET);
        }
      }
    }
  }

  /** Closes the flows {@code binding} accepted. */
  private void endFlows(Binding binding) {
    for (Set<Flow> flows : List.copyOf(flowsByGroup.values())) {
      for (Flow flow : List.copyOf(flows)) {
        if (flow.listener() == binding) {
          flow.end(Flow.End.CLOSED);
        }
      }
    }
  }

  /**
   * The access log lines of a TLS listener whose network load balancer keeps an access log, at
   * {@code node}, on this loop; null otherwise (NLB logs TLS connections only).
   */
  private LoopLog.Lines lines(ListenerPlan plan, Node node) {
    String bucket = plan.proxy().accessLogBucket();
    if (bucket == null || plan.tls() == null || !accessLogs.writing()) {
      return null;
    }
    return log.lines(LogDestination.of(bucket, plan.proxy().accessLogPrefix(), plan.arn(), node.address()));
  }

  /** Where the bound listeners' access logs go (those that keep one). */
  Set<LogDestination> logDestinations() {
    return bindings.values().stream().filter(b -> b.log != null).map(b -> b.log.destination())
        .collect(Collectors.toSet());
  }

  private LoadBalancerMeters meters(ListenerPlan plan, Node node) {
    return meters.loadBalancer(Arns.loadBalancerDimension(plan.arn()), node.zone());
  }

  /**
   * Makes the TLS handlers of {@code binding}'s new connections from {@code tls}
   * ({@link Tls#flowContext}). Connections already open keep their session.
   */
  private Future<Void> tls(Binding binding, ListenerTls tls) {
    Future<ServedCertificates> certificates = ServedCertificates.load(vertx, tls, binding.plan.arn());
    return Tls.flowContext(vertx, tls, context).compose(provider -> certificates.map(served -> {
      if (bindings.get(binding.key) == binding && tls.equals(binding.plan.tls())) {
        binding.tls = new SslChannelProvider((VertxInternal) vertx, provider, true);
        binding.tlsOf = tls;
        binding.certificates = served;
      }
      return null;
    }));
  }

  /**
   * Binds {@code b}'s socket on this loop ({@link LoopSockets}); a failure fails the snapshot's
   * listeners.
   */
  private Future<Void> bind(Binding b) {
    return LoopSockets.bind(context, index, () -> {
      ServerChannel server = servers.newChannel();
      server.pipeline().addLast(new Acceptor(b));
      return server;
    }, b.address, () -> bindings.get(b.key) == b, "load balancer " + b.plan.lbName() + " cannot listen on " + b.key)
        .map(server -> {
          if (server != null) {
            b.socket = server;
            LOG.debug("listening on {} ({}, {})", b.key, b.plan.protocol(), b.node.zone());
          }
          return (Void) null;
        })
        .onFailure(e -> bindings.values().remove(b));
  }

  /**
   * A client connected and, on a TLS listener, finished its handshake: its flow goes to a target
   * of the group, or it is reset when there is none. {@code client} is registered on this loop.
   */
  private void accept(Binding b, Channel client, TlsFlow tls) {
    LoadBalancerMeters m = b.meters;
    m.flowOpened();
    if (drained != null) {
      m.flowClosed();
      client.close();
      return;
    }
    InetSocketAddress from = (InetSocketAddress) client.remoteAddress();
    byte[] source = from.getAddress().getAddress();
    byte[] destination = b.address.getAddress().getAddress();
    long flowHash = FlowChoice.flowHash(source, from.getPort(), destination, b.address.getPort(), secret);
    long sourceHash = FlowChoice.addressHash(source);
    TargetGroupPlan group = NetworkForward.group(b.forward, snapshot.groups(), flowHash, sourceHash);
    Scope scope = group == null ? null : group.scope(b.node.zone());
    TargetGroupPlan.Flows flows = group == null ? null : group.flows();
    Upstream target = scope == null || flows == null ? null
        : FlowChoice.choose(scope, flowHash, sourceHash, flows.sourceIp(), passive.avoided());
    if (target == null) {
      // Nothing to route to: the connection fails (SPEC §2.5), with a reset as a closed port would.
      m.elbReset();
      m.flowClosed();
      Flow.reset(client);
      return;
    }
    m.group(group.arn()).flow(scope.unhealthyRouting());
    Flow flow = new Flow(this, b, client, group.arn(), target, m, !group.tls() && b.plan.tls() == null, tls);
    flowsByGroup.computeIfAbsent(group.arn(), k -> new LinkedHashSet<>()).add(flow);
    if (sweep < 0) {
      context.dispatch(v -> sweep = timers.setTimer(IDLE_SWEEP_SECONDS * 1000L, this::sweep)); // accepts run outside it
    }
    byte[] header = flows.proxyProtocol()
        ? ProxyProtocolV2.header(source, from.getPort(), destination, b.address.getPort()) : null;
    // A target's certificate is not checked (SPEC §1.5: nor is it by health checks).
    flow.open(bootstrap(client.eventLoop(), b.plan.proxy().connectTimeoutMillis()),
        target.socketAddressFrom(b.node.zone()), group.tls() ? TargetTls.context(Tls.negotiated(client)) : null, header, m.group(group.arn()));
  }


  /** A TLS connection's access log line, when its listener's load balancer keeps an access log. */
  private void logged(Flow flow, TlsFlow tls) {
    Binding b = (Binding) flow.listener();
    if (b.log != null) {
      tls.write(b.log, clock.millis(), b.plan.arn(), (InetSocketAddress) flow.client().remoteAddress(), b.address,
          flow.received(), flow.sent());
    }
  }

  /**
   * Closes the flows that carried nothing either way for the idle timeout; set again while flows
   * are open, and by the first flow after none was.
   */
  private void sweep(long timer) {
    sweep = -1;
    for (Set<Flow> flows : List.copyOf(flowsByGroup.values())) {
      for (Flow flow : List.copyOf(flows)) {
        // The listener's timeout as it is now: a change applies to open flows too.
        int timeout = ((Binding) flow.listener()).plan.attributes().tcpIdleTimeoutSeconds();
        // The first sweep after a flow's last byte finds it quiet already (that byte came less than one sweep
        // period before): one sweep more than the timeout holds makes sure it was idle for all of it.
        int quietSweeps = (timeout + IDLE_SWEEP_SECONDS - 1) / IDLE_SWEEP_SECONDS + 1;
        if (flow.quietSweep() >= quietSweeps) {
          flow.end(Flow.End.CLOSED);
        }
      }
    }
    if (!flowsByGroup.isEmpty()) {
      sweep = timers.setTimer(IDLE_SWEEP_SECONDS * 1000L, this::sweep);
    }
  }

  /**
   * A flow's connection to its target opened ({@code opened}), or was refused or timed out: what
   * the passive checks go by. (A flow whose group has {@code source_ip} stickiness is no exception:
   * its target is its client's whatever, but other flows learn.)
   */
  void connected(Flow flow, boolean opened) {
    if (opened) {
      passive.connected(flow.targetKey());
    } else {
      passive.failed(flow.targetKey());
    }
  }

  /** A flow ended: it is no longer tracked (the counters are the flow's); a TLS one is logged. */
  void ended(Flow flow) {
    if (flow.tls() != null) {
      logged(flow, flow.tls());
    }
    Set<Flow> flows = flowsByGroup.get(flow.group());
    if (flows != null && flows.remove(flow) && flows.isEmpty()) {
      flowsByGroup.remove(flow.group());
    }
    flow.meters().flowClosed();
    // The sweep's timer is left to run out (it is not set again with no flow open): short flows one
    // after another would otherwise set and cancel one each.
    if (drained != null && flowsByGroup.isEmpty()) {
      drained.tryComplete();
    }
  }

  /**
   * Stops accepting; open flows get {@code timeoutMillis} to end by themselves, then are closed.
   */
  Future<Void> drain(long timeoutMillis) {
    drained = Promise.promise();
    bindings.values().forEach(Binding::close);
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
    return drained.future();
  }

  /** One network listener bound on one node address. */
  private static final class Binding extends NetworkBinding {
    /** A TLS listener's access log lines on this loop, while its load balancer keeps an access log. */
    LoopLog.Lines log;
    /** A TLS listener's handlers for new connections, and the settings they were made from. */
    SslChannelProvider tls;
    ListenerTls tlsOf;
    /** Which of its certificates a session was given (the access log's {@code chosen_cert_arn}). */
    ServedCertificates certificates = ServedCertificates.NONE;

    Binding(String key, Node node, int port) {
      super(key, node, port);
    }
  }

  /**
   * Takes each connection the listening socket accepts onto the loop: a cleartext one starts its
   * flow at once; a TLS one after its handshake ({@link Handshake}).
   */
  private final class Acceptor extends ChannelInboundHandlerAdapter {
    private final Binding binding;

    Acceptor(Binding binding) {
      this.binding = binding;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object message) {
      Channel client = (Channel) message;
      ChannelConfig config = client.config();
      config.setAllocator(DirectForwarder.ALLOCATOR);
      SslChannelProvider tls = binding.tls;
      if (binding.plan.tls() != null && tls == null) {
        client.unsafe().closeForcibly(); // turned to TLS, its certificates still loading
        return;
      }
      if (tls != null) {
        CloseAfterRead.installIfNeeded(client); // a failed handshake closes the socket on io_uring too
        InetSocketAddress from = (InetSocketAddress) client.remoteAddress();
        boolean alpn = !binding.tlsOf.alpn().isEmpty();
        TlsFlow logged = binding.log == null ? null : new TlsFlow(System.nanoTime(), clock.millis());
        if (logged != null && alpn) {
          client.pipeline().addLast("client-alpn", new ClientHelloAlpn(logged)); // the log's client preference list
        }
        client.pipeline().addLast("tls", tls.createServerHandler(alpn, TLS_HANDSHAKE_SECONDS, TimeUnit.SECONDS,
            HostAndPort.create(from.getHostString(), from.getPort())));
        client.pipeline().addLast("handshake", new Handshake(binding, logged));
      } else {
        config.setOption(ChannelOption.ALLOW_HALF_CLOSURE, true); // a client's FIN is passed on (see Flow)
      }
      ctx.channel().eventLoop().register(client).addListener(r -> {
        if (!r.isSuccess()) {
          client.unsafe().closeForcibly();
        } else if (tls == null) {
          accept(binding, client, null);
        }
      });
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      // An accept failed (out of file descriptors, say): the socket stops accepting for a second,
      // rather than spinning on the error.
      LOG.warn("{}: accepting a connection failed: {}", binding.key, cause.toString());
      ChannelConfig config = ctx.channel().config();
      if (config.isAutoRead()) {
        config.setAutoRead(false);
        ctx.channel().eventLoop().schedule(() -> config.setAutoRead(true), 1, TimeUnit.SECONDS);
      }
    }
  }

  /**
   * Waits for a TLS client's handshake: its flow starts once the session is up; a failed
   * handshake is counted once in {@code ClientTLSNegotiationErrorCount} and closes the connection.
   */
  private final class Handshake extends ChannelInboundHandlerAdapter {
    private final Binding binding;
    /** The connection's TLS side for the access log, or null. */
    private final TlsFlow tls;
    private boolean failed;

    Handshake(Binding binding, TlsFlow tls) {
      this.binding = binding;
      this.tls = tls;
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object event) {
      if (event instanceof SniCompletionEvent sni && tls != null) {
        tls.serverName = sni.hostname();
      }
      if (event instanceof SslHandshakeCompletionEvent done) {
        if (done.isSuccess()) {
          ctx.pipeline().remove(this);
          SslHandler ssl = ctx.pipeline().get(SslHandler.class);
          if (tls != null && ssl != null) {
            tls.established(ssl, binding.certificates);
          }
          accept(binding, ctx.channel(), tls);
        } else {
          failed(ctx);
        }
        return;
      }
      ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
      if (SocketFailures.tlsFailure(cause)) {
        failed(ctx);
      } else {
        ctx.close();
      }
    }

    private void failed(ChannelHandlerContext ctx) {
      if (!failed) {
        failed = true;
        binding.meters.clientTlsNegotiationError();
      }
      ctx.close();
    }
  }

  /** Does nothing, for every channel (see {@link #NO_HANDLER}). */
  @ChannelHandler.Sharable
  private static final class NoHandler extends ChannelHandlerAdapter {
  }
}
