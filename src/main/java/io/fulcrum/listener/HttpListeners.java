package io.fulcrum.listener;

import io.fulcrum.bus.DataPlaneSnapshot;
import io.fulcrum.bus.ListenerPlan;
import io.fulcrum.bus.ListenerTls;
import io.fulcrum.forward.ClientCertHeaders;
import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.forward.ListenerHeaders;
import io.fulcrum.model.Arns;
import io.fulcrum.model.Node;
import io.fulcrum.observe.AccessLogs;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.observe.LoopLog;
import io.fulcrum.observe.LoopMeters;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.util.concurrent.EventExecutor;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.internal.ContextInternal;
import java.net.InetSocketAddress;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP and HTTPS listeners of application load balancers on one event loop: a Vert.x server per
 * listener and node address, with ALB's limits on request heads and HTTP/2 streams. Owned by a
 * {@link ListenerVerticle}, which hands it each snapshot and serves the connections its servers
 * accept ({@link ListenerVerticle#connected}). A listener that keeps its kind of socket keeps its
 * server and connections (new certificates go to new connections); one that changes kind is bound
 * anew once every verticle's old server is gone ({@link SocketHandover}); a removed one stops
 * accepting and lets its requests finish. Touched only on the owning verticle's loop.
 */
final class HttpListeners {

  private static final Logger LOG = LoggerFactory.getLogger(HttpListeners.class);

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
  private static final int BIND_ATTEMPTS = 40;
  private static final long BIND_RETRY_MILLIS = 25;
  /** The longest client certificate subject a connection log line carries. */
  private static final int MAX_SUBJECT = 4096;

  private final ListenerVerticle verticle;
  private final Vertx vertx;
  private final int index;
  private final LoopMeters meters;
  private final AccessLogs accessLogs;
  private final LoopLog log;
  /** By node address and port. */
  private final Map<String, Binding> bindings = new LinkedHashMap<>();

  /**
   * @param index   which of the process's listener verticles {@code verticle} is
   * @param meters  that verticle's counters
   * @param log     that verticle's access log lines, kept by {@code accessLogs}
   */
  HttpListeners(ListenerVerticle verticle, int index, LoopMeters meters, AccessLogs accessLogs, LoopLog log) {
    this.verticle = verticle;
    this.vertx = verticle.vertx();
    this.index = index;
    this.meters = meters;
    this.accessLogs = accessLogs;
    this.log = log;
  }

  /**
   * Binds servers for the snapshot's new HTTP listeners, shuts down those it no longer has, and
   * gives the others their new plan.
   *
   * @return the servers that are to accept for this snapshot: each completes once it does (or
   *         failed to bind, which it logs)
   */
  List<Future<?>> apply(DataPlaneSnapshot next) {
    Map<String, ListenerPlan> desired = new LinkedHashMap<>();
    Map<String, Node> nodes = new HashMap<>();
    for (ListenerPlan plan : next.listeners()) {
      if (plan.protocol().isNetworkFamily()) {
        continue; // a network load balancer's: FlowListeners and DatagramListeners serve it
      }
      for (Node node : plan.nodes()) {
        String key = node.address() + ":" + plan.port();
        desired.put(key, plan);
        nodes.put(key, node);
      }
    }
    long version = next.version();
    SocketHandover handover = verticle.handover();
    List<Future<?>> pending = new ArrayList<>();
    List<Future<?>> binds = new ArrayList<>();
    Map<String, Future<?>> handovers = new HashMap<>();
    for (Iterator<Map.Entry<String, Binding>> it = bindings.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Binding> e = it.next();
      ListenerPlan plan = desired.get(e.getKey());
      Binding b = e.getValue();
      if (plan != null && !sameSocket(b.plan, plan)) {
        // Changes kind (cleartext, TLS, h2c, mutual TLS): its connections are closed with it, and the new server
        // binds once every verticle's old one is gone (see SocketHandover).
        it.remove();
        forget(b);
        String socket = e.getKey();
        Future<Void> closed = b.ready.transform(ar -> b.server == null ? Future.succeededFuture() : b.server.close())
            .onComplete(ar -> handover.released(socket, index, version));
        handovers.put(socket, closed.transform(ar -> handover.await(vertx, socket, version)));
      } else if (plan == null) {
        // Removed: stop accepting, let in-flight requests finish. (A changed idle timeout keeps the
        // server: it applies at once to targets and to idle client connections, and to stalled requests
        // after a restart.)
        it.remove();
        forget(b);
        pending.add(b.server.shutdown(b.plan.proxy().idleTimeoutMillis(), TimeUnit.MILLISECONDS));
      } else {
        if (plan.tls() != null && !plan.tls().equals(b.plan.tls()) && b.server != null) {
          // New certificates or policy: new connections get them, open ones keep theirs. Forced: Vert.x
          // would otherwise reuse its cached context when only the protocols or ciphers change.
          binds.add(b.server.updateSSLOptions(Tls.sslOptions(plan.tls()), true));
        }
        if (plan.tls() != null && !plan.tls().equals(b.plan.tls())) {
          binds.add(certificates(b, plan.tls()));
        }
        b.plan(plan);
        b.meters = meters(plan, b.node);
        b.log = lines(plan, b.node);
        watch(b);
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
        watch(b);
        if (b.plan.h2c() && b.plan.tls() == null) {
          b.starts = new InetSocketAddress(b.node.address(), b.plan.port());
          H2cStart.register(loop(), b.starts, b);
        }
        bindings.put(e.getKey(), b);
        Future<?> handedOver = handovers.get(e.getKey());
        b.ready = handedOver == null ? bind(b) : handedOver.transform(ar -> bind(b));
        binds.add(b.ready);
        if (b.plan.tls() != null) {
          binds.add(certificates(b, b.plan.tls()));
        }
      }
    }
    Future.all(pending).onFailure(e -> LOG.warn("closing a removed listener failed: {}", e.getMessage()));
    return binds;
  }

  /**
   * Reads which of {@code tls}'s certificates is which (off the loop), for the access log's
   * {@code chosen_cert_arn}; {@code b} takes them while its TLS settings are still {@code tls}.
   */
  private Future<?> certificates(Binding b, ListenerTls tls) {
    return ServedCertificates.load(vertx, tls, b.plan.arn()).map(read -> {
      if (tls.equals(b.plan.tls())) {
        b.certificates = read;
      }
      return null;
    });
  }

  /** Where the bound listeners' access and connection logs go (those that have one). */
  Set<LogDestination> logDestinations() {
    return bindings.values().stream().flatMap(b -> Stream.of(b.log, b.connections)).filter(Objects::nonNull)
        .map(LoopLog.Lines::destination).collect(Collectors.toSet());
  }

  /**
   * Has the handshakes of an HTTPS listener whose load balancer keeps a connection log written to
   * it (on this loop; each verticle writes those of the connections it serves), and stops that for
   * one that no longer does.
   */
  private void watch(Binding b) {
    String bucket = b.plan.proxy().connectionLogBucket();
    b.connections = bucket == null || b.plan.tls() == null || !accessLogs.writing() ? null
        : log.lines(LogDestination.connections(bucket, b.plan.proxy().connectionLogPrefix(), b.plan.arn(),
            b.node.address()));
    if (b.connections == null) {
      unwatch(b);
    } else if (b.watched == null) {
      b.watched = new InetSocketAddress(b.node.address(), b.plan.port());
      TlsHandshakes.register(loop(), b.watched, h -> handshake(b, h));
    }
  }

  /** {@code b} is gone: nothing is told of its connections any more. */
  private void forget(Binding b) {
    unwatch(b);
    if (b.starts != null) {
      H2cStart.unregister(loop(), b.starts);
      b.starts = null;
    }
  }

  private void unwatch(Binding b) {
    if (b.watched != null) {
      TlsHandshakes.unregister(loop(), b.watched);
      b.watched = null;
    }
  }

  private EventExecutor loop() {
    return ((ContextInternal) vertx.getOrCreateContext()).nettyEventLoop();
  }

  /**
   * A connection log line (ALB's 12 fields): {@code time client_ip client_port listener_port
   * tls_protocol tls_cipher tls_handshake_latency "leaf_client_cert_subject" leaf_client_cert_validity
   * leaf_client_cert_serial_number tls_verify_status conn_trace_id}; the trace id goes with the
   * connection to its access log lines.
   */
  private void handshake(Binding b, TlsHandshakes.Handshake h) {
    LoopLog.Lines lines = b.connections;
    if (lines == null) {
      return;
    }
    String traceId = ClientConnection.newTraceId(verticle.random());
    h.channel().attr(TlsHandshakes.TRACE_ID).set(traceId);
    long now = verticle.clock().millis();
    StringBuilder line = lines.start(now);
    lines.time(now * 1000).append(' ');
    line.append(h.client().getAddress().getHostAddress()).append(' ').append(h.client().getPort()).append(' ')
        .append(b.plan.port()).append(' ');
    ForwardHeaders.Tls tls = h.tls();
    line.append(tls == null ? "-" : tls.version()).append(' ').append(tls == null ? "-" : tls.cipherSuite()).append(' ');
    lines.seconds(h.latencyNanos()).append(' ');
    X509Certificate leaf = h.leaf();
    lines.quoted(leaf == null ? null : ClientCertHeaders.subject(leaf), MAX_SUBJECT).append(' ');
    line.append(leaf == null ? "-" : ClientCertHeaders.validity(leaf)).append(' ')
        .append(leaf == null ? "-" : ClientCertHeaders.serial(leaf)).append(' ')
        .append(h.failure() == null ? "Success" : "Failed:" + h.failure()).append(' ')
        .append(traceId);
    lines.end();
  }

  /** Completes once every listener bound so far accepts (or failed to bind). */
  Future<?> ready() {
    return Future.join(bindings.values().stream().map(b -> b.ready).toList());
  }

  /** Stops accepting on every listener; in-flight requests get {@code timeoutMillis} to finish. */
  Future<?> drain(long timeoutMillis) {
    List<Future<?>> all = new ArrayList<>();
    for (Binding b : bindings.values()) {
      unwatch(b);
      if (b.server != null) {
        all.add(b.server.shutdown(timeoutMillis, TimeUnit.MILLISECONDS));
      }
    }
    bindings.clear();
    return Future.all(all);
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
   * ALPN offer, h2c and mutual TLS. Certificates and policy are swapped on the running server. A
   * change of mutual TLS (mode, trust store, expiry, CA names) closes the open connections, so that
   * none goes on with a client certificate judged by other settings (or one since revoked).
   */
  private static boolean sameSocket(ListenerPlan a, ListenerPlan b) {
    return (a.tls() == null) == (b.tls() == null) && a.http2() == b.http2() && a.h2c() == b.h2c()
        && (a.tls() == null || a.tls().mutualAuthentication().equals(b.tls().mutualAuthentication()));
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
   * Binds; a port that a server of this process has just let go of may still be held for a moment
   * (its socket closes asynchronously when a listener is replaced, or deleted and created again), so
   * "address in use" is retried for up to a second before it counts.
   */
  private Future<HttpServer> listen(Binding b, HttpServerOptions options, int attemptsLeft) {
    ListenerPlan plan = b.plan;
    HttpServer server = vertx.createHttpServer(options);
    server.connectionHandler(conn -> verticle.connected(b, conn, options));
    server.requestHandler(req -> verticle.requests().handle(b, req));
    if (plan.tls() != null) {
      // Vert.x tells the server about errors before a connection is established: the TLS handshake's.
      server.exceptionHandler(e -> {
        if (SocketFailures.tlsFailure(e)) {
          b.meters.clientTlsNegotiationError();
          if (LOG.isDebugEnabled()) {
            Throwable cause = e;
            while (cause.getCause() != null && cause.getCause() != cause) {
              cause = cause.getCause();
            }
            // A refused client certificate names its reason (ClientCertExpired, ...).
            LOG.debug("{}:{}: a client's TLS handshake failed: {}", b.node.address(), b.plan.port(),
                cause.getMessage());
          }
        }
      });
    }
    server.invalidRequestHandler(req -> verticle.requests().invalid(b, req));
    b.server = server;
    return server.listen()
        .onSuccess(s -> LOG.debug("listening on {}:{} ({})", b.node.address(), plan.port(), b.node.zone()))
        .recover(e -> {
          if (attemptsLeft > 1 && bindings.get(b.node.address() + ":" + plan.port()) == b
              && SocketFailures.addressInUse(e)) {
            Promise<HttpServer> retry = Promise.promise();
            vertx.setTimer(BIND_RETRY_MILLIS, t -> listen(b, options, attemptsLeft - 1).onComplete(retry));
            return retry.future();
          }
          bindings.values().remove(b);
          return Future.failedFuture(new IllegalStateException("load balancer " + plan.lbName() + " cannot listen on "
              + b.node.address() + ":" + plan.port() + ": " + e.getMessage(), e));
        });
  }

  /** One listener bound on one node address. */
  static final class Binding implements H2cStart.Listener {
    ListenerPlan plan;
    /** The listener's response header modification, of {@link #plan}. */
    ListenerHeaders listenerHeaders;
    final Node node;
    /** The port as X-Forwarded-Port carries it (a binding keeps its port). */
    final String portText;
    /** The counters of its load balancer in its zone, on this loop. */
    LoadBalancerMeters meters;
    /** Its load balancer's access log lines at its node, on this loop; null while there is no access log. */
    LoopLog.Lines log;
    /** Its load balancer's connection log lines at its node, on this loop; null while it has none (or no TLS). */
    LoopLog.Lines connections;
    /** The address whose handshakes this loop is told of, or null. */
    InetSocketAddress watched;
    /** The address whose connections' start this loop watches (a cleartext listener with h2c), or null. */
    InetSocketAddress starts;
    /** Which of a TLS listener's certificates a session was given (the access log's {@code chosen_cert_arn}). */
    ServedCertificates certificates = ServedCertificates.NONE;
    HttpServer server;
    /** Completes once the server accepts connections (or failed to bind). */
    Future<?> ready = Future.succeededFuture();

    Binding(ListenerPlan plan, Node node) {
      plan(plan);
      this.node = node;
      this.portText = Integer.toString(plan.port());
    }

    @Override
    public long idleMillis() {
      return plan.proxy().idleTimeoutMillis();
    }

    /** ALB's 408 for a request head not all come within the idle timeout; the connection closes after it. */
    @Override
    public void headTimedOut(Channel channel) {
      meters.elbStatus(ElbError.CLIENT_TIMEOUT.status());
      channel.writeAndFlush(ElbResponses.full(ElbError.CLIENT_TIMEOUT, true, listenerHeaders))
          .addListener(ChannelFutureListener.CLOSE);
    }

    void plan(ListenerPlan next) {
      if (listenerHeaders == null || !next.attributes().equals(plan.attributes())) {
        listenerHeaders = ListenerHeaders.of(next.attributes());
      }
      plan = next;
    }
  }
}
