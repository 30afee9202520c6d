package io.fulcrum.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * A raw socket client for requests no well-behaved client would send (malformed lines, oversized
 * headers, forbidden transfer codings). Reads until the server closes or goes quiet.
 */
public final class RawHttp {

  private RawHttp() {
  }

  /** Sends {@code request} as ISO-8859-1 bytes and returns everything received. */
  public static String exchange(String host, int port, String request) {
    return exchange(host, port, request.getBytes(StandardCharsets.ISO_8859_1), 5000);
  }

  public static String exchange(String host, int port, byte[] request, int quietMillis) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 5000);
      s.setSoTimeout(quietMillis);
      OutputStream out = s.getOutputStream();
      out.write(request);
      out.flush();
      InputStream in = s.getInputStream();
      ByteArrayOutputStream got = new ByteArrayOutputStream();
      byte[] buf = new byte[8192];
      try {
        int n;
        while ((n = in.read(buf)) >= 0) {
          got.write(buf, 0, n);
        }
      } catch (SocketTimeoutException e) {
        // The server kept the connection open: what arrived so far is the answer.
      } catch (IOException e) {
        // A reset after the response is fine; the bytes read so far are kept.
      }
      return got.toString(StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The status code of the first response in {@code raw}, or -1. */
  public static int status(String raw) {
    if (!raw.startsWith("HTTP/1.")) {
      return -1;
    }
    return Integer.parseInt(raw.substring(9, 12));
  }
}
