package io.fulcrum.bootstrap;

import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.transport.Transport;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The network transport under Fulcrum's event loops, chosen by {@code FULCRUM_TRANSPORT}:
 * <ul>
 *   <li>{@code auto} (the default): Netty's native epoll transport where the platform has it (Linux
 *   x86_64 and aarch64), else Java NIO;</li>
 *   <li>{@code io_uring}: Linux's io_uring (kernel 5.14 or later, not turned off by
 *   {@code kernel.io_uring_disabled} or a seccomp profile, as Docker's and containerd's default ones
 *   do). It takes an event-loop round's reads and writes in one system call; with the one-shot polls
 *   set below, that saved little CPU here, and latency-bound HTTP/2 load ran 8-10 % slower than on
 *   epoll (docs/performance.md), so it is not the default;</li>
 *   <li>{@code epoll}, {@code nio}: that one.</li>
 * </ul>
 * A transport named but not available here stops start-up. {@code FULCRUM_NATIVE_TRANSPORT=false},
 * the older switch, still means {@code nio} when {@code FULCRUM_TRANSPORT} is not set.
 */
public final class NetworkTransport {

  public static final String ENV = "FULCRUM_TRANSPORT";
  static final String LEGACY_ENV = "FULCRUM_NATIVE_TRANSPORT";
  static final List<String> VALUES = List.of("auto", "io_uring", "epoll", "nio");

  /**
   * Netty's io_uring transport waits for readability with a multishot POLL_ADD, which reports an
   * edge once. As far as Netty 4.2.18's code shows, a POLLIN completion that comes while a read is
   * already scheduled is dropped, and when that read returns the last bytes with the socket then
   * empty, a reset that came with them is never reported: the connection hangs until an idle
   * timeout. Measured here: 36 of 300 responses cut by a target's reset right behind their last
   * bytes went unnoticed; with one-shot POLL_ADD, re-armed for each read, 0 of 300. Set before
   * Netty's io_uring class reads it, unless the JVM was given a value.
   */
  static final String POLL_ADD_MULTISHOT = "io.netty.iouring.pollAddMultishotEnabled";

  static {
    if (System.getProperty(POLL_ADD_MULTISHOT) == null) {
      System.setProperty(POLL_ADD_MULTISHOT, "false");
    }
  }

  private NetworkTransport() {
  }

  /** Whether this machine offers io_uring ({@code FULCRUM_TRANSPORT=io_uring} would start). */
  public static boolean ioUringAvailable() {
    return Transport.IO_URING != null && Transport.IO_URING.available();
  }

  /** A Vert.x on the transport {@link #choose} picks. */
  public static Vertx vertx(Map<String, String> env) {
    return vertx(env, VertxOptions.DEFAULT_EVENT_LOOP_POOL_SIZE);
  }

  /** Like {@link #vertx(Map)}, with {@code eventLoops} event loops. */
  public static Vertx vertx(Map<String, String> env, int eventLoops) {
    return vertx(choose(env), eventLoops);
  }

  /** A Vert.x on {@code transport} with {@code eventLoops} event loops. */
  static Vertx vertx(Transport transport, int eventLoops) {
    return Vertx.builder()
        .with(new VertxOptions().setEventLoopPoolSize(eventLoops))
        .withTransport(lean(transport))
        .build();
  }

  /**
   * A native transport accepting on the event loops and setting no socket option to what it is
   * already ({@link LeanTransport}); NIO as it is (Vert.x takes any other transport for a native
   * one). The system property {@code fulcrum.leanTransport=false} keeps Vert.x's way, to measure one
   * against the other.
   */
  static Transport lean(Transport transport) {
    if (transport == Transport.NIO || !Boolean.parseBoolean(System.getProperty("fulcrum.leanTransport", "true"))) {
      return transport;
    }
    return LeanTransport.of(transport);
  }

  /**
   * The transport {@code env} asks for.
   *
   * @throws IllegalArgumentException naming the variable, when its value is not one of
   *                                  {@link #VALUES} or names a transport this machine does not offer
   */
  public static Transport choose(Map<String, String> env) {
    String value = env.get(ENV);
    if (value == null || value.isBlank()) {
      value = "false".equalsIgnoreCase(env.get(LEGACY_ENV)) ? "nio" : "auto";
    }
    String name = value.trim().toLowerCase(Locale.ROOT);
    switch (name) {
      case "auto":
        return Transport.EPOLL != null && Transport.EPOLL.available() ? Transport.EPOLL : Transport.NIO;
      case "io_uring":
        return available(Transport.IO_URING, name);
      case "epoll":
        return available(Transport.EPOLL, name);
      case "nio":
        return Transport.NIO;
      default:
        throw new IllegalArgumentException(ENV + "=" + value + ": not a transport; use one of " + String.join(", ", VALUES));
    }
  }

  static Transport available(Transport transport, String name) {
    if (transport == null) {
      throw new IllegalArgumentException(ENV + "=" + name + ": " + name + " is not available on this platform");
    }
    if (!transport.available()) {
      Throwable cause = transport.unavailabilityCause();
      throw new IllegalArgumentException(ENV + "=" + name + ": " + name + " is not available here"
          + (cause == null ? "" : " (" + rootMessage(cause) + ")"));
    }
    return transport;
  }

  private static String rootMessage(Throwable t) {
    while (t.getCause() != null && t.getCause() != t) {
      t = t.getCause();
    }
    return t.toString();
  }
}
