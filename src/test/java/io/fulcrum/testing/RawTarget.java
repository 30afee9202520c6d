package io.fulcrum.testing;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A target that speaks raw TCP, so that it can misbehave the ways real servers do: reset, close
 * mid-response, never answer, send garbage. It reads each request head (up to the blank line)
 * and hands the socket to a {@link Behaviour}; it records connections and request heads.
 */
public final class RawTarget implements AutoCloseable {

  /** What the target does once it has read a request head; called on the target's event loop. */
  @FunctionalInterface
  public interface Behaviour {
    void onRequest(NetSocket socket, String head);
  }

  private final NetServer server;
  private final AtomicInteger connections = new AtomicInteger();
  private final AtomicInteger closed = new AtomicInteger();
  private final List<String> heads = new CopyOnWriteArrayList<>();

  private RawTarget(NetServer server) {
    this.server = server;
  }

  /** A target whose closes are orderly (FIN). */
  public static RawTarget start(Vertx vertx, Behaviour behaviour) {
    return start(vertx, false, behaviour);
  }

  /**
   * @param resetOnClose close with SO_LINGER 0, so that every close is a TCP reset (RST)
   */
  public static RawTarget start(Vertx vertx, boolean resetOnClose, Behaviour behaviour) {
    NetServerOptions options = new NetServerOptions().setHost("127.0.0.1").setPort(0);
    if (resetOnClose) {
      options.setSoLinger(0);
    }
    NetServer server = vertx.createNetServer(options);
    RawTarget t = new RawTarget(server);
    server.connectHandler(socket -> {
      t.connections.incrementAndGet();
      socket.closeHandler(v -> t.closed.incrementAndGet());
      Buffer[] pending = {Buffer.buffer()};
      socket.handler(data -> {
        pending[0].appendBuffer(data);
        while (true) {
          String text = pending[0].toString(StandardCharsets.ISO_8859_1);
          int end = text.indexOf("\r\n\r\n");
          if (end < 0) {
            return;
          }
          String head = text.substring(0, end + 4);
          // Keep what followed the head (a request body, or the next request).
          pending[0] = pending[0].getBuffer(end + 4, pending[0].length());
          t.heads.add(head);
          behaviour.onRequest(socket, head);
        }
      });
    });
    Await.result(server.listen());
    return t;
  }

  public int port() {
    return server.actualPort();
  }

  /** How many TCP connections the target accepted. */
  public int connections() {
    return connections.get();
  }

  /** How many of those connections have closed (either side closing). */
  public int closedConnections() {
    return closed.get();
  }

  /** The request heads the target read, in order. */
  public List<String> heads() {
    return heads;
  }

  @Override
  public void close() {
    Await.result(server.close());
  }

  /** Answers {@code raw} verbatim, then closes the connection (FIN, or RST when resetting). */
  public static Behaviour answerAndClose(String raw) {
    return (socket, head) -> socket.write(Buffer.buffer(raw.getBytes(StandardCharsets.ISO_8859_1)))
        .onComplete(v -> socket.close());
  }

  /** Answers {@code raw} verbatim and keeps the connection open. */
  public static Behaviour answer(String raw) {
    return (socket, head) -> socket.write(Buffer.buffer(raw.getBytes(StandardCharsets.ISO_8859_1)));
  }

  /** Closes the connection without answering. */
  public static Behaviour closeWithoutAnswer() {
    return (socket, head) -> socket.close();
  }

  /** Reads the request and never answers, keeping the connection open. */
  public static Behaviour neverAnswer() {
    return (socket, head) -> {
    };
  }
}
