package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.tls.TlsEngine;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import io.vertx.core.MultiMap;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.net.HostAndPort;
import java.io.IOException;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Proxies requests that Vert.x's server parsed (HTTP/2, and the HTTP/1.x requests the direct path
 * leaves to Vert.x) to targets, streaming both bodies with back-pressure. One per event loop;
 * every method is called on that loop. HTTP/1.1 targets (in clear or over TLS) are reached over
 * the direct path's connections ({@link BridgedExchange}), whether or not the direct path's lanes
 * are on; HTTP/2 targets through this loop's own Vert.x HTTP/2 clients.
 *
 * <p>Failures end the exchange the way ALB does (SPEC §11.3): before the target's response head,
 * with an ELB status (502 refused/reset/malformed/TLS, 504 connect or idle timeout); after it, by
 * closing the client connection, so that a truncated body is never mistaken for a whole one.
 */
public final class HttpForwarder {

  private static final Logger LOG = LoggerFactory.getLogger(HttpForwarder.class);

  /** ALB's limit on the whole response header block. */
  public static final int MAX_RESPONSE_HEADER_BYTES = 32 * 1024;
  /** HTTP/1.1 connections kept per target per event loop. */
  static final int POOL_SIZE_PER_TARGET = 1024;
  /** HTTP/2 connections per target per event loop; each carries many streams. */
  static final int HTTP2_CONNECTIONS_PER_TARGET = 4;
  /** How much longer than the idle timeout a target connection may be silent mid-exchange. */
  static final long STALLED_RESPONSE_MARGIN_MILLIS = 1000;

  private final Vertx vertx;
  /**
   * Client-wide options: the idle and connect timeouts and the TLS versions toward targets. Load
   * balancers usually share one key, so usually there is one client.
   */
  private record ClientKey(long idleMillis, int connectMillis, boolean tls13) {
    static ClientKey of(ProxySettings settings) {
      return new ClientKey(settings.idleTimeoutMillis(), settings.connectTimeoutMillis(), settings.targetTls13());
    }
  }

  /** Connections to HTTP/2 targets, per client key; each pool has its own client. */
  private final Map<ClientKey, Http2Connections> http2 = new HashMap<>();
  private final List<HttpClientAgent> clients = new ArrayList<>();

  /** The pool of the settings seen last: a request finds it without a lookup. */
  private ProxySettings lastSettings;
  private Http2Connections lastHttp2;

  /** Where requests to HTTP/1.1 targets go: the direct path's connections. */
  private final DirectForwarder targets;
  private final EventLoop loop;

  /**
   * Must be created on the event loop that will use it.
   *
   * @param targets the direct path's forwarder, whose connections take requests to HTTP/1.1 targets
   */
  public HttpForwarder(Vertx vertx, DirectForwarder targets) {
    this.vertx = vertx;
    this.targets = targets;
    this.loop = ((ContextInternal) vertx.getOrCreateContext()).nettyEventLoop();
  }

  /**
   * How a target is reached: over TLS or not, and with HTTP/1.1 or HTTP/2 (target groups with
   * protocol version HTTP2 or GRPC; ALPN over TLS, prior knowledge in clear).
   */
  public record TargetProtocol(boolean tls, boolean http2) {
    private static final TargetProtocol HTTP1 = new TargetProtocol(false, false);
    private static final TargetProtocol HTTP1_TLS = new TargetProtocol(true, false);
    private static final TargetProtocol HTTP2 = new TargetProtocol(false, true);
    private static final TargetProtocol HTTP2_TLS = new TargetProtocol(true, true);

    /** One of the four values, shared. */
    public static TargetProtocol of(boolean tls, boolean http2) {
      return http2 ? (tls ? HTTP2_TLS : HTTP2) : (tls ? HTTP1_TLS : HTTP1);
    }
  }

  /**
   * Whether {@code request} has a body to pipe: it is chunked or has a Content-Length; over HTTP/2,
   * whose bodies have no framing header and may already be buffered when the stream has ended,
   * unless its method's body means nothing (GET, HEAD).
   */
  public static boolean hasBody(HttpServerRequest request, boolean chunked) {
    return chunked || request.headers().contains(HttpHeaders.CONTENT_LENGTH) || request.version() == HttpVersion.HTTP_2
        && request.method() != HttpMethod.GET && request.method() != HttpMethod.HEAD;
  }

