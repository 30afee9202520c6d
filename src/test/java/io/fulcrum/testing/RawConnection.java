package io.fulcrum.testing;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One client connection held open across requests, for tests that must see the bytes on the wire:
 * the exact status line, framing (chunked, Content-Length, close-delimited), a body cut short, or
 * whether the connection is reused or closed. Reads block the test thread with a socket timeout
 * as a safety net (a test that hits it fails with an exception, it never waits in silence).
 */
public final class RawConnection implements AutoCloseable {

  private static final int SAFETY_TIMEOUT_MS = 15_000;

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RawConnection(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  public static RawConnection open(int port) {
    return open("127.0.0.1", port);
  }

  public static RawConnection open(String host, int port) {
    try {
      Socket s = new Socket();
      s.connect(new InetSocketAddress(host, port), 5000);
      s.setSoTimeout(SAFETY_TIMEOUT_MS);
      s.setTcpNoDelay(true);
      return new RawConnection(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A TLS connection (HTTP/1.1, no ALPN) whose server certificate {@code context} trusts. */
  public static RawConnection tls(javax.net.ssl.SSLContext context, int port) {
    try {
      javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) context.getSocketFactory().createSocket();
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(SAFETY_TIMEOUT_MS);
      s.setTcpNoDelay(true);
      s.startHandshake();
      return new RawConnection(s);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Makes every later read fail (with an {@link UncheckedIOException}) when the server sends
   * nothing for {@code millis}, instead of the default safety timeout.
   */
  public RawConnection readTimeout(int millis) {
    try {
      socket.setSoTimeout(millis);
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The client's own port (what X-Forwarded-For shows with the client-port option). */
  public int localPort() {
    return socket.getLocalPort();
  }

  /** Sends {@code text} as ISO-8859-1 bytes. */
  public RawConnection send(String text) {
    return send(text.getBytes(StandardCharsets.ISO_8859_1));
  }

  public RawConnection send(byte[] bytes) {
    try {
      out.write(bytes);
      out.flush();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Shuts the client's sending side (a TCP half-close: FIN), leaving the connection open for reading. */
  public RawConnection shutdownOutput() {
    try {
      socket.shutdownOutput();
      return this;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Reads one response to a request that was not HEAD. */
  public Response read() {
    return read(false);
  }

  /**
   * Reads one response: status line, headers and the body as its framing says (none for HEAD,
   * 1xx, 204 and 304; chunked; Content-Length; otherwise until the server closes).
   */
  public Response read(boolean headRequest) {
    try {
      String statusLine = line();
      if (statusLine == null) {
        throw new IllegalStateException("the server closed the connection before sending a response");
      }
      List<String[]> headers = new ArrayList<>();
      for (String l = line(); l != null && !l.isEmpty(); l = line()) {
        int colon = l.indexOf(':');
        headers.add(new String[] {l.substring(0, colon).trim(), l.substring(colon + 1).trim()});
      }
      Response head = new Response(statusLine, headers, new byte[0], Framing.NONE, true);
      int status = head.status();
      if (headRequest || status < 200 || status == 204 || status == 304) {
        return head;
      }
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      String te = head.header("transfer-encoding");
      String cl = head.header("content-length");
      if (te != null && te.toLowerCase(Locale.ROOT).contains("chunked")) {
        List<String[]> trailers = new ArrayList<>();
        boolean complete = readChunks(body, trailers);
        return new Response(statusLine, headers, body.toByteArray(), Framing.CHUNKED, complete, trailers);
      }
      if (cl != null) {
        long n = Long.parseLong(cl.trim());
        boolean complete = readExactly(body, n);
        return new Response(statusLine, headers, body.toByteArray(), Framing.CONTENT_LENGTH, complete);
      }
      readToEnd(body);
      return new Response(statusLine, headers, body.toByteArray(), Framing.CLOSE, true);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether the server has closed (or reset) the connection: the next read sees the end of the
   * stream. Blocks until then, or fails after the safety timeout, so call it only where a close
   * is expected.
   */
  public boolean closedByServer() {
    try {
      return in.read() < 0;
    } catch (SocketException e) {
      return true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Whether the server closes (or resets) the connection within {@code millis}, sending nothing
   * more; false when the connection is still open then.
   */
  public boolean closedByServerWithin(long millis) {
    try {
      int previous = socket.getSoTimeout();
      socket.setSoTimeout((int) millis);
      try {
        return in.read() < 0;
      } catch (java.net.SocketTimeoutException e) {
        return false;
      } catch (SocketException e) {
        return true;
      } finally {
        socket.setSoTimeout(previous);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Everything the server sends until it closes the connection. */
  public String readUntilClosed() {
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    try {
      readToEnd(got);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return got.toString(StandardCharsets.ISO_8859_1);
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      // closing a test socket
    }
  }

  private boolean readChunks(ByteArrayOutputStream body, List<String[]> trailers) throws IOException {
    while (true) {
      String sizeLine = line();
      if (sizeLine == null) {
        return false;
      }
      int semi = sizeLine.indexOf(';');
      int size = Integer.parseInt((semi < 0 ? sizeLine : sizeLine.substring(0, semi)).trim(), 16);
      if (size == 0) {
        for (String l = line(); l != null; l = line()) {
          if (l.isEmpty()) {
            return true;
          }
          int colon = l.indexOf(':');
          trailers.add(new String[] {l.substring(0, colon).trim(), l.substring(colon + 1).trim()});
        }
        return false;
      }
      if (!readExactly(body, size) || line() == null) {
        return false;
      }
    }
  }

  private boolean readExactly(ByteArrayOutputStream body, long n) throws IOException {
    byte[] buf = new byte[8192];
    long left = n;
    while (left > 0) {
      int r = readSome(buf, (int) Math.min(buf.length, left));
      if (r < 0) {
        return false;
      }
      body.write(buf, 0, r);
      left -= r;
    }
    return true;
  }

  private void readToEnd(ByteArrayOutputStream body) throws IOException {
    byte[] buf = new byte[8192];
    for (int r = readSome(buf, buf.length); r >= 0; r = readSome(buf, buf.length)) {
      body.write(buf, 0, r);
    }
  }

  /** A read that treats a reset like the end of the stream (the bytes before it are kept). */
  private int readSome(byte[] buf, int len) throws IOException {
    try {
      return in.read(buf, 0, len);
    } catch (SocketException e) {
      return -1;
    }
  }

  /** A CRLF-terminated line without its CRLF, or null at the end of the stream. */
  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    while (true) {
      int c;
      try {
        c = in.read();
      } catch (SocketException e) {
        c = -1;
      }
      if (c < 0) {
        return b.size() == 0 ? null : b.toString(StandardCharsets.ISO_8859_1);
      }
      if (c == '\n') {
        String s = b.toString(StandardCharsets.ISO_8859_1);
        return s.endsWith("\r") ? s.substring(0, s.length() - 1) : s;
      }
      b.write(c);
    }
  }

  /** How a response's body was delimited. */
  public enum Framing { NONE, CONTENT_LENGTH, CHUNKED, CLOSE }

  /**
   * One response as it came over the wire.
   *
   * @param complete false when the connection ended before the body its framing announced
   * @param trailers the trailer fields of a chunked body
   */
  public record Response(String statusLine, List<String[]> headers, byte[] body, Framing framing, boolean complete,
      List<String[]> trailers) {

    public Response(String statusLine, List<String[]> headers, byte[] body, Framing framing, boolean complete) {
      this(statusLine, headers, body, framing, complete, List.of());
    }

    public int status() {
      return Integer.parseInt(statusLine.substring(9, 12));
    }

    /** The first value of a header (name case-insensitive), or null. */
    public String header(String name) {
      for (String[] h : headers) {
        if (h[0].equalsIgnoreCase(name)) {
          return h[1];
        }
      }
      return null;
    }

    /** The first value of a trailer field (name case-insensitive), or null. */
    public String trailer(String name) {
      for (String[] h : trailers) {
        if (h[0].equalsIgnoreCase(name)) {
          return h[1];
        }
      }
      return null;
    }

    /** The names of all headers, lower-cased. */
    public List<String> headerNames() {
      return headers.stream().map(h -> h[0].toLowerCase(Locale.ROOT)).toList();
    }

    public String bodyText() {
      return new String(body, StandardCharsets.ISO_8859_1);
    }
  }
}
