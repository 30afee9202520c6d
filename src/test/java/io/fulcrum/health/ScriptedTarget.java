package io.fulcrum.health;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A raw TCP target for health-check tests: it reads each request's bytes as they arrive on the
 * wire and behaves as its script says for that check (the n-th connection gets the n-th step; the
 * last step repeats). Runs on plain threads of its own, never on a Vert.x context, so what the
 * checker sends is seen byte for byte and a reset is a real RST (SO_LINGER 0).
 *
 * <p>{@link #holding()} counts requests the target deliberately leaves unanswered and whose
 * connection is still open: a test settles virtual time on
 * {@code healthChecksInFlight() == holding()}, so a hanging check counts as settled once its
 * request is in, and a timed-out one once the checker has closed its connection.
 */
final class ScriptedTarget implements AutoCloseable {

  /** What the target does with one check. */
  sealed interface Step permits Reply, HostIsMe, Hang, Close, Reset {
  }

  /**
   * Answers with {@code bytes}; closes the connection itself when {@code close}, else waits for
   * the checker to close it.
   */
  record Reply(String bytes, boolean close) implements Step {
  }

  /**
   * Answers 200 when the request carries exactly one {@code Host} header and it names this target
   * ({@code 127.0.0.1:<its port>}), else 400.
   */
  record HostIsMe() implements Step {
  }

  /** Reads the request and never answers. */
  record Hang() implements Step {
  }

  /** Reads the request and closes the connection (FIN) without answering. */
  record Close() implements Step {
  }

  /** Reads the request and resets the connection (SO_LINGER 0: RST). */
  record Reset() implements Step {
  }

  static final Step HANG = new Hang();
  static final Step CLOSE = new Close();
  static final Step RESET = new Reset();
  static final Step HOST_IS_ME = new HostIsMe();

  static Step status(int code) {
    return new Reply("HTTP/1.1 " + code + " Status\r\nContent-Length: 0\r\n\r\n", false);
  }

  static Step raw(String bytes) {
    return new Reply(bytes, false);
  }

  static Step rawThenClose(String bytes) {
    return new Reply(bytes, true);
  }

  /** One check as the target saw it. */
  static final class Exchange {
    final int index;
    volatile String request = "";
    /** Whether the checker closed the connection (the target read end-of-stream or a reset). */
    volatile boolean closedByChecker;

    Exchange(int index) {
      this.index = index;
    }
  }

  private final ServerSocket server;
  private final List<Step> script;
  private final ExecutorService threads = Executors.newCachedThreadPool(r -> {
    Thread t = new Thread(r, "scripted-target");
    t.setDaemon(true);
    return t;
  });
  private final List<Exchange> exchanges = new CopyOnWriteArrayList<>();
  private final AtomicInteger holding = new AtomicInteger();
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private ScriptedTarget(List<Step> script) {
    this.script = List.copyOf(script);
    try {
      server = new ServerSocket(0, 1000, InetAddress.getByName("127.0.0.1"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    threads.execute(this::acceptLoop);
  }

  static ScriptedTarget start(List<Step> script) {
    return new ScriptedTarget(script);
  }

  int port() {
    return server.getLocalPort();
  }

  /** How many connections (checks) were accepted. */
  int connections() {
    return exchanges.size();
  }

  /** Requests left unanswered on purpose whose connection is still open. */
  int holding() {
    return holding.get();
  }

  List<Exchange> exchanges() {
    return exchanges;
  }

  private void acceptLoop() {
    while (!closed) {
      Socket s;
      try {
        s = server.accept();
      } catch (IOException e) {
        return;
      }
      Exchange x = new Exchange(exchanges.size());
      exchanges.add(x);
      Step step = script.get(Math.min(x.index, script.size() - 1));
      threads.execute(() -> serve(s, x, step));
    }
  }

  private void serve(Socket s, Exchange x, Step step) {
    open.add(s);
    try (s) {
      InputStream in = s.getInputStream();
      if (!readRequest(in, x)) {
        x.closedByChecker = true;
        return;
      }
      if (step instanceof HostIsMe) {
        List<String> hosts = x.request.lines().filter(l -> l.regionMatches(true, 0, "host:", 0, 5)).toList();
        boolean me = hosts.size() == 1 && hosts.get(0).substring(5).strip().equals("127.0.0.1:" + port());
        step = status(me ? 200 : 400);
      }
      if (step instanceof Reply r) {
        OutputStream out = s.getOutputStream();
        out.write(r.bytes().getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        if (!r.close()) {
          awaitClose(in, x);
        }
      } else if (step instanceof Hang) {
        holding.incrementAndGet();
        try {
          awaitClose(in, x);
        } finally {
          holding.decrementAndGet();
        }
      } else if (step instanceof Reset) {
        s.setSoLinger(true, 0);
      }
      // Close: the try-with-resources closes it without an answer.
    } catch (IOException e) {
      // The checker reset the connection: nothing more to do with it.
      x.closedByChecker = true;
    } finally {
      open.remove(s);
    }
  }

  /** Reads up to the empty line that ends the headers; false when the stream ended first. */
  private static boolean readRequest(InputStream in, Exchange x) throws IOException {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    int b;
    while ((b = in.read()) >= 0) {
      got.write(b);
      x.request = got.toString(StandardCharsets.ISO_8859_1);
      if (x.request.endsWith("\r\n\r\n")) {
        return true;
      }
    }
    return false;
  }

  /** Reads (and drops) whatever else comes until the checker closes the connection. */
  private static void awaitClose(InputStream in, Exchange x) throws IOException {
    byte[] buf = new byte[1024];
    try {
      while (in.read(buf) >= 0) {
        // A check sends no body; anything else is ignored.
      }
    } finally {
      x.closedByChecker = true;
    }
  }

  @Override
  public void close() {
    closed = true;
    try {
      server.close();
    } catch (IOException e) {
      // Closing anyway.
    }
    for (Socket s : open) {
      try {
        s.close();
      } catch (IOException e) {
        // Closing anyway.
      }
    }
    threads.shutdownNow();
  }
}