  /**
   * Forwards {@code request}, whose headers have been prepared by {@link ForwardHeaders}, to
   * {@code target}, and streams the response back.
   *
   * @param uri     the request target in origin form (path and query)
   * @param chunked whether the client sends its body chunked (read before hop-by-hop headers went)
   */
  public Handle forward(HttpServerRequest request, String uri, boolean chunked, Upstream target, TargetProtocol protocol,
      ProxySettings settings, ExchangeListener listener, ResponseHook hook) {
    boolean contentLength = request.headers().contains(HttpHeaders.CONTENT_LENGTH);
    boolean hasBody = hasBody(request, chunked);
    MultiMap headers = request.headers();
    if (!protocol.http2() && request.version() == HttpVersion.HTTP_2) {
      // Downgraded to HTTP/1.1: ALB's own headers in mixed case (HTTP/2 made every name lower-case).
      headers = ForwardHeaders.http1Casing(headers);
    }
    if (!protocol.http2()) {
      // HTTP/1.1 targets: the direct path's connections, without Vert.x's HTTP client.
      var nettyHeaders = http1Headers(headers);
      if (hasBody && !contentLength) {
        nettyHeaders.set(HttpHeaders.TRANSFER_ENCODING, HttpHeaders.CHUNKED);
      }
      BridgedExchange bridged = new BridgedExchange(request, http1Head(request, uri, nettyHeaders), hasBody, target,
          protocol.tls(), targets.pool(loop, settings, protocol.tls()), listener, hook);
      bridged.start();
      return bridged;
    }
    Exchange ex = new Exchange(request, listener, hook);
    if (hasBody) {
      request.pause(); // until the target's request exists and the body can be piped into it
    }
    // HTTP/2 targets. HTTP/2 carries the host in :authority; gRPC needs "te: trailers", the one TE value
    // HTTP/2 allows.
    String authority = headers.get(HttpHeaders.HOST);
    headers.remove(HttpHeaders.HOST);
    if (Grpc.isGrpc(request)) {
      headers.set("te", "trailers");
    }
    HostAndPort http2Authority = authority == null ? null : HostAndPort.parseAuthority(authority, -1);
    request.response().closeHandler(v -> ex.clientClosed());
    // Streams multiplexed over a few connections per target.
    Future<HttpClientRequest> requested = http2(settings).request(target, protocol.tls(),
        new RequestOptions().setMethod(request.method()).setURI(uri).setHeaders(headers));
    requested.onComplete(ar -> {
      if (ar.failed()) {
        ex.fail(classify(ar.cause(), true), ar.cause());
        return;
      }
      HttpClientRequest out = ar.result();
      ex.out = out;
      if (http2Authority != null) {
        out.authority(http2Authority);
      }
      if (ex.done) {
        // The client left (reset its stream) before the request to the target existed. Nobody waits for
        // this request: without a handler Vert.x would log the reset as an ERROR, once per stream of a
        // rapid-reset flood.
        out.exceptionHandler(e -> { });
        out.reset();
        return;
      }
      out.response().onComplete(rar -> {
        if (rar.failed()) {
          ex.fail(classify(rar.cause(), false), rar.cause());
        } else {
          respond(ex, rar.result(), settings);
        }
      });
      if (hasBody) {
        if (!contentLength) {
          // HTTP/1.1: chunked coding. HTTP/2: no header, but Vert.x only streams a body it was told is chunked.
          out.setChunked(true);
        }
        request.pipe().endOnFailure(false).to(out).onComplete(pr -> {
          if (pr.failed()) {
            // The client went away mid-body (400/460 in ALB's log) or the target stopped reading.
            out.reset();
          } else {
            out.idleTimeout(settings.idleTimeoutMillis());
          }
        });
      } else {
        out.end();
        out.idleTimeout(settings.idleTimeoutMillis());
      }
    });
    return ex;
  }

