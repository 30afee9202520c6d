package io.fulcrum.bootstrap;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.AbstractEventExecutorGroup;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import io.netty.util.concurrent.Promise;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;

/**
 * What Vert.x takes for its acceptor threads, made of its event loops instead (see
 * {@link LeanTransport}): a channel registered from one of the event loops (a server's listening
 * socket, bound as a verticle starts listening) is registered on that loop, so its connections are
 * accepted where they are served; from any other thread, on the loops in turn.
 *
 * <p>It owns no thread: shutting it down only marks it shut down, and the event loops end with
 * Vert.x's own group, which Vert.x shuts down right after this one.
 */
final class AcceptingLoops extends AbstractEventExecutorGroup implements EventLoopGroup {

  private final EventLoopGroup loops;
  private final Promise<Void> terminated = GlobalEventExecutor.INSTANCE.newPromise();

  AcceptingLoops(EventLoopGroup loops) {
    this.loops = loops;
  }

  /** The event loop running this thread, else the next of the loops. */
  @Override
  public EventLoop next() {
    for (EventExecutor e : loops) {
      if (e.inEventLoop()) {
        return (EventLoop) e;
      }
    }
    return loops.next();
  }

  @Override
  public Iterator<EventExecutor> iterator() {
    return loops.iterator();
  }

  @Override
  public ChannelFuture register(Channel channel) {
    return next().register(channel);
  }

  @Override
  public ChannelFuture register(ChannelPromise promise) {
    return next().register(promise);
  }

  @Override
  @Deprecated
  public ChannelFuture register(Channel channel, ChannelPromise promise) {
    return next().register(channel, promise);
  }

  @Override
  public Future<?> shutdownGracefully(long quietPeriod, long timeout, TimeUnit unit) {
    terminated.trySuccess(null);
    return terminated;
  }

  @Override
  public Future<?> terminationFuture() {
    return terminated;
  }

  @Override
  @Deprecated
  public void shutdown() {
    terminated.trySuccess(null);
  }

  @Override
  public boolean isShuttingDown() {
    return terminated.isDone();
  }

  @Override
  public boolean isShutdown() {
    return terminated.isDone();
  }

  @Override
  public boolean isTerminated() {
    return terminated.isDone();
  }

  @Override
  public boolean awaitTermination(long timeout, TimeUnit unit) throws InterruptedException {
    return terminated.await(timeout, unit);
  }
}
