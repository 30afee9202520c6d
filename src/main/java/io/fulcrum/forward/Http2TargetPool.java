package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFactory;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * HTTP/2 connections to the targets of HTTP2 and GRPC target groups (in clear) for the direct
 * path, on one event loop, opened with the listener's connect timeout: up to a few per target,
 * each carrying many streams. A stream goes on the usable connection with the fewest streams; a
 * new connection opens, for the streams that follow, while the target has fewer than the limit
 * and every open one is at least half full. Streams that come while a target's first connection
 * opens wait for it. Touched only on the owning event loop.
 */
final class Http2TargetPool {

  private final Bootstrap bootstrap;
  private final int maxPerTarget;
  private final Map<Upstream, Target> targets = new HashMap<>();

  /** The connections of one target. */
  private static final class Target {
    final List<Http2TargetConnection> open = new ArrayList<>(4);
    int connecting;
    /** Exchanges waiting for the first connection. */
    final List<RelayExchange> waiting = new ArrayList<>(2);
  }

  Http2TargetPool(EventLoop loop, ChannelFactory<? extends Channel> channels, long idleMillis, int connectMillis,
      int maxPerTarget) {
    this.maxPerTarget = maxPerTarget;
    this.bootstrap = new Bootstrap()
        .group(loop)
        .channelFactory(channels)
        .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectMillis)
        .option(ChannelOption.TCP_NODELAY, true)
        .handler(new ChannelInitializer<>() {
          @Override
          protected void initChannel(Channel ch) {
            Http2TargetConnection.install(ch, idleMillis);
          }
        });
  }

  /** Puts {@code ex} on a stream to {@code target}, now or once a connection is there. */
  void stream(Upstream target, RelayExchange ex) {
    Target t = targets.computeIfAbsent(target, k -> new Target());
    Http2TargetConnection best = null;
    int fewest = Integer.MAX_VALUE;
    for (int i = 0; i < t.open.size(); i++) {
      Http2TargetConnection c = t.open.get(i);
      if (c.usable()) {
        int active = c.activeStreams();
        if (active < fewest) {
          best = c;
          fewest = active;
        }
      }
    }
    boolean roomForMore = t.open.size() + t.connecting < maxPerTarget;
    if (best != null) {
      ex.onConnection(best);
      best.open(ex);
      if (roomForMore && t.connecting == 0 && (long) fewest * 2 >= best.maxStreams()) {
        connect(target, t); // for the streams that follow
      }
      return;
    }
    t.waiting.add(ex);
    if (t.connecting == 0) {
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
        connectFailed(target, t, f.cause());
        return;
      }
      // Netty completes the connect before the channel is active, and the client preface goes out when it
      // becomes active: streams wait for that, just after.
      ch.eventLoop().execute(() -> connected(target, t, ch));
    });
  }

  private void connectFailed(Upstream target, Target t, Throwable cause) {
    t.connecting--;
    List<RelayExchange> failed = List.copyOf(t.waiting);
    t.waiting.clear();
    forgetIfEmpty(target, t);
    failed.forEach(ex -> ex.connectFailed(cause));
  }

  private void connected(Upstream target, Target t, Channel ch) {
    if (!ch.isActive()) {
      connectFailed(target, t, new java.io.IOException("the target closed the connection at once"));
      return;
    }
    t.connecting--;
    Http2TargetConnection c = connectionOf(ch);
    t.open.add(c);
    ch.closeFuture().addListener(closed -> {
      t.open.remove(c);
      forgetIfEmpty(target, t);
    });
    List<RelayExchange> ready = List.copyOf(t.waiting);
    t.waiting.clear();
    for (RelayExchange ex : ready) {
      if (!ex.finished()) {
        ex.onConnection(c);
        c.open(ex);
      }
    }
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