  /**
   * Forwards a WebSocket upgrade ({@link Upgrades#webSocket}), whose headers have been prepared by
   * {@link ForwardHeaders}, to {@code target}, an HTTP/1.1 target: the request goes with
   * {@code Upgrade: <upgrade>} and {@code Connection: Upgrade}; a {@code 101} makes the client's
   * connection a tunnel to the target's ({@link TunnelExchange}), any other answer goes back as it
   * would for another request.
   *
   * @param uri          the request target in origin form (path and query)
   * @param upgrade the request's Upgrade value, as it came
   * @param tunnel  told when the client's connection becomes a tunnel, and when that closes
   */
  public Handle tunnel(HttpServerRequest request, String uri, String upgrade, Upstream target, TargetProtocol protocol,
      ProxySettings settings, ExchangeListener listener, ResponseHook hook, TunnelListener tunnel) {
    MultiMap headers = request.headers();
    headers.add(Upgrades.CONNECTION, Upgrades.UPGRADE);
    headers.add(Upgrades.UPGRADE, upgrade);
    TunnelExchange ex = new TunnelExchange(request, http1Head(request, uri, http1Headers(headers)), target,
        protocol.tls(), targets.pool(loop, settings, protocol.tls()), listener, hook, tunnel);
    ex.start();
    return ex;
  }

  /** Told on the owning event loop what becomes of a client connection whose WebSocket upgrade a target took. */
  public interface TunnelListener {
    /** The connection carries the WebSocket now. */
    void opened();

    /** The connection closed, once it had become a tunnel. */
    void closed();
  }

  /** {@code headers} as Netty's HTTP/1.1 encoder takes them (Vert.x's HTTP/1.x map is that already). */
  private static io.netty.handler.codec.http.HttpHeaders http1Headers(MultiMap headers) {
    return headers instanceof io.netty.handler.codec.http.HttpHeaders h ? h
        : (io.netty.handler.codec.http.HttpHeaders) HeadersMultiMap.httpHeaders().addAll(headers);
  }

  private static DefaultHttpRequest http1Head(HttpServerRequest request, String uri,
      io.netty.handler.codec.http.HttpHeaders headers) {
    return new DefaultHttpRequest(io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
        io.netty.handler.codec.http.HttpMethod.valueOf(request.method().name()), uri, headers);
  }

  /** A proxied request in flight, which its owner may end early. */
  public interface Handle {
    /**
     * The target connection is closed after this exchange instead of going back to its pool
     * (desync mitigation's Ambiguous requests); called before the response comes.
     */
    default void closeTargetAfter() {
    }

    /**
     * Ends the exchange now (a deregistered target's delay is over): the client gets
     * {@code error} when no response has started, else its connection is closed.
     */
    void cut(ElbError error);

    /**
     * Whether any of the request went to the target (its head at least was written to the
     * connection); false while it waits for a connection, or when the client left before that.
     * Exchanges that do not tell answer true.
     */
    default boolean headSent() {
      return true;
    }
  }

  private void respond(Exchange ex, HttpClientResponse in, ProxySettings settings) {
    if (ex.done) {
      in.request().reset();
      return;
    }
    HttpServerRequest request = ex.request;
    HttpServerResponse response = request.response();
    int status = in.statusCode();
    response.setStatusCode(status);
    String reason = in.statusMessage();
    if (reason != null && !reason.equals(HttpResponseStatus.valueOf(status).reasonPhrase())) {
      // A reason phrase of the target's own (HTTP/1.1; HTTP/2 has none). The standard one is the
      // server's default already, and setting it would build a new status object per response.
      response.setStatusMessage(reason);
    }
    var headers = response.headers();
    headers.addAll(in.headers());
    HopByHop.strip(headers);
    if (ex.hook != null) {
      ex.hook.beforeHead(headers);
    }
    boolean bodyless = request.method() == HttpMethod.HEAD || in.statusCode() == 204 || in.statusCode() == 304
        || in.statusCode() < 200;
    if (!bodyless && !headers.contains(HttpHeaders.CONTENT_LENGTH)) {
      if (request.version() == HttpVersion.HTTP_1_0) {
        // An HTTP/1.0 client learns where the body ends only from the connection closing.
        headers.set(HttpHeaders.CONNECTION, HttpHeaders.CLOSE);
        ex.closeAfter = true;
      } else {
        response.setChunked(true);
      }
    }
    ex.listener.responseHead(in.statusCode());
    // A pump rather than a pipe: trailers (gRPC's grpc-status) must follow the body.
    in.exceptionHandler(err -> ex.targetFailed(in, err));
    in.handler(buf -> {
      response.write(buf).onFailure(err -> ex.responseFailed(in));
      if (response.writeQueueFull()) {
        in.pause();
        response.drainHandler(v -> in.resume());
      }
    });
    in.endHandler(v -> {
      MultiMap trailers = in.trailers();
      if (!trailers.isEmpty()) {
        MultiMap out = response.trailers();
        trailers.forEach((name, value) -> {
          if (Http1Wire.mayTrail(name)) {
            out.add(name, value);
          }
        });
      }
      ex.done = true;
      response.end().onComplete(ar -> {
        if (ar.failed()) {
          ex.responseFailed(in);
          return;
        }
        if (ex.closeAfter) {
          request.connection().close();
        }
        ex.finish(true);
      });
    });
  }


