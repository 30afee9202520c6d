package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.fulcrum.forward.HttpForwarder.ExchangeListener;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Function;

/**
 * The direct path's forwarder, one per event loop: HTTP/1.1 requests that Netty's decoder parsed
 * on a client connection, and HTTP/2 streams read by Netty's HTTP/2 codec, go to HTTP/1.1 targets
 * (in clear or over TLS) over this loop's own keep-alive channels, without Vert.x's request,
 * response and client objects in between (see docs/performance.md). Every method is called on the owning loop.
 */
public final class DirectForwarder {

  /**
   * The buffer allocator of the data path's channels (client connections and target connections):
   * Netty's pooled allocator with its per-thread caches. Netty 4.2's default, the adaptive
   * allocator, cost about 4 % more CPU per HTTP/1.1 request and 12-14 % per HTTP/2 request here
   * (loadtest/RESULTS.md), for about 8 MB less memory.
   */
  public static final ByteBufAllocator ALLOCATOR = PooledByteBufAllocator.DEFAULT;

  /** Requests the direct path has forwarded in this process, over every loop (diagnostics, tests). */
  private static final LongAdder FORWARDED = new LongAdder();

  private final ChannelFactory<? extends Channel> channels;
  private final Pools<ChannelPool> pools = new Pools<>();
  private final Pools<Http2TargetPool> http2Pools = new Pools<>();

  /** The timeouts and TLS (none, TLS 1.2, TLS 1.2 and 1.3) a pool's connections are made with. */
  private record Key(long idleMillis, int connectMillis, boolean tls, boolean tls13) {
  }

  /**
   * One kind of pool by {@link Key}; the last settings' two pools (in clear and over TLS) at hand,
   * since consecutive requests nearly always come with the same settings object.
   */
  private static final class Pools<P> {
    final Map<Key, P> byKey = new HashMap<>();
    private ProxySettings lastSettings;
    private P last;
    private P lastTls;

    P get(ProxySettings settings, boolean tls, Function<Key, P> make) {
      if (settings != lastSettings) {
        lastSettings = settings;
        last = null;
        lastTls = null;
      }
      P p = tls ? lastTls : last;
      if (p == null) {
        Key key = new Key(settings.idleTimeoutMillis(), settings.connectTimeoutMillis(), tls,
            tls && settings.targetTls13());
        p = byKey.computeIfAbsent(key, make);
        if (tls) {
          lastTls = p;
        } else {
          last = p;
        }
      }
      return p;
    }
  }

  /** @param channels makes channels of the transport the client connections use (epoll or NIO) */
  public DirectForwarder(ChannelFactory<? extends Channel> channels) {
    this.channels = channels;
  }

  /**
   * Sends {@code request} (its headers rewritten by {@link ForwardHeaders#rewrite} but for
   * {@code forwarded}, which go after them; its URI in origin form) to {@code target}; the body
   * parts that follow go to {@link DirectExchange#fromClient}.
   *
   * @param client  the client connection
   * @param chunked whether the client sends its body chunked (read before hop-by-hop headers went)
   * @param tls     whether the target is reached over TLS (an HTTPS target group)
   * @param hook    adds to the response head (stickiness cookies); may be null
   */
  public DirectExchange forward(DirectExchange.Client client, HttpRequest request, ForwardHeaders.Values forwarded,
      boolean chunked, Upstream target, boolean tls, ProxySettings settings, ExchangeListener listener,
      HttpForwarder.ResponseHook hook) {
    if (chunked) {
      request.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    request.setProtocolVersion(HttpVersion.HTTP_1_1);
    FORWARDED.increment();
    ChannelPool pool = pool(client.out().channel().eventLoop(), settings, tls);
    DirectExchange ex = new DirectExchange(request, forwarded, chunked, target, tls, pool, listener, hook, client);
    ex.start();
    return ex;
  }

  /**
   * Sends the request of an HTTP/2 client's {@code stream} ({@code request}: its head in HTTP/1.1
   * terms, headers rewritten by {@link ForwardHeaders#rewrite} but for {@code forwarded}, URI in
   * origin form) to {@code target} over HTTP/1.1; the stream's DATA frames follow through
   * {@link StreamExchange#fromClient}.
   *
   * @param hasBody whether DATA frames follow (the HEADERS frame did not end the stream); without a
   *                Content-Length the body goes to the target chunked
   */
  public StreamExchange forward(LaneExchange.Client client, Http2Stream stream, HttpRequest request,
      ForwardHeaders.Values forwarded, boolean hasBody, Upstream target, boolean tls, ProxySettings settings,
      ExchangeListener listener, HttpForwarder.ResponseHook hook) {
    StreamExchange ex = new StreamExchange(client, stream, request, forwarded, hasBody, target, tls,
        pool(client.ctx().channel().eventLoop(), settings, tls), listener, hook);
    if (hasBody && !request.headers().contains(HttpHeaderNames.CONTENT_LENGTH)) {
      request.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
    }
    FORWARDED.increment();
    ex.start();
    return ex;
  }

  /**
   * Relays an HTTP/2 client's {@code stream} to a stream of {@code target} (an HTTP2 or GRPC target
   * group's); the client stream's frames follow through the {@link RelayExchange}.
   *
   * @param request   the request head for the target ({@link RelayExchange#requestHeaders})
   * @param endAtHead whether the client's HEADERS frame ended its stream
   * @param tls       whether the target is reached over TLS (an HTTPS target group; ALPN h2)
   */
  public RelayExchange relay(LaneExchange.Client client, Http2Stream stream, Http2Headers request, boolean endAtHead,
      boolean grpc, Upstream target, boolean tls, ProxySettings settings, ExchangeListener listener,
      HttpForwarder.ResponseHook hook) {
    RelayExchange ex = new RelayExchange(client, stream, request, endAtHead, grpc, target,
        http2Pool(client.ctx().channel().eventLoop(), settings, tls), settings.idleTimeoutMillis(), listener, hook);
    FORWARDED.increment();
    ex.start();
    return ex;
  }

  private Http2TargetPool http2Pool(EventLoop loop, ProxySettings settings, boolean tls) {
    return http2Pools.get(settings, tls, k -> new Http2TargetPool(loop, channels, k.idleMillis(), k.connectMillis(),
        k.tls() ? TargetTls.h2Context(k.tls13()) : null, HttpForwarder.HTTP2_CONNECTIONS_PER_TARGET));
  }

  /**
   * The pool of connections to targets that {@code settings}' timeouts make, on {@code loop} (this
   * forwarder's), over TLS or not.
   */
  ChannelPool pool(EventLoop loop, ProxySettings settings, boolean tls) {
    return pools.get(settings, tls, k -> new ChannelPool(loop, channels, k.idleMillis(), k.connectMillis(),
        k.tls() ? TargetTls.context(k.tls13()) : null, HttpForwarder.POOL_SIZE_PER_TARGET, System::nanoTime));
  }

  /** How many requests the direct path has forwarded in this process. */
  public static long forwarded() {
    return FORWARDED.sum();
  }

  /** Closes every connection to targets. */
  public Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    pools.byKey.values().forEach(p -> closing.add(p.close()));
    http2Pools.byKey.values().forEach(p -> closing.add(p.close()));
    return Future.join(closing).mapEmpty();
  }
}
