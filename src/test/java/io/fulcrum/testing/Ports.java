package io.fulcrum.testing;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Free ports for listeners whose port must be written into a config before start.
 *
 * <p>They come from below Linux's ephemeral range (32768-60999): a port the kernel handed out for
 * port 0 and that was let go could be taken, before the listener binds it, as the local port of
 * any outgoing connection (a health check, a target connection), which made binds fail now and
 * then. Here only another test that binds the same port could, so each JVM starts at its own point
 * of the range and never hands out a port twice until it wraps.
 */
public final class Ports {

  private static final int FIRST = 20_000;
  private static final int COUNT = 12_000;
  private static final AtomicInteger NEXT =
      new AtomicInteger((int) (ProcessHandle.current().pid() * 7919 % COUNT));

  private Ports() {
  }

  public static int free() {
    for (int i = 0; i < COUNT; i++) {
      int port = FIRST + Math.floorMod(NEXT.getAndIncrement(), COUNT);
      if (bindable(port)) {
        return port;
      }
    }
    throw new IllegalStateException("no free port in " + FIRST + "-" + (FIRST + COUNT - 1));
  }

  /** Whether nothing holds {@code port} on any address (the wildcard bind fails if anything does). */
  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(port), 1);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