  private Http2Connections http2(ProxySettings settings) {
    if (settings != lastSettings) {
      lastSettings = settings;
      lastHttp2 = http2.computeIfAbsent(ClientKey.of(settings),
          k -> new Http2Connections(client(k), HTTP2_CONNECTIONS_PER_TARGET));
    }
    return lastHttp2;
  }

  private HttpClientAgent client(ClientKey k) {
    long idle = k.idleMillis();
    HttpClientAgent client = vertx.httpClientBuilder()
        .with(new HttpClientOptions()
            .setKeepAlive(true)
            // A connection with an exchange in flight that carries nothing for this long is closed: a target
            // that stalls mid-body cuts its client. Before the response head the request's own idle timeout
            // (504) fires first. Idle pooled connections close after it too.
            .setIdleTimeout((int) Math.min(Integer.MAX_VALUE, idle + STALLED_RESPONSE_MARGIN_MILLIS))
            .setIdleTimeoutUnit(TimeUnit.MILLISECONDS)
            .setPipelining(false)
            .setConnectTimeout(k.connectMillis())
            .setMaxHeaderSize(MAX_RESPONSE_HEADER_BYTES)
            .setDecompressionSupported(false)
            .setVerifyHost(false)
            .setTrustAll(true)
            .setSslEngineOptions(TlsEngine.current().vertxOptions())
            .setEnabledSecureTransportProtocols(TargetTls.protocols(k.tls13()))
            .setTcpNoDelay(true)
            .setShared(false)
            // HTTP2 and GRPC target groups: ALPN h2 over TLS, prior knowledge in clear; streams multiplexed.
            .setProtocolVersion(HttpVersion.HTTP_2)
            .setUseAlpn(true)
            .setHttp2ClearTextUpgrade(false))
        .build();
    clients.add(client);
    return client;
  }

  /** Closes every client; open connections to targets close. */
  public Future<Void> close() {
    List<Future<Void>> pools = new ArrayList<>();
    http2.values().forEach(p -> pools.add(p.close()));
    return Future.join(pools)
        .transform(ar -> Future.all(clients.stream().map(HttpClientAgent::close).toList()))
        .mapEmpty();
  }

  static ElbError classify(Throwable t, boolean connecting) {
    Throwable c = t;
    for (int i = 0; i < 5 && c != null; i++) {
      if (c instanceof io.netty.channel.ConnectTimeoutException || c instanceof TimeoutException) {
        return connecting ? ElbError.CONNECT_TIMEOUT : ElbError.TARGET_TIMEOUT;
      }
      if (c instanceof SSLException) {
        return ElbError.TARGET_TLS;
      }
      if (c instanceof ConnectException) {
        return ElbError.TARGET_REFUSED;
      }
      if (c instanceof TooLongFrameException || c instanceof DecoderException || c instanceof IllegalArgumentException
          || c instanceof NumberFormatException) {
        return ElbError.TARGET_MALFORMED;
      }
      c = c.getCause();
    }
    if (t instanceof IOException || t instanceof io.vertx.core.http.HttpClosedException) {
      return ElbError.TARGET_RESET;
    }
    return connecting ? ElbError.TARGET_REFUSED : ElbError.TARGET_MALFORMED;
  }

  /**
   * Adds to a target's response head before it goes to the client (stickiness cookies, a
   * listener's inserted headers). Called on the owning event loop, only for a response that came
   * from the target.
   */
  @FunctionalInterface
  public interface ResponseHook {
    /** @param headers the response headers as the client will get them; may be changed */
    void beforeHead(io.vertx.core.MultiMap headers);

