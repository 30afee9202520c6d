package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.EventLoop;
import io.netty.handler.ssl.SslContext;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * HTTP/2 connections to the targets of HTTP2 and GRPC target groups (in clear, or over TLS with
 * ALPN h2) for the direct path, on one event loop, opened with the listener's connect timeout: up to a few per target,
 * each carrying many streams. A connection takes streams once the target's SETTINGS came (its
 * limit on concurrent streams is then known). A stream goes on the ready connection with the
 * fewest streams; when none has room, it waits for the next connection, and one opens while the
 * target has fewer than the limit (one also opens ahead, for the streams that follow, once the
 * best is half full); with every connection open and full, it waits on the least busy one for a
 * stream to end. Streams that never started on a connection that went away (GOAWAY, close) are
 * placed again. Touched only on the owning event loop.
 */
final class Http2TargetPool {

  private final Bootstrap bootstrap;
  private final int maxPerTarget;
  private final Map<Upstream, Target> targets = new HashMap<>();
  /** How many connections an exchange may lose before it had a stream, before it fails as the target's reset. */
  private static final int MAX_PLACEMENTS = 3;

  /** The connections of one target. */
  private static final class Target {
    final List<Http2TargetConnection> open = new ArrayList<>(4);
    int connecting;
    /** Exchanges waiting for the first connection. */
    final List<RelayExchange> waiting = new ArrayList<>(2);
  }

  /** @param tls TLS toward the targets (ALPN h2: {@link TargetTls#h2Context}), or null for connections in clear */
  Http2TargetPool(EventLoop loop, ChannelFactory<? extends Channel> channels, long idleMillis, int connectMillis,
      SslContext tls, int maxPerTarget) {
    this.maxPerTarget = maxPerTarget;
    this.bootstrap = ChannelPool.bootstrap(loop, channels, connectMillis, ch -> {
      if (tls != null) {
        ch.pipeline().addLast("tls", tls.newHandler(ch.alloc())); // the preface waits for the handshake
      }
      Http2TargetConnection.install(ch, idleMillis);
    });
  }

  /** Puts {@code ex} on a stream to {@code target}, now or once a connection has room for it. */
  void stream(Upstream target, RelayExchange ex) {
    Target t = targets.computeIfAbsent(target, k -> new Target());
    Http2TargetConnection best = null;
    int fewest = Integer.MAX_VALUE;
    for (int i = 0; i < t.open.size(); i++) {
      Http2TargetConnection c = t.open.get(i);
      int active = c.activeStreams();
      if (c.usable() && active < fewest) {
        best = c;
        fewest = active;
      }
    }
    boolean roomForMore = t.open.size() + t.connecting < maxPerTarget;
    if (best != null && (best.hasRoom() || !roomForMore && t.connecting == 0)) {
      ex.onConnection(best);
      best.open(ex); // at the target's limit, it waits on the connection for a stream to end
      if (roomForMore && t.connecting == 0 && (long) best.activeStreams() * 2 >= best.maxStreams()) {
        connect(target, t); // half full: another connection for the streams that follow
      }
      return;
    }
    // No connection has room (or none is there yet): wait for the next one to be ready, and open it.
    t.waiting.add(ex);
    if (t.connecting == 0 && roomForMore) {
      connect(target, t);
    }
  }

  /** Forgets an exchange still waiting for a connection (its client went away). */
  void forget(Upstream target, RelayExchange ex) {
    Target t = targets.get(target);
    if (t != null) {
      t.waiting.remove(ex);
    }
  }

  private void connect(Upstream target, Target t) {
    t.connecting++;
    bootstrap.connect(target.socketAddress()).addListener(f -> {
      Channel ch = ((ChannelFuture) f).channel();
      if (!f.isSuccess()) {
        t.connecting--;
        connectFailed(target, t, f.cause());
        return;
      }
      connectionOf(ch).owner(new Http2TargetConnection.Owner() {
        @Override
        public void ready(Http2TargetConnection c) {
          t.connecting--;
          t.open.add(c);
          place(target, t, takeWaiting(t), false);
        }

        @Override
        public void lost(Http2TargetConnection c, boolean wasReady, List<RelayExchange> unstarted) {
          if (wasReady) {
            t.open.remove(c);
          } else {
            t.connecting--;
          }
          place(target, t, unstarted, true);
          // What waited for a connection is placed again too: it may have waited for this one.
          place(target, t, takeWaiting(t), !wasReady);
          forgetIfEmpty(target, t);
        }
      });
    });
  }

  private static List<RelayExchange> takeWaiting(Target t) {
    List<RelayExchange> w = List.copyOf(t.waiting);
    t.waiting.clear();
    return w;
  }

  /**
   * Places waiting exchanges; with {@code lost}, they lost the connection they had, which counts: after a
   * few such losses an exchange fails as the target's reset.
   */
  private void place(Upstream target, Target t, List<RelayExchange> exchanges, boolean lost) {
    for (RelayExchange ex : exchanges) {
      if (ex.finished()) {
        continue;
      }
      if (lost && ex.placedAgain() > MAX_PLACEMENTS) {
        ex.targetConnectionLost();
      } else {
        stream(target, ex);
      }
    }
  }

  private void connectFailed(Upstream target, Target t, Throwable cause) {
    if (!t.open.isEmpty() || t.connecting > 0) {
      place(target, t, takeWaiting(t), true); // other connections take them
      return;
    }
    List<RelayExchange> failed = takeWaiting(t);
    forgetIfEmpty(target, t);
    failed.forEach(ex -> ex.connectFailed(cause));
  }

  private static Http2TargetConnection connectionOf(Channel ch) {
    return ch.attr(Http2TargetConnection.CONNECTION).get();
  }

  private void forgetIfEmpty(Upstream target, Target t) {
    if (t.open.isEmpty() && t.connecting == 0 && t.waiting.isEmpty()) {
      targets.remove(target, t);
    }
  }

  /** Closes every connection. */
  Future<Void> close() {
    List<Future<Void>> closing = new ArrayList<>();
    for (Target t : List.copyOf(targets.values())) {
      for (Http2TargetConnection c : List.copyOf(t.open)) {
        Promise<Void> p = Promise.promise();
        c.close().addListener(f -> p.complete());
        closing.add(p.future());
      }
    }
    return Future.join(closing).mapEmpty();
  }
}
