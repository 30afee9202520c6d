package io.fulcrum.listener;

import io.netty.channel.Channel;
import io.netty.util.concurrent.EventExecutor;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What listeners registered for the connections they accept, by event loop and listening address:
 * how the network transport, which sees each connection as it is accepted but knows no listener,
 * finds the listener that asked to see it. A connection falls under its local address's
 * registration, or under that of the wildcard address of its port (a listener bound to
 * {@code 0.0.0.0} or {@code ::}).
 *
 * @param <V> what a listener registers
 */
final class ByListeningAddress<V> {

  private static final InetAddress ANY_V4 = address(new byte[4]);
  private static final InetAddress ANY_V6 = address(new byte[16]);

  private static InetAddress address(byte[] bytes) {
    try {
      return InetAddress.getByAddress(bytes);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A registration's key: the event loop that serves the listener's connections, and its address. */
  record Key(EventExecutor loop, InetSocketAddress local) {
  }

  private final Map<Key, V> values = new ConcurrentHashMap<>();

  /** Registers {@code value} for {@code local}'s connections on {@code loop}, in place of an earlier one. */
  void register(EventExecutor loop, InetSocketAddress local, V value) {
    values.put(new Key(loop, local), value);
  }

  void unregister(EventExecutor loop, InetSocketAddress local) {
    values.remove(new Key(loop, local));
  }

  /** The registration an accepted connection falls under, or null (also when nothing is registered). */
  Key keyOf(Channel ch) {
    if (values.isEmpty() || !(ch.localAddress() instanceof InetSocketAddress local)) {
      return null;
    }
    for (InetSocketAddress a : new InetSocketAddress[] {local, new InetSocketAddress(ANY_V4, local.getPort()),
        new InetSocketAddress(ANY_V6, local.getPort())}) {
      Key k = new Key(ch.eventLoop(), a);
      if (values.containsKey(k)) {
        return k;
      }
    }
    return null;
  }

  /** What is registered under {@code key} now, or null. */
  V get(Key key) {
    return values.get(key);
  }
}
