package io.fulcrum.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * A plain TCP client of a network load balancer's listener, from the test thread: it sends lines
 * and reads the {@link TcpTarget}'s answers, and tells a reset from a close. Blocking, with a
 * read timeout, so a lost answer fails the test instead of hanging it.
 */
public final class FlowClient implements AutoCloseable {

  /** How the connection ended when a read found no line. */
  public enum Ending { CLOSED, RESET }

  private final Socket socket;
  private final BufferedReader in;
  private final OutputStream out;

  private FlowClient(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
    this.out = socket.getOutputStream();
  }

  /** Connects to {@code host:port} from the loopback address {@code from} (null: any). */
  public static FlowClient connect(String from, String host, int port) {
    try {
      Socket s = new Socket();
      // Before connecting: a listener may reset the connection at once, and options cannot be set then.
      s.setSoTimeout(10_000);
      if (from != null) {
        s.bind(new InetSocketAddress(from, 0));
      }
      s.connect(new InetSocketAddress(host, port), 5000);
      return new FlowClient(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Connects to {@code 127.0.0.1:port} and reads until the connection ends: how it ended. A reset
   * can come while the client's connect is still finishing: that is a reset too.
   */
  public static Ending endingOfNewConnection(int port) {
    FlowClient c;
    try {
      c = connect(port);
    } catch (UncheckedIOException e) {
      if (String.valueOf(e.getCause().getMessage()).contains("reset")) {
        return Ending.RESET;
      }
      throw e;
    }
    try {
      return c.ending();
    } finally {
      c.close();
    }
  }

  public static FlowClient connect(int port) {
    return connect(null, "127.0.0.1", port);
  }

  /** Wraps a connected socket (a TLS one, say). */
  public static FlowClient over(Socket socket) {
    try {
      socket.setSoTimeout(10_000);
      return new FlowClient(socket);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * A TLS connection to {@code 127.0.0.1:port} that offers {@code alpn} (nothing when empty); the
   * handshake comes with the first bytes, and {@link #applicationProtocol} says what it chose.
   */
  public static FlowClient tls(SSLContext context, int port, String... alpn) {
    try {
      SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket("127.0.0.1", port);
      SSLParameters parameters = socket.getSSLParameters();
      parameters.setApplicationProtocols(alpn);
      socket.setSSLParameters(parameters);
      return over(socket);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The application protocol a TLS connection's handshake chose ("" for none). */
  public String applicationProtocol() {
    return ((SSLSocket) socket).getApplicationProtocol();
  }

  /** Sends {@code line} and returns the answer, {@code <target id>:<line>}. */
  public String ask(String line) {
    try {
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      String answer = in.readLine();
      if (answer == null) {
        throw new IllegalStateException("the connection was closed instead of answering '" + line + "'");
      }
      return answer;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The id of the target this connection reached (asks once). */
  public String target() {
    String answer = ask("who");
    return answer.substring(0, answer.indexOf(':'));
  }

  /** Reads until the connection ends, and says how: closed (end of stream) or reset. */
  public Ending ending() {
    try {
      while (in.readLine() != null) {
        // lines still in flight
      }
      return Ending.CLOSED;
    } catch (SocketException e) {
      if (String.valueOf(e.getMessage()).contains("reset")) {
        return Ending.RESET;
      }
      throw new UncheckedIOException(e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The client's own port (the source port of the flow). */
  public int localPort() {
    return socket.getLocalPort();
  }

  public Socket socket() {
    return socket;
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing
    }
  }
}
