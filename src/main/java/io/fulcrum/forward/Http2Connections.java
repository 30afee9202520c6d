package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.RequestOptions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HTTP/2 connections to the targets of HTTP2 and GRPC target groups, owned by one event loop: up
 * to a few connections per target, each carrying many streams. A request goes on the open
 * connection with the fewest active streams; a new connection is opened while the target has
 * fewer than the limit and every open one is at least half full (a stream beyond a connection's
 * {@code SETTINGS_MAX_CONCURRENT_STREAMS} waits in Vert.x for one to end).
 *
 * <p>As {@link KeepAlivePool} for HTTP/1.1, this replaces Vert.x's pool on the request path, which
 * builds a context per request. Touched only on the owning event loop.
 */
final class Http2Connections {

  private static final Logger LOG = LoggerFactory.getLogger(Http2Connections.class);

  private final HttpClientAgent client;
  private final int maxPerTarget;
  private final Map<Upstream, Target> targets = new HashMap<>();

  /**
   * @param client       an HTTP/2 client (ALPN over TLS, prior knowledge in clear)
   * @param maxPerTarget connections per target at most
   */
  Http2Connections(HttpClientAgent client, int maxPerTarget) {
    this.client = client;
    this.maxPerTarget = maxPerTarget;
  }

  /** A stream to {@code target} for {@code options} (method, URI, headers). */
  Future<HttpClientRequest> request(Upstream target, boolean tls, RequestOptions options) {
    Target t = targets.computeIfAbsent(target, k -> new Target());
    HttpClientConnection best = null;
    long fewest = Long.MAX_VALUE;
    for (int i = 0; i < t.open.size(); i++) {
      HttpClientConnection c = t.open.get(i);
      long active = c.activeStreams();
      if (active < fewest) {
        best = c;
        fewest = active;
      }
    }
    boolean roomForMore = t.open.size() + t.connecting.size() < maxPerTarget;
    if (best != null && (!roomForMore || fewest * 2 < best.maxActiveStreams())) {
      return best.request(options);
    }
    if (best == null && !t.connecting.isEmpty()) {
      // A connection is on its way: this stream waits for it rather than opening another one.
      return t.connecting.get(0).compose(c -> c.request(options));
    }
    return connect(target, t, tls).compose(c -> c.request(options));
  }

  private Future<HttpClientConnection> connect(Upstream target, Target t, boolean tls) {
    Future<HttpClientConnection> f = client.connect(new HttpConnectOptions().setHost(target.address())
        .setPort(target.port()).setSsl(tls));
    t.connecting.add(f);
    f.onComplete(ar -> {
      t.connecting.remove(f);
      if (ar.succeeded()) {
        HttpClientConnection c = ar.result();
        t.open.add(c);
        c.exceptionHandler(e -> LOG.debug("connection to {}:{}: {}", target.address(), target.port(), e.toString()));
        c.closeHandler(v -> {
          t.open.remove(c);
          forget(target, t);
        });
        // GOAWAY from the target: no new streams on it; the ones under way finish.
        c.shutdownHandler(v -> t.open.remove(c));
      } else {
        forget(target, t);
      }
    });
    return f;
  }

  private void forget(Upstream target, Target t) {
    if (t.open.isEmpty() && t.connecting.isEmpty()) {
      targets.remove(target, t);
    }
  }

  /** Closes every connection (the forwarder stops). */
  Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    for (Target t : List.copyOf(targets.values())) {
      for (HttpClientConnection c : List.copyOf(t.open)) {
        closing.add(c.close());
      }
    }
    return Future.join(closing).mapEmpty();
  }

  /** The connections of one target. */
  private static final class Target {
    final List<HttpClientConnection> open = new ArrayList<>(4);
    final List<Future<HttpClientConnection>> connecting = new ArrayList<>(1);
  }
}