    /** Whether {@link #beforeHead} may change the head (without, a target's head goes on as its bytes). */
    default boolean changesHead() {
      return true;
    }

    /** The listener's header modification, for the error pages of the exchange. */
    default ListenerHeaders listenerHeaders() {
      return ListenerHeaders.DEFAULT;
    }
  }

  /** Told what happens to an exchange (metrics, outstanding-request counts, access log). */
  public interface ExchangeListener {
    /** The target's response head arrived. */
    default void responseHead(int status) {
    }

    /** The load balancer answered instead of the target. */
    default void failed(ElbError error) {
    }

    /** The exchange ended; {@code complete} is false when it was cut. */
    default void finished(boolean complete) {
    }

    ExchangeListener NONE = new ExchangeListener() {
    };
  }

  /** The state of one proxied request. Touched only on the owning event loop. */
  private static final class Exchange implements Handle {
    final HttpServerRequest request;
    final ExchangeListener listener;
    final ResponseHook hook;
    HttpClientRequest out;
    /** No more response may be written by the forwarder. */
    boolean done;
    boolean finished;
    boolean clientGone;
    boolean closeAfter;
    /** The load balancer answers this exchange itself (an ELB status, or gRPC trailers with one). */
    boolean answered;

    Exchange(HttpServerRequest request, ExchangeListener listener, ResponseHook hook) {
      this.request = request;
      this.listener = listener;
      this.hook = hook;
    }

    /** The target closed or reset mid-body, or the client went away: cut the client connection. */
    /**
     * The target's response broke off after its head went to the client (reset, connection gone,
     * silent past the idle timeout): too late for a status, so the client's stream or connection is
     * cut; but a gRPC call over HTTP/2 still ends with one, in its trailers (UNAVAILABLE,
     * DEADLINE_EXCEEDED), as on the direct path.
     */
    void targetFailed(HttpClientResponse in, Throwable cause) {
      if (finished || answered) {
        return;
      }
      if (!clientGone && request.version() == HttpVersion.HTTP_2 && Grpc.isGrpc(request)) {
        // fail() resets the stream to the target too (out).
        fail(cause instanceof io.vertx.core.http.StreamResetException ? ElbError.TARGET_RESET : classify(cause, false),
            cause);
        return;
      }
      responseFailed(in);
    }

    void responseFailed(HttpClientResponse in) {
      if (finished || answered) {
        // Failing is already under way: the reset of the target's stream below ends up here too.
        return;
      }
      done = true;
      if (!clientGone) {
        if (request.version() == HttpVersion.HTTP_2) {
          request.response().reset();
        } else {
          request.connection().close();
        }
      }
      in.request().reset();
      finish(false);
    }

    void finish(boolean complete) {
      if (!finished) {
        finished = true;
        listener.finished(complete);
      }
    }

    void fail(ElbError error, Throwable cause) {
      if (done) {
        return;
      }
      done = true;
      answered = true;
      LOG.debug("{} {} -> {}: {}", request.method(), request.uri(), error.status(), cause.toString());
      if (out != null) {
        out.reset();
      }
      if (!clientGone) {
        // A body still on its way would have to be read and thrown away: close instead.
        ElbResponses.send(request, error, !request.isEnded(), ListenerHeaders.of(hook));
      }
      listener.failed(error);
      finish(false);
    }

    @Override
    public void cut(ElbError error) {
      if (finished) {
        return;
      }
      if (!request.response().headWritten() || Grpc.isGrpc(request)) {
        // A gRPC call whose head went out still ends with a status, in its trailers.
        fail(error, new IllegalStateException(error.reason()));
        return;
      }
      done = true;
      if (out != null) {
        out.reset();
      }
      if (!clientGone) {
        // Too late for a status: cut the stream (HTTP/2 carries other streams) or the connection.
        if (request.version() == HttpVersion.HTTP_2) {
          request.response().reset();
        } else {
          request.connection().close();
        }
      }
      listener.failed(error);
      finish(false);
    }

    void clientClosed() {
      clientGone = true;
      if (!done) {
        done = true;
        if (out != null) {
          out.reset();
        }
      }
      finish(false);
    }
  }
}
