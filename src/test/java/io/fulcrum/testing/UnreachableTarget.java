package io.fulcrum.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A target whose TCP handshake never completes, for connect timeouts: a listening socket with a
 * backlog of 1 that never accepts, whose accept queue is filled first. Linux then drops further
 * SYNs, so a connect hangs until the connecting side gives up.
 */
public final class UnreachableTarget implements AutoCloseable {

  private static final int PROBE_TIMEOUT_MS = 200;

  private final ServerSocket server;
  private final List<Socket> fillers = new ArrayList<>();

  private UnreachableTarget(ServerSocket server) {
    this.server = server;
  }

  /**
   * Starts one and checks that a connect to it now hangs.
   *
   * @throws IllegalStateException when this machine completes the handshake anyway
   */
  public static UnreachableTarget start() {
    try {
      ServerSocket server = new ServerSocket();
      server.bind(new InetSocketAddress("127.0.0.1", 0), 1);
      UnreachableTarget t = new UnreachableTarget(server);
      for (int i = 0; i < 64; i++) {
        Socket s = new Socket();
        try {
          s.connect(server.getLocalSocketAddress(), PROBE_TIMEOUT_MS);
          t.fillers.add(s);
        } catch (SocketTimeoutException full) {
          s.close();
          return t;
        }
      }
      t.close();
      throw new IllegalStateException("cannot make a TCP connect hang on this machine: 64 connects to a listener"
          + " with backlog 1 that never accepts all completed");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  @Override
  public void close() {
    try {
      for (Socket s : fillers) {
        s.close();
      }
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
