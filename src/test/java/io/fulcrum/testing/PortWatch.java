package io.fulcrum.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Tries to connect to some TCP addresses every few milliseconds, on a timer thread, and records
 * which of them ever accepted a connection: the proof that a process that should bind nothing
 * never did, during the whole time it ran.
 */
public final class PortWatch implements AutoCloseable {

  private final List<InetSocketAddress> addresses;
  private final Set<InetSocketAddress> accepted = ConcurrentHashMap.newKeySet();
  private final AtomicLong rounds = new AtomicLong();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "port-watch");
    t.setDaemon(true);
    return t;
  });

  private PortWatch(List<InetSocketAddress> addresses) {
    this.addresses = List.copyOf(addresses);
  }

  /** Starts watching {@code ports} on 127.0.0.1 every 5 ms. */
  public static PortWatch loopback(int... ports) {
    PortWatch w = new PortWatch(Arrays.stream(ports).mapToObj(p -> new InetSocketAddress("127.0.0.1", p))
        .toList());
    w.timer.scheduleWithFixedDelay(w::round, 0, 5, TimeUnit.MILLISECONDS);
    return w;
  }

  private void round() {
    for (InetSocketAddress a : addresses) {
      try (Socket s = new Socket()) {
        s.connect(a, 200);
        accepted.add(a);
      } catch (IOException e) {
        // Refused: nothing listens there, as expected.
      }
    }
    rounds.incrementAndGet();
  }

  /** The addresses that accepted at least one connection so far. */
  public Set<InetSocketAddress> accepted() {
    return Set.copyOf(accepted);
  }

  /** How many times every address has been tried. */
  public long rounds() {
    return rounds.get();
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
