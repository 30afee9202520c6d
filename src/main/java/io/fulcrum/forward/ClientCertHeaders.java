package io.fulcrum.forward;

import io.fulcrum.model.MutualAuthentication;
import io.netty.buffer.ByteBuf;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.security.cert.Certificate;
import java.security.cert.CertificateEncodingException;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.x500.X500Principal;

/**
 * The mutual TLS headers an HTTPS listener sends its targets, as ALB does. Verify mode: the
 * client certificate's serial number (hexadecimal), issuer and subject (RFC 2253), validity
 * ({@code NotBefore=...;NotAfter=...}, ISO 8601) and the certificate itself (URL-encoded PEM).
 * Passthrough: the whole chain the client sent (URL-encoded PEM, its certificates one after the
 * other). Made once per client connection; values the client sent under these names never reach
 * a target, whether or not it sent a certificate.
 *
 * @param names  the header names (the listener's attributes may rename them)
 * @param values the values, in the order of {@link Names}; null where none is sent
 */
public record ClientCertHeaders(Names names, String[] values) {

  private static final int SERIAL = 0;
  private static final int ISSUER = 1;
  private static final int SUBJECT = 2;
  private static final int VALIDITY = 3;
  private static final int LEAF = 4;
  private static final int CHAIN = 5;
  private static final HexFormat HEX = HexFormat.of().withUpperCase();

  /**
   * The six names: serial number, issuer, subject, validity, leaf, chain; as given (HTTP/1.1) and
   * lower-case (HTTP/2), with their HTTP/1.1 line starts.
   */
  public static final class Names {
    private final CharSequence[] given;
    private final CharSequence[] lower;
    private final byte[][] lines;

    private Names(List<String> names) {
      if (names.size() != 6) {
        throw new IllegalArgumentException("six names expected: " + names);
      }
      given = new CharSequence[6];
      lower = new CharSequence[6];
      lines = new byte[6][];
      for (int i = 0; i < 6; i++) {
        given[i] = HttpHeaders.createOptimized(names.get(i));
        lower[i] = HttpHeaders.createOptimized(names.get(i).toLowerCase(Locale.ROOT));
        lines[i] = (names.get(i) + ": ").getBytes(StandardCharsets.US_ASCII);
      }
    }

    /** The names a listener's attributes give ({@code ListenerAttributes#clientCertHeaders}). */
    public static Names of(List<String> names) {
      return new Names(names);
    }

    private CharSequence[] forMap(MultiMap headers) {
      return headers instanceof io.netty.handler.codec.http.HttpHeaders ? given : lower;
    }
  }

  /**
   * The headers for a client connection's session: none for a client that sent no certificate
   * (passthrough), but the names still claimed so that the client's own values are dropped.
   */
  public static ClientCertHeaders of(SSLSession session, MutualAuthentication.Mode mode, Names names) {
    String[] values = new String[6];
    Certificate[] chain = peer(session);
    if (chain.length > 0 && chain[0] instanceof X509Certificate leaf) {
      if (mode == MutualAuthentication.Mode.VERIFY) {
        values[SERIAL] = serial(leaf);
        values[ISSUER] = leaf.getIssuerX500Principal().getName(X500Principal.RFC2253);
        values[SUBJECT] = subject(leaf);
        values[VALIDITY] = validity(leaf);
        values[LEAF] = urlEncoded(pem(leaf));
      } else if (mode == MutualAuthentication.Mode.PASSTHROUGH) {
        StringBuilder pem = new StringBuilder();
        for (Certificate c : chain) {
          pem.append(pem(c));
        }
        values[CHAIN] = urlEncoded(pem.toString());
      }
    }
    return new ClientCertHeaders(names, values);
  }

  private static Certificate[] peer(SSLSession session) {
    if (session == null) {
      return new Certificate[0];
    }
    try {
      Certificate[] chain = session.getPeerCertificates();
      return chain == null ? new Certificate[0] : chain;
    } catch (SSLPeerUnverifiedException e) {
      return new Certificate[0]; // none sent
    }
  }

  /** Removes the client's headers of these names. */
  void removeFrom(MultiMap headers) {
    for (CharSequence name : names.forMap(headers)) {
      headers.remove(name);
    }
  }

  /** Adds the headers there are values for. */
  void setOn(MultiMap headers) {
    CharSequence[] n = names.forMap(headers);
    for (int i = 0; i < 6; i++) {
      if (values[i] != null) {
        headers.add(n[i], values[i]);
      }
    }
  }

  /** Writes them as HTTP/1.1 header lines. */
  void writeTo(ByteBuf buf) {
    for (int i = 0; i < 6; i++) {
      if (values[i] != null) {
        buf.writeBytes(names.lines[i]);
        buf.writeCharSequence(values[i], StandardCharsets.US_ASCII);
        buf.writeShort(Http1Wire.CRLF);
      }
    }
  }

  /** OpenSSL's way of printing a serial number: upper-case hexadecimal, two digits a byte ({@code 02}, {@code 0FA3}). */
  /** A certificate's subject, RFC 2253. */
  public static String subject(X509Certificate c) {
    return c.getSubjectX500Principal().getName(X500Principal.RFC2253);
  }

  /** A certificate's validity as ALB writes it: {@code NotBefore=2025-01-01T00:00:00Z;NotAfter=...}. */
  public static String validity(X509Certificate c) {
    return "NotBefore=" + c.getNotBefore().toInstant() + ";NotAfter=" + c.getNotAfter().toInstant();
  }

  public static String serial(X509Certificate c) {
    byte[] bytes = c.getSerialNumber().toByteArray();
    int start = bytes.length > 1 && bytes[0] == 0 ? 1 : 0; // the sign byte of a positive number
    return HEX.formatHex(bytes, start, bytes.length);
  }

  /** A certificate in PEM, 64 characters a line. */
  static String pem(Certificate c) {
    try {
      return "-----BEGIN CERTIFICATE-----\n"
          + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(c.getEncoded())
          + "\n-----END CERTIFICATE-----\n";
    } catch (CertificateEncodingException e) {
      throw new IllegalStateException("a certificate the handshake took cannot be encoded", e);
    }
  }

  /**
   * Percent-encoded as ALB does (Python's {@code quote} with {@code +=/} safe): letters, digits,
   * {@code -._~} and {@code +=/} stay, every other byte becomes {@code %XX}.
   */
  static String urlEncoded(String text) {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    StringBuilder out = new StringBuilder(bytes.length + bytes.length / 16);
    for (byte b : bytes) {
      char c = (char) (b & 0xFF);
      if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || "-._~+=/".indexOf(c) >= 0) {
        out.append(c);
      } else {
        out.append('%').append(HEX.toHexDigits((byte) c));
      }
    }
    return out.toString();
  }
}
