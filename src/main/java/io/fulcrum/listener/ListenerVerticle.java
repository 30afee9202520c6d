package io.fulcrum.listener;

import io.fulcrum.balancer.Scope;
import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.balancer.TargetSelector;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.bus.ExchangeOutcomes;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Node;
import io.fulcrum.model.ProtocolVersion;
import io.fulcrum.observe.AccessLogs;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.observe.LoopLog;
import io.fulcrum.observe.LoopMeters;
import io.fulcrum.observe.Meters;
import io.fulcrum.sticky.KeyRing;
import io.fulcrum.sticky.Stickiness;
import io.fulcrum.time.Timers;
import io.fulcrum.time.VertxTimers;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.Http1xServerConnection;
import io.vertx.core.http.impl.Http2ServerConnection;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.impl.ConnectionBase;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.random.RandomGenerator;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Serves every listener on every node address. Deployed once per event loop; each instance binds
 * the same addresses (Vert.x spreads connections over the instances) and keeps its own snapshot
 * reference, selectors, random and HTTP client, all touched only on its own loop.
 *
 * <p>A new {@link DataPlaneSnapshot} is applied by swapping one field; servers are bound for new
 * listeners and shut down gracefully for removed ones, while every other connection, keep-alive
 * included, stays open.
 */
public final class ListenerVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ListenerVerticle.class);

  /** ALB's request line and header limits (SPEC §8.5). */
  static final int MAX_REQUEST_LINE = 16 * 1024;
  static final int MAX_HEADER_LINE = 16 * 1024;
  static final int MAX_HEADERS = 64 * 1024;
  /** ALB's limit of parallel requests on one HTTP/2 client connection (SPEC §7.3). */
  static final int MAX_CONCURRENT_STREAMS = 128;
  /**
   * Rapid-reset protection (CVE-2023-44487): an HTTP/2 client connection that resets more streams
   * than this within {@link #RST_FLOOD_WINDOW_SECONDS} is ended with GOAWAY ENHANCE_YOUR_CALM. The
   * values are Netty's and Vert.x's defaults, set here so that they cannot silently go away; a
   * flood costs each connection at most this many streams of work (RapidResetTest measures it),
   * while a client cancelling a few calls a second (gRPC deadlines, navigation) stays connected.
   */
  static final int RST_FLOOD_MAX_RESETS = 200;
  static final int RST_FLOOD_WINDOW_SECONDS = 30;
  /** How much longer than the target's timeouts a client connection may sit mid-request. */
  static final long STALLED_REQUEST_MARGIN_MILLIS = 1000;
  /** The name of Vert.x's connection handler in an HTTP/1.x pipeline. */
  private static final String VERTX_HANDLER = "handler";
  private static final int BIND_ATTEMPTS = 40;
  private static final long BIND_RETRY_MILLIS = 25;
  /** How much longer than its own drain a stopping verticle waits for the others' (see SocketHandover). */
  private static final long DEPARTURE_MARGIN_MILLIS = 1_000;

  private final Clock clock;
  private final RandomGenerator random;
  private final LongSupplier drainMillis;
  private final AtomicLong applied;
  private final SocketHandover handover;
  private final int index;
  /** The timers of client connections' lives ({@code client_keep_alive.seconds}); Vert.x's when null. */
  private Timers timers;
  private final Map<String, Binding> bindings = new LinkedHashMap<>();
  private final Map<String, GroupRuntime> groups = new HashMap<>();
  /** This loop's client connections and their idle timers. */
  private final Map<HttpConnection, ClientConnection> clients = new HashMap<>();
  private DataPlaneSnapshot snapshot = DataPlaneSnapshot.EMPTY;
  private final InFlight inFlight = new InFlight(this::outcomesListened, this::outcome);
  /** This loop's counters, which {@code /metrics} adds up with the other loops'. */
  private final LoopMeters meters = new LoopMeters();
  private Runnable unregisterMeters = () -> { };
  /** The access log's lines of this loop; they go to the writer (see {@link AccessLogs}). */
  private AccessLogs accessLogs;
  private LoopLog log;
  private Runnable unregisterLog = () -> { };
  /** Who consumes outcomes; nothing is built or published for an exchange while nobody does. */
  private ExchangeOutcomes outcomes;
  private HttpForwarder forwarder;
  /**
   * The direct path's forwarder: its connections carry every request to an HTTP/1.1 target, and
   * its lanes take the common requests off client connections when {@link #lanes} is on.
   */
  private DirectForwarder direct;
  /** Whether client connections get the direct path's lanes ({@link #directPath}). */
  private boolean lanes;
  private Stickiness stickiness;
  private RequestHandler handler;
  private DirectRequests directRequests;
  /** The network load balancers' TCP and TLS listeners on this loop. */
  private FlowListeners flows;
  private boolean draining;

  /**
   * @param clock  the time source (trace ids; later slow start and stickiness)
   * @param random this instance's random source (weighted choices, trace ids)
   * @param drainMillis how long in-flight requests may finish when the verticle stops
   * @param applied     where this instance records the snapshot version it routes by
   */
  public ListenerVerticle(Clock clock, RandomGenerator random, LongSupplier drainMillis, AtomicLong applied) {
    this(clock, random, drainMillis, applied, new SocketHandover(1), 0, null);
  }

  /**
   * @param handover shared by every listener verticle of the process, which is instance
   *                 {@code index} of them, to hand a socket over when a listener changes kind
   * @param timers   the timers of client connections' lives (the process's; a virtual clock in
   *                 tests), or null for Vert.x's
   */
  public ListenerVerticle(Clock clock, RandomGenerator random, LongSupplier drainMillis, AtomicLong applied,
      SocketHandover handover, int index, Timers timers) {
    this.timers = timers;
    this.clock = clock;
    this.random = random;
    this.drainMillis = drainMillis;
    this.applied = applied;
    this.handover = handover;
    this.index = index;
  }

  @Override
  public Future<?> start() {
    outcomes = ExchangeOutcomes.of(vertx);
    if (timers == null) {
      timers = new VertxTimers(vertx, clock);
    }
    unregisterMeters = Meters.of(vertx).register(context, meters);
    accessLogs = AccessLogs.of(vertx);
    log = accessLogs.newLoop();
    unregisterLog = accessLogs.register(context, log);
    direct = new DirectForwarder(((VertxInternal) vertx).transport().channelFactory(false));
    lanes = directPath();
    forwarder = new HttpForwarder(vertx, direct);
    // Nonces of this loop's stickiness cookies start at a random point (see CookieCodec).
    stickiness = new Stickiness(new SecureRandom());
    Dispatcher dispatcher = new Dispatcher(this, stickiness, clock, random);
    handler = new RequestHandler(this, forwarder, dispatcher, clock, random);
    directRequests = new DirectRequests(this, direct, dispatcher, clock);
    flows = new FlowListeners(vertx, meters, timers, index, random.nextLong(),
        ((VertxInternal) vertx).transport().channelFactory(false),
        ((VertxInternal) vertx).transport().serverChannelFactory(false));
    MessageConsumer<KeyRing> keys = vertx.eventBus().localConsumer(Addresses.STICKINESS_KEYS,
        m -> stickiness.keys(m.body()));
    vertx.eventBus().<String>localConsumer(Addresses.OPTIMIZER_CREDITS, m -> handler.optimizerCredits(m.body()));
    MessageConsumer<DataPlaneSnapshot> updates = vertx.eventBus().localConsumer(Addresses.SNAPSHOT,
        m -> apply(m.body()).onFailure(e -> LOG.error("applying snapshot {} failed: {}", m.body().version(), e.getMessage())));
    return keys.completion()
        .compose(v -> vertx.eventBus().<KeyRing>request(Addresses.STICKINESS_KEYS_CURRENT, null))
        .compose(reply -> {
          if (!stickiness.ready()) {
            stickiness.keys(reply.body());
          }
          return updates.completion();
        })
        .compose(v -> vertx.eventBus().<DataPlaneSnapshot>request(Addresses.SNAPSHOT_CURRENT, null))
        .compose(reply -> apply(reply.body()))
        // A newer snapshot may have come through the consumer before the reply (which is then
        // skipped as old): started means every listener of the snapshot in force accepts.
        .compose(v -> Future.join(bindings.values().stream().map(b -> b.ready).toList()))
        // A verticle that does not start is never stopped: the others do not wait for its drain.
        .onFailure(e -> handover.withdraw());
  }

  /**
   * Stops accepting and lets in-flight requests finish (graceful shutdown); then waits for the
   * other listener verticles to have drained as well (see {@link SocketHandover}).
   */
  @Override
  public Future<?> stop() {
    long drainFor = drainMillis.getAsLong();
    return drain(drainFor)
        .transform(ar -> {
          if (ar.failed()) {
            LOG.warn("draining listener verticle {} failed: {}", index, ar.cause().getMessage());
          }
          return handover.drained(vertx, drainFor + DEPARTURE_MARGIN_MILLIS);
        })
        .compose(v -> Future.join(forwarder.close(), direct.close()))
        .onComplete(ar -> {
          unregisterMeters.run();
          unregisterLog.run();
          log.retain(Set.of()); // what is left goes to the writer
        });
  }

  /**
   * Whether client connections get the direct path ({@link FastLane}, {@link StreamLane}); on
   * unless the system property {@code fulcrum.directPath} or the environment variable
   * {@code FULCRUM_DIRECT_PATH} says {@code false} (to compare, or to rule it out). Off, every
   * request goes through Vert.x's server; those to HTTP/1.1 targets still go over the direct
   * path's target connections.
   */
  static boolean directPath() {
    String v = System.getProperty("fulcrum.directPath", System.getenv("FULCRUM_DIRECT_PATH"));
    return v == null || !v.trim().equalsIgnoreCase("false");
  }

  /** Swaps in a newer snapshot and binds or unbinds servers to match it. */
  Future<Void> apply(DataPlaneSnapshot next) {
    if (next.version() <= snapshot.version() || draining) {
      return Future.succeededFuture();
    }
    snapshot = next;
    // A group whose plan is unchanged (the same object) keeps its selector, and so its position.
    groups.values().removeIf(g -> next.groups().get(g.plan().arn()) != g.plan());
    inFlight.cutDeregistered(next);
    Future<Void> flowListeners = flows.apply(next);
    Map<String, ListenerPlan> desired = new LinkedHashMap<>();
    Map<String, Node> nodes = new HashMap<>();
    for (ListenerPlan plan : next.listeners()) {
      if (FlowListeners.serves(plan)) {
        continue;
      }
      for (Node node : plan.nodes()) {
        String key = node.address() + ":" + plan.port();
        desired.put(key, plan);
        nodes.put(key, node);
      }
    }
    long version = next.version();
    List<Future<?>> pending = new ArrayList<>();
    List<Future<?>> binds = new ArrayList<>();
    binds.add(flowListeners);
    Map<String, Future<?>> handovers = new HashMap<>();
    for (Iterator<Map.Entry<String, Binding>> it = bindings.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Binding> e = it.next();
      ListenerPlan plan = desired.get(e.getKey());
      Binding b = e.getValue();
      if (plan != null && !sameSocket(b.plan, plan)) {
        // Changes kind (cleartext, TLS, h2c): its connections are closed with it, and the new server
        // binds once every verticle's old one is gone (see SocketHandover).
        it.remove();
        String socket = e.getKey();
        Future<Void> closed = b.ready.transform(ar -> b.server == null ? Future.succeededFuture() : b.server.close())
            .onComplete(ar -> handover.released(socket, index, version));
        handovers.put(socket, closed.transform(ar -> handover.await(vertx, socket, version)));
      } else if (plan == null) {
        // Removed: stop accepting, let in-flight requests finish. (A changed idle timeout keeps the
        // server: it applies at once to targets and to idle client connections, and to stalled requests
        // after a restart.)
        it.remove();
        pending.add(b.server.shutdown(b.plan.proxy().idleTimeoutMillis(), TimeUnit.MILLISECONDS));
      } else {
        if (plan.tls() != null && !plan.tls().equals(b.plan.tls()) && b.server != null) {
          // New certificates or policy: new connections get them, open ones keep theirs. Forced: Vert.x
          // would otherwise reuse its cached context when only the protocols or ciphers change.
          binds.add(b.server.updateSSLOptions(Tls.sslOptions(plan.tls()), true));
        }
        b.plan = plan;
        b.meters = meters(plan, b.node);
        b.log = lines(plan, b.node);
        if (!b.ready.isComplete()) {
          binds.add(b.ready); // still binding for an earlier version: this one is applied once it serves
        }
      }
    }
    for (Map.Entry<String, ListenerPlan> e : desired.entrySet()) {
      if (!bindings.containsKey(e.getKey())) {
        Binding b = new Binding(e.getValue(), nodes.get(e.getKey()));
        b.meters = meters(b.plan, b.node);
        b.log = lines(b.plan, b.node);
        bindings.put(e.getKey(), b);
        Future<?> handedOver = handovers.get(e.getKey());
        b.ready = handedOver == null ? bind(b) : handedOver.transform(ar -> bind(b));
        binds.add(b.ready);
      }
    }
    meters.retain(next.listeners().stream().map(l -> Arns.loadBalancerDimension(l.arn())).collect(Collectors.toSet()),
        next.groups().keySet());
    log.retain(bindings.values().stream().filter(b -> b.log != null).map(b -> b.log.destination())
        .collect(Collectors.toSet()));
    Future.all(pending).onFailure(e -> LOG.warn("closing a removed listener failed: {}", e.getMessage()));
    // Applied once every server of this version accepts (or failed to bind, which is logged): an API
    // change that adds a listener answers only when its port serves.
    return Future.join(binds)
        .onComplete(ar -> applied.accumulateAndGet(version, Math::max))
        .mapEmpty();
  }

  /** The counters of the load balancer of {@code plan} in the zone of {@code node}, on this loop. */
  private LoadBalancerMeters meters(ListenerPlan plan, Node node) {
    return meters.loadBalancer(Arns.loadBalancerDimension(plan.arn()), node.zone());
  }

  /**
   * The access log lines of the load balancer of {@code plan} at {@code node}, on this loop; null
   * while it has no access log (or nothing writes one).
   */
  private LoopLog.Lines lines(ListenerPlan plan, Node node) {
    String bucket = plan.proxy().accessLogBucket();
    if (bucket == null || !accessLogs.writing()) {
      return null;
    }
    return log.lines(LogDestination.of(bucket, plan.proxy().accessLogPrefix(), plan.arn(), node.address()));
  }

  /**
   * Whether a server bound for {@code a} can serve {@code b} as it is: the same cleartext or TLS,
   * ALPN offer and h2c. Certificates and policy are swapped on the running server.
   */
  private static boolean sameSocket(ListenerPlan a, ListenerPlan b) {
    return (a.tls() == null) == (b.tls() == null) && a.http2() == b.http2() && a.h2c() == b.h2c();
  }

  private Future<HttpServer> bind(Binding b) {
    ListenerPlan plan = b.plan;
    HttpServerOptions options = new HttpServerOptions()
        .setHost(b.node.address())
        .setPort(plan.port())
        // The idle timeout of a connection without a request is ClientConnection's. This one only ends
        // connections stuck mid-request (a client body that stalls); it is longer than the target's connect
        // and idle timeouts so that a slow target is answered with 504 instead of its client being cut off.
        .setIdleTimeout((int) Math.min(Integer.MAX_VALUE,
            plan.proxy().idleTimeoutMillis() + plan.proxy().connectTimeoutMillis() + STALLED_REQUEST_MARGIN_MILLIS))
        .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
        .setMaxInitialLineLength(MAX_REQUEST_LINE)
        .setMaxHeaderSize(MAX_HEADERS)
        .setHandle100ContinueAutomatically(true)
        .setCompressionSupported(false)
        .setDecompressionSupported(false)
        .setHttp2ClearTextEnabled(plan.h2c())
        .setInitialSettings(new Http2Settings()
            .setMaxConcurrentStreams(MAX_CONCURRENT_STREAMS)
            .setMaxHeaderListSize(MAX_HEADERS)
            .setPushEnabled(false))
        .setHttp2RstFloodMaxRstFramePerWindow(RST_FLOOD_MAX_RESETS)
        .setHttp2RstFloodWindowDuration(RST_FLOOD_WINDOW_SECONDS)
        .setHttp2RstFloodWindowDurationTimeUnit(TimeUnit.SECONDS)
        // Fulcrum never accepts a WebSocket itself: without these, Vert.x puts a WebSocket extension
        // handler in every HTTP/1.x connection, which looks at every response written.
        .setPerFrameWebSocketCompressionSupported(false)
        .setPerMessageWebSocketCompressionSupported(false)
        .setTcpNoDelay(true);
    if (plan.tls() != null) {
      Tls.configure(options, plan.tls(), plan.http2());
    }
    return listen(b, options, BIND_ATTEMPTS);
  }

  /**
   * Counts the connection's bytes as HTTP crosses it, after TLS and before the codec
   * ({@code ProcessedBytes}, and the access log's byte fields over HTTP/1.x). A connection upgraded
   * to h2c keeps the counter its HTTP/1.1 start put in.
   */
  private static void countBytes(HttpConnection conn, ClientConnection client, LoadBalancerMeters meters) {
    if (conn instanceof Http1xServerConnection http1) {
      ChannelPipeline pipeline = http1.channelHandlerContext().pipeline();
      if (pipeline.get(RequestDecoder.NAME) != null && pipeline.get(ByteCounter.NAME) == null) {
        client.bytes = new ByteCounter(meters);
        pipeline.addBefore(RequestDecoder.NAME, ByteCounter.NAME, client.bytes);
      }
    } else if (conn instanceof Http2ServerConnection http2) {
      ChannelHandlerContext ctx = http2.channelHandlerContext();
      if (ctx.pipeline().get(ByteCounter.NAME) == null) {
        ctx.pipeline().addBefore(ctx.name(), ByteCounter.NAME, new ByteCounter(meters));
      }
    }
  }

  /**
   * Binds; a port that a server of this process has just let go of may still be held for a moment
   * (its socket closes asynchronously when a listener is replaced, or deleted and created again), so
   * "address in use" is retried for up to a second before it counts.
   */
  private Future<HttpServer> listen(Binding b, HttpServerOptions options, int attemptsLeft) {
    ListenerPlan plan = b.plan;
    HttpServer server = vertx.createHttpServer(options);
    server.connectionHandler(conn -> {
      if (conn instanceof ConnectionBase base) {
        base.channel().config().setAllocator(DirectForwarder.ALLOCATOR);
      }
      ClientConnection client = new ClientConnection(vertx, conn, () -> b.plan.proxy().idleTimeoutMillis(),
          b.plan.proxy().clientKeepAliveMillis(), timers);
      clients.put(conn, client);
      client.meters = b.meters;
      b.meters.connectionOpened();
      RequestDecoder.install(conn, options);
      countBytes(conn, client, b.meters);
      conn.closeHandler(v -> clientClosed(conn));
      if (lanes && conn instanceof Http1xServerConnection http1) {
        // HTTP/1.x: the direct path takes the common requests before Vert.x's connection sees them.
        ChannelPipeline pipeline = http1.channelHandlerContext().pipeline();
        if (pipeline.get(VERTX_HANDLER) != null) {
          pipeline.addBefore(VERTX_HANDLER, FastLane.NAME, new FastLane(directRequests, b, client, conn.remoteAddress()));
        }
      } else if (lanes && conn instanceof Http2ServerConnection http2) {
        // HTTP/2: the direct path takes the common streams before Vert.x's connection sees them.
        StreamLane.install(directRequests, b, client, conn.remoteAddress(), http2);
      }
    });
    server.requestHandler(req -> handler.handle(b, req));
    if (plan.tls() != null) {
      // Vert.x tells the server about errors before a connection is established: the TLS handshake's.
      server.exceptionHandler(e -> {
        if (tlsFailure(e)) {
          b.meters.clientTlsNegotiationError();
        }
      });
    }
    server.invalidRequestHandler(req -> handler.invalid(b, req));
    b.server = server;
    return server.listen()
        .onSuccess(s -> LOG.debug("listening on {}:{} ({})", b.node.address(), plan.port(), b.node.zone()))
        .recover(e -> {
          if (attemptsLeft > 1 && bindings.get(b.node.address() + ":" + plan.port()) == b && addressInUse(e)) {
            Promise<HttpServer> retry = Promise.promise();
            vertx.setTimer(BIND_RETRY_MILLIS, t -> listen(b, options, attemptsLeft - 1).onComplete(retry));
            return retry.future();
          }
          bindings.values().remove(b);
          return Future.failedFuture(new IllegalStateException("load balancer " + plan.lbName() + " cannot listen on "
              + b.node.address() + ":" + plan.port() + ": " + e.getMessage(), e));
        });
  }

  /**
   * Whether {@code e} (or a cause) is a TLS failure: a handshake that did not establish a session,
   * or bytes that are not TLS at all (cleartext HTTP on an HTTPS port).
   */
  static boolean tlsFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException || t instanceof io.netty.handler.ssl.NotSslRecordException) {
        return true;
      }
    }
    return false;
  }

  static boolean addressInUse(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }

  /** Stops accepting on every binding; in-flight requests get {@code timeoutMillis} to finish. */
  Future<Void> drain(long timeoutMillis) {
    draining = true;
    List<Future<?>> all = new ArrayList<>();
    for (Binding b : bindings.values()) {
      if (b.server != null) {
        all.add(b.server.shutdown(timeoutMillis, TimeUnit.MILLISECONDS));
      }
    }
    bindings.clear();
    all.add(flows.drain(timeoutMillis));
    return Future.all(all).mapEmpty();
  }

  InFlight inFlight() {
    return inFlight;
  }

  /** The Vert.x instance this verticle is deployed on. */
  io.vertx.core.Vertx vertx() {
    return vertx;
  }

  /** The context this verticle runs on. */
  io.vertx.core.Context context() {
    return context;
  }

  SocketHandover handover() {
    return handover;
  }

  EventBus eventBus() {
    return vertx.eventBus();
  }

  /**
   * Whether anyone consumes exchange outcomes (see {@link ExchangeOutcomes}); while nobody does,
   * none is built.
   */
  boolean outcomesListened() {
    return outcomes.listened();
  }

  /** Publishes how an exchange ended, for the access log and metrics; never leaves the process. */
  void outcome(ExchangeOutcome outcome) {
    outcomes.publish(outcome);
  }

  /** The per-loop state of a target group, built on first use after each snapshot swap. */
  GroupRuntime group(String arn) {
    GroupRuntime g = groups.get(arn);
    if (g == null) {
      TargetGroupPlan plan = snapshot.groups().get(arn);
      if (plan == null) {
        return null;
      }
      g = new GroupRuntime(plan, random);
      groups.put(arn, g);
    }
    return g;
  }

  /** The idle timer of a client connection of this loop, or null once it closed. */
  ClientConnection client(HttpConnection connection) {
    return clients.get(connection);
  }

  /**
   * A client connection closed: its idle timer goes. Vert.x tells its close handler, except for a
   * connection that became a tunnel (a WebSocket), whose exchange tells this itself.
   */
  void clientClosed(HttpConnection connection) {
    ClientConnection c = clients.remove(connection);
    if (c != null) {
      c.closed();
      if (c.meters != null) {
        c.meters.connectionClosed();
      }
    }
  }

  ElbError noTarget(GroupRuntime g) {
    return g.plan().hasRegisteredTargets() ? ElbError.NO_TARGETS_IN_ZONE : ElbError.NO_TARGETS;
  }

  /** One listener bound on one node address. */
  static final class Binding {
    ListenerPlan plan;
    final Node node;
    /** The port as X-Forwarded-Port carries it (a binding keeps its port). */
    final String portText;
    /** The counters of its load balancer in its zone, on this loop. */
    LoadBalancerMeters meters;
    /** Its load balancer's access log lines at its node, on this loop; null while there is no access log. */
    LoopLog.Lines log;
    HttpServer server;
    /** Completes once the server accepts connections (or failed to bind). */
    Future<?> ready = Future.succeededFuture();

    Binding(ListenerPlan plan, Node node) {
      this.plan = plan;
      this.node = node;
      this.portText = Integer.toString(plan.port());
    }
  }

  /**
   * A target group's plan and this loop's selectors for it: one with cross-zone on, one per node
   * zone with it off, each built on first use.
   */
  static final class GroupRuntime {
    private final TargetGroupPlan plan;
    private final RandomGenerator random;
    private final HttpForwarder.TargetProtocol protocol;
    private TargetSelector all;
    private Map<String, TargetSelector> byZone;

    GroupRuntime(TargetGroupPlan plan, RandomGenerator random) {
      this.plan = plan;
      this.random = random;
      this.protocol = HttpForwarder.TargetProtocol.of(plan.tls(), plan.protocolVersion() != ProtocolVersion.HTTP1);
    }

    TargetGroupPlan plan() {
      return plan;
    }

    /** How the group's targets are reached (TLS or not, HTTP/1.1 or HTTP/2). */
    HttpForwarder.TargetProtocol protocol() {
      return protocol;
    }

    /** The selector for requests arriving on a node of {@code zone}, or null when it has no scope. */
    TargetSelector selector(String zone) {
      if (plan.crossZone()) {
        if (all == null) {
          all = TargetSelector.of(plan.algorithm(), plan.scope(zone), random);
        }
        return all;
      }
      if (byZone == null) {
        byZone = new HashMap<>();
      }
      TargetSelector s = byZone.get(zone);
      if (s == null) {
        Scope scope = plan.scope(zone);
        if (scope == null) {
          return null;
        }
        s = TargetSelector.of(plan.algorithm(), scope, random);
        byZone.put(zone, s);
      }
      return s;
    }
  }
}
