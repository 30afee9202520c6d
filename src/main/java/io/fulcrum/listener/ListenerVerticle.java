package io.fulcrum.listener;

import io.fulcrum.balancer.TargetGroupPlan;
import io.fulcrum.bus.Addresses;
import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.bus.ExchangeOutcomes;
import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.HttpForwarder;
import io.fulcrum.listener.HttpListeners.Binding;
import io.fulcrum.model.Arns;
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
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.Http1xServerConnection;
import io.vertx.core.http.impl.Http2ServerConnection;
import io.vertx.core.internal.VertxInternal;
import io.vertx.core.net.impl.ConnectionBase;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * listeners and shut down gracefully for removed ones ({@link HttpListeners}, {@link FlowListeners},
 * {@link DatagramListeners}),
 * while every other connection, keep-alive included, stays open. Connections the HTTP servers accept
 * are set up here ({@link #connected}) for the direct path and {@link RequestHandler}.
 */
public final class ListenerVerticle extends VerticleBase {

  private static final Logger LOG = LoggerFactory.getLogger(ListenerVerticle.class);

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
  private final Map<String, GroupRuntime> groups = new HashMap<>();
  /** The HTTP and HTTPS listeners on this loop. */
  private HttpListeners http;
  /** This loop's client connections and their idle timers. */
  private final Map<HttpConnection, ClientConnection> clients = new HashMap<>();
  private DataPlaneSnapshot snapshot = DataPlaneSnapshot.EMPTY;
  private final InFlight inFlight = new InFlight(this::outcomesListened, this::outcome,
      arn -> vertx.eventBus().publish(Addresses.OPTIMIZER_CREDITS, arn));
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
  /** authenticate-oidc's sessions on this loop, for both request paths. */
  private Authenticator authenticator;
  private DirectRequests directRequests;
  /** The network load balancers' TCP and TLS listeners on this loop (and TCP_UDP ones' connections). */
  private FlowListeners flows;
  /** The network load balancers' UDP listeners on this loop (and TCP_UDP ones' datagrams). */
  private DatagramListeners datagrams;
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
    http = new HttpListeners(this, index, meters, accessLogs, log);
    direct = new DirectForwarder(((VertxInternal) vertx).transport().channelFactory(false));
    lanes = directPath();
    forwarder = new HttpForwarder(vertx, direct);
    // Nonces of this loop's stickiness cookies start at a random point (see CookieCodec).
    stickiness = new Stickiness(new SecureRandom());
    Dispatcher dispatcher = new Dispatcher(this, stickiness, clock, random);
    authenticator = new Authenticator(clock, new SecureRandom());
    handler = new RequestHandler(this, forwarder, dispatcher, authenticator, clock, random);
    directRequests = new DirectRequests(this, direct, dispatcher, authenticator, clock);
    flows = new FlowListeners(vertx, meters, timers, index, random.nextLong(),
        ((VertxInternal) vertx).transport().channelFactory(false),
        ((VertxInternal) vertx).transport().serverChannelFactory(false), accessLogs, log, clock);
    datagrams = new DatagramListeners(vertx, meters, timers, index, random.nextLong(),
        ((VertxInternal) vertx).transport());
    MessageConsumer<KeyRing> keys = vertx.eventBus().localConsumer(Addresses.STICKINESS_KEYS,
        m -> {
          stickiness.keys(m.body());
          authenticator.keys(m.body());
        });
    vertx.eventBus().<String>localConsumer(Addresses.OPTIMIZER_CREDITS, m -> handler.optimizerCredits(m.body()));
    MessageConsumer<DataPlaneSnapshot> updates = vertx.eventBus().localConsumer(Addresses.SNAPSHOT,
        m -> apply(m.body()).onFailure(e -> LOG.error("applying snapshot {} failed: {}", m.body().version(), e.getMessage())));
    return keys.completion()
        .compose(v -> vertx.eventBus().<KeyRing>request(Addresses.STICKINESS_KEYS_CURRENT, null))
        .compose(reply -> {
          if (!stickiness.ready()) {
            stickiness.keys(reply.body());
            authenticator.keys(reply.body());
          }
          return updates.completion();
        })
        .compose(v -> vertx.eventBus().<DataPlaneSnapshot>request(Addresses.SNAPSHOT_CURRENT, null))
        .compose(reply -> apply(reply.body()))
        // A newer snapshot may have come through the consumer before the reply (which is then
        // skipped as old): started means every listener of the snapshot in force accepts.
        .compose(v -> http.ready())
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
    // A group whose plan is unchanged (the same object) keeps its selectors; one with a new plan gets new
    // ones that go on with round robin's turns where the old ones left them.
    for (Iterator<Map.Entry<String, GroupRuntime>> it = groups.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, GroupRuntime> e = it.next();
      TargetGroupPlan plan = next.groups().get(e.getKey());
      if (plan == null) {
        it.remove();
      } else if (plan != e.getValue().plan()) {
        e.setValue(e.getValue().next(plan));
      }
    }
    inFlight.cutDeregistered(next);
    List<Future<?>> binds = new ArrayList<>();
    binds.add(flows.apply(next));
    binds.add(datagrams.apply(next));
    binds.addAll(http.apply(next));
    meters.retain(next.listeners().stream().map(l -> Arns.loadBalancerDimension(l.arn())).collect(Collectors.toSet()),
        next.groups().keySet());
    Set<LogDestination> destinations = new HashSet<>(http.logDestinations());
    destinations.addAll(flows.logDestinations());
    log.retain(destinations);
    // Applied once every server of this version accepts (or failed to bind, which is logged): an API
    // change that adds a listener answers only when its port serves.
    return Future.join(binds)
        .onComplete(ar -> applied.accumulateAndGet(next.version(), Math::max))
        .mapEmpty();
  }

  /**
   * A server of {@code b} accepted {@code conn}: its client connection's idle timer, counters and
   * request decoder, and the direct path's lane when lanes are on.
   */
  void connected(Binding b, HttpConnection conn, HttpServerOptions options) {
    if (conn instanceof ConnectionBase base) {
      CarriedClients.adopt(base.channel()); // before anything asks for its address
      H2cStart.connected(base.channel().pipeline());
    }
    ClientConnection client = new ClientConnection(vertx, conn, () -> b.plan.proxy().idleTimeoutMillis(),
        b.plan.proxy().clientKeepAliveMillis(), timers);
    if (conn instanceof ConnectionBase base) {
      base.channel().config().setAllocator(DirectForwarder.ALLOCATOR);
      String traceId = base.channel().attr(TlsHandshakes.TRACE_ID).get();
      if (traceId != null) {
        client.useTraceId(traceId); // its connection log line's
      }
    }
    clients.put(conn, client);
    client.meters = b.meters;
    b.meters.connectionOpened();
    RequestDecoder.install(conn, options);
    countBytes(conn, client, b.meters);
    if (client.bytes != null && conn instanceof ConnectionBase base) {
      client.headTimedOut = () -> b.headTimedOut(base.channel());
    }
    conn.closeHandler(v -> clientClosed(conn));
    if (lanes && conn instanceof Http1xServerConnection http1) {
      // HTTP/1.x: the direct path takes the common requests before Vert.x's connection sees them.
      ChannelPipeline pipeline = http1.channelHandlerContext().pipeline();
      if (pipeline.get(RequestDecoder.CONNECTION_HANDLER) != null) {
        pipeline.addBefore(RequestDecoder.CONNECTION_HANDLER, FastLane.NAME,
            new FastLane(directRequests, b, client, conn.remoteAddress()));
      }
    } else if (conn instanceof Http2ServerConnection http2) {
      if (lanes) {
        // HTTP/2: the direct path takes the common streams before Vert.x's connection sees them.
        StreamLane.install(directRequests, b, client, conn.remoteAddress(), http2);
      }
      // In front of the lane (or of Vert.x): requests HTTP/1.1 cannot carry are reset first.
      CarriedStreams.install(http2);
    }
  }

  /**
   * Counts the connection's bytes as HTTP crosses it, after TLS and before the codec
   * ({@code ProcessedBytes}, and the access log's byte fields over HTTP/1.x). A connection upgraded
   * to h2c keeps the counter its HTTP/1.1 start put in.
   */
  private static void countBytes(HttpConnection conn, ClientConnection client, LoadBalancerMeters meters) {
    if (conn instanceof Http1xServerConnection http1) {
      ChannelPipeline pipeline = http1.channelHandlerContext().pipeline();
      if (pipeline.get(RequestDecoder.NAME) != null) {
        ByteCounter counter = (ByteCounter) pipeline.get(ByteCounter.NAME);
        if (counter == null) {
          client.bytes = new ByteCounter(meters);
          pipeline.addBefore(RequestDecoder.NAME, ByteCounter.NAME, client.bytes);
        } else if (!counter.attached()) {
          counter.attach(meters); // put in as the connection was accepted: its first request's head counts
          client.bytes = counter;
        }
      }
    } else if (conn instanceof Http2ServerConnection http2) {
      ChannelHandlerContext ctx = http2.channelHandlerContext();
      ByteCounter counter = (ByteCounter) ctx.pipeline().get(ByteCounter.NAME);
      if (counter == null) {
        ctx.pipeline().addBefore(ctx.name(), ByteCounter.NAME, new ByteCounter(meters));
      } else if (!counter.attached()) {
        counter.attach(meters);
      }
    }
  }

  /** What answers the requests that the direct path leaves to Vert.x's server. */
  RequestHandler requests() {
    return handler;
  }

  /** Stops accepting on every listener; in-flight requests get {@code timeoutMillis} to finish. */
  Future<Void> drain(long timeoutMillis) {
    draining = true;
    return Future.all(http.drain(timeoutMillis), flows.drain(timeoutMillis), datagrams.drain()).mapEmpty();
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

  /** The data plane's clock (the access and connection logs' times). */
  Clock clock() {
    return clock;
  }

  /** This instance's random source. */
  RandomGenerator random() {
    return random;
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
}
