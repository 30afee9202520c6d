package io.fulcrum.forward;

import io.fulcrum.model.IpAddresses;
import io.netty.buffer.ByteBuf;
import io.netty.handler.ssl.CipherSuiteConverter;
import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import javax.net.ssl.SSLSession;

/**
 * Turns a client request's headers into the headers sent to a target, in place (the headers are
 * copied once, by the client request): hop-by-hop headers removed, Host per SPEC §11.1,
 * X-Forwarded-For/-Proto/-Port, X-Amzn-Trace-Id per §11.2. Called on the owning event loop.
 */
public final class ForwardHeaders {

  public static final CharSequence X_FORWARDED_FOR = HttpHeaders.createOptimized("X-Forwarded-For");
  public static final CharSequence X_FORWARDED_PROTO = HttpHeaders.createOptimized("X-Forwarded-Proto");
  public static final CharSequence X_FORWARDED_PORT = HttpHeaders.createOptimized("X-Forwarded-Port");
  public static final CharSequence X_AMZN_TRACE_ID = HttpHeaders.createOptimized(TraceIds.HEADER);
  public static final int MAX_XFF_ADDRESSES = 30;
  /** Mixed case, as ALB writes it toward HTTP/1.1 targets even for HTTP/2 clients (SPEC §7.3). */
  static final CharSequence HOST = HttpHeaders.createOptimized("Host");
  /**
   * The TLS headers of {@code routing.http.x_amzn_tls_version_and_cipher_suite.enabled}, lower-case
   * as ALB sends them.
   */
  public static final CharSequence X_AMZN_TLS_VERSION = HttpHeaders.createOptimized("x-amzn-tls-version");
  public static final CharSequence X_AMZN_TLS_CIPHER_SUITE = HttpHeaders.createOptimized("x-amzn-tls-cipher-suite");

  /** The headers ALB writes in mixed case toward HTTP/1.1 targets, by their lower-case names (SPEC §7.3). */
  private static final Map<String, CharSequence> MIXED_CASE = Map.of(
      "host", HOST, "x-forwarded-for", X_FORWARDED_FOR, "x-forwarded-proto", X_FORWARDED_PROTO,
      "x-forwarded-port", X_FORWARDED_PORT, "x-amzn-trace-id", X_AMZN_TRACE_ID,
      "upgrade", HttpHeaders.createOptimized("Upgrade"), "connection", HttpHeaders.createOptimized("Connection"));

  private ForwardHeaders() {
  }

  /**
   * The headers of an HTTP/2 request (whose names HTTP/2 keeps lower-case) as ALB sends them on
   * over HTTP/1.1: Host, X-Forwarded-For, X-Forwarded-Proto, X-Forwarded-Port, X-Amzn-Trace-Id,
   * Upgrade and Connection in mixed case, every other name lower-case as received.
   */
  public static MultiMap http1Casing(MultiMap http2Headers) {
    MultiMap out = MultiMap.caseInsensitiveMultiMap();
    for (Map.Entry<String, String> e : http2Headers) {
      CharSequence name = MIXED_CASE.get(e.getKey());
      out.add(name != null ? name : e.getKey(), e.getValue());
    }
    return out;
  }

  /**
   * Counts the addresses in every X-Forwarded-For header; more than {@value #MAX_XFF_ADDRESSES}
   * gives 463.
   */
  public static int xffAddressCount(MultiMap headers) {
    if (!headers.contains(X_FORWARDED_FOR)) {
      return 0; // the usual case, without building a list of values
    }
    List<String> values = headers.getAll(X_FORWARDED_FOR);
    int n = 0;
    for (int i = 0; i < values.size(); i++) {
      String v = values.get(i);
      if (v.isBlank()) {
        continue;
      }
      n++;
      for (int c = 0; c < v.length(); c++) {
        if (v.charAt(c) == ',') {
          n++;
        }
      }
    }
    return n;
  }

  /**
   * Rewrites {@code headers} for the target.
   *
   * @param host         the Host value to send (already normalised by {@link #targetHost})
   * @param client       the client's address (the TCP peer)
   * @param scheme       {@code http} or {@code https}
   * @param listenerPort the listener's port
   * @param headerBytes  the size of the request's headers (trace-id rule)
   */
  public static void prepare(MultiMap headers, ProxySettings settings, String host, SocketAddress client,
      String scheme, int listenerPort, long headerBytes, long epochSeconds, RandomGenerator random) {
    prepare(headers, settings, host, forwardedFor(client, settings.xffClientPort()), scheme,
        Integer.toString(listenerPort), null, null, headerBytes, epochSeconds, random);
  }

  /**
   * Rewrites {@code headers} for the target, with the per-connection and per-listener values
   * already made (the request path keeps them rather than making them per request).
   *
   * @param forwardedFor the client's entry in X-Forwarded-For ({@link #forwardedFor}), used in
   *                     {@code append} mode
   * @param listenerPort the listener's port, as the X-Forwarded-Port value
   * @param tls          the client connection's TLS, for the TLS headers when the load balancer
   *                     sends them; null over cleartext
   * @param clientCert   the mutual TLS headers of the client connection; null when the listener has
   *                     no mutual TLS
   */
  public static Values prepare(MultiMap headers, ProxySettings settings, String host, String forwardedFor,
      String scheme, String listenerPort, Tls tls, ClientCertHeaders clientCert, long headerBytes, long epochSeconds,
      RandomGenerator random) {
    Values v = rewrite(headers, settings, host, forwardedFor, scheme, listenerPort, tls, clientCert, headerBytes,
        epochSeconds, random);
    v.setOn(headers);
    return v;
  }

  /**
   * What {@link #prepare} does, but the headers the load balancer sets are returned rather than
   * set: hop-by-hop headers, Expect (and invalid names, when so configured) leave {@code headers},
   * and so do those the returned values replace; the caller writes them after the rest
   * ({@link Values#writeTo}), where {@link #prepare} would have appended them.
   */
  public static Values rewrite(MultiMap headers, ProxySettings settings, String host, String forwardedFor,
      String scheme, String listenerPort, Tls tls, ClientCertHeaders clientCert, long headerBytes, long epochSeconds,
      RandomGenerator random) {
    HopByHop.strip(headers);
    headers.remove(HttpHeaders.EXPECT);
    boolean invalid = hasInvalidName(headers);
    boolean dropped = invalid && settings.dropInvalidHeaders();
    if (dropped) {
      dropInvalid(headers);
    }
    // HTTP/2 requests keep header names in lower case: names given in another case would be
    // lower-cased into a new string on every call.
    Names n = headers instanceof io.netty.handler.codec.http.HttpHeaders ? Names.HTTP1 : Names.HTTP2;
    headers.remove(n.host);
    String xff = null;
    switch (settings.xffMode()) {
      case "remove" -> headers.remove(n.forwardedFor);
      case "preserve" -> {
        // forwarded unchanged; none added
      }
      default -> {
        xff = forwardedFor;
        if (headers.contains(n.forwardedFor)) {
          List<String> existing = headers.getAll(n.forwardedFor);
          String joined = existing.size() == 1 ? existing.get(0) : String.join(", ", existing);
          xff = joined.isBlank() ? forwardedFor : joined + ", " + forwardedFor;
          headers.remove(n.forwardedFor);
        }
      }
    }
    headers.remove(n.forwardedProto);
    headers.remove(n.forwardedPort);
    CharSequence trace = TraceIds.process(headers.get(n.traceId), headerBytes, epochSeconds, random);
    headers.remove(n.traceId);
    Tls sent = null;
    if (settings.tlsHeaders() && tls != null) {
      // The load balancer's values, never the client's.
      headers.remove(X_AMZN_TLS_VERSION);
      headers.remove(X_AMZN_TLS_CIPHER_SUITE);
      if (tls.names() != TlsNames.DEFAULT) {
        headers.remove(tls.names().version());
        headers.remove(tls.names().cipherSuite());
      }
      sent = tls;
    }
    if (clientCert != null) {
      clientCert.removeFrom(headers); // the load balancer's values, never the client's
    }
    return new Values(n, host, xff, scheme, listenerPort, trace, sent, clientCert, dropped, invalid && !dropped);
  }

  /**
   * A client connection's TLS as ALB names it in {@code x-amzn-tls-version} ({@code TLSv1.2},
   * {@code TLSv1.3}) and {@code x-amzn-tls-cipher-suite} (OpenSSL's name:
   * {@code ECDHE-RSA-AES128-GCM-SHA256}, {@code TLS_AES_128_GCM_SHA256}).
   */
  public record Tls(String version, String cipherSuite, TlsNames names) {

    public Tls(String version, String cipherSuite) {
      this(version, cipherSuite, TlsNames.DEFAULT);
    }

    /** The same values, sent under {@code other} names (a listener's renamed TLS headers). */
    public Tls named(TlsNames other) {
      return other == names ? this : new Tls(version, cipherSuite, other);
    }

    /** The session's protocol and cipher suite, or null without a session (cleartext). */
    public static Tls of(SSLSession session) {
      if (session == null) {
        return null;
      }
      String java = session.getCipherSuite();
      String openssl = CipherSuiteConverter.toOpenSsl(java, false);
      return new Tls(session.getProtocol(), openssl != null ? openssl : java);
    }
  }

  /**
   * The names the TLS headers go under, lower-case (ALB's own, or those an HTTPS listener's
   * {@code routing.http.request.x_amzn_tls_*.header_name} attributes give), with their HTTP/1.1 line starts.
   */
  public record TlsNames(CharSequence version, CharSequence cipherSuite, byte[] versionLine, byte[] cipherLine) {
    public static final TlsNames DEFAULT = new TlsNames(X_AMZN_TLS_VERSION, X_AMZN_TLS_CIPHER_SUITE,
        lineStart(X_AMZN_TLS_VERSION), lineStart(X_AMZN_TLS_CIPHER_SUITE));

    /** The names given, or {@link #DEFAULT} when they are ALB's own. */
    public static TlsNames of(String version, String cipherSuite) {
      String v = version.toLowerCase(java.util.Locale.ROOT);
      String c = cipherSuite.toLowerCase(java.util.Locale.ROOT);
      if (DEFAULT.version.toString().equals(v) && DEFAULT.cipherSuite.toString().equals(c)) {
        return DEFAULT;
      }
      CharSequence vn = HttpHeaders.createOptimized(v);
      CharSequence cn = HttpHeaders.createOptimized(c);
      return new TlsNames(vn, cn, lineStart(vn), lineStart(cn));
    }
  }

  /**
   * The values the load balancer gives a forwarded request's Host, X-Forwarded-For (null: none,
   * the client's kept or removed as configured), X-Forwarded-Proto, X-Forwarded-Port and
   * X-Amzn-Trace-Id headers, and its x-amzn-tls-version and x-amzn-tls-cipher-suite ({@code tls};
   * null: none), and the mutual TLS headers ({@code clientCert}; null: none); {@code droppedInvalid}:
   * headers with names that are not valid were removed
   * ({@code routing.http.drop_invalid_header_fields.enabled}); {@code forwardedInvalid}: there
   * were such headers, and they go on to the target.
   */
  public record Values(Names names, String host, String forwardedFor, String proto, String port, CharSequence traceId,
      Tls tls, ClientCertHeaders clientCert, boolean droppedInvalid, boolean forwardedInvalid) {

    /** Sets the headers on {@code headers}, in this order, after the others. */
    public void setOn(MultiMap headers) {
      headers.add(names.host, host);
      if (forwardedFor != null) {
        headers.add(names.forwardedFor, forwardedFor);
      }
      headers.add(names.forwardedProto, proto);
      headers.add(names.forwardedPort, port);
      headers.add(names.traceId, traceId);
      if (tls != null) {
        headers.add(tls.names().version(), tls.version());
        headers.add(tls.names().cipherSuite(), tls.cipherSuite());
      }
      if (clientCert != null) {
        clientCert.setOn(headers);
      }
    }

    /** Writes the headers as HTTP/1.1 header lines, in the same order. */
    void writeTo(ByteBuf buf) {
      line(buf, HOST_LINE, host);
      if (forwardedFor != null) {
        line(buf, XFF_LINE, forwardedFor);
      }
      line(buf, PROTO_LINE, proto);
      line(buf, PORT_LINE, port);
      line(buf, TRACE_LINE, traceId);
      if (tls != null) {
        line(buf, tls.names().versionLine(), tls.version());
        line(buf, tls.names().cipherLine(), tls.cipherSuite());
      }
      if (clientCert != null) {
        clientCert.writeTo(buf);
      }
    }

    private static void line(ByteBuf buf, byte[] nameColonSpace, CharSequence value) {
      buf.writeBytes(nameColonSpace);
      // Written character by character, no copy made; characters past 0xFF become '?'.
      buf.writeCharSequence(value, StandardCharsets.ISO_8859_1);
      buf.writeShort(Http1Wire.CRLF);
    }
  }

  private static final byte[] HOST_LINE = lineStart(HOST);
  private static final byte[] XFF_LINE = lineStart(X_FORWARDED_FOR);
  private static final byte[] PROTO_LINE = lineStart(X_FORWARDED_PROTO);
  private static final byte[] PORT_LINE = lineStart(X_FORWARDED_PORT);
  private static final byte[] TRACE_LINE = lineStart(X_AMZN_TRACE_ID);

  private static byte[] lineStart(CharSequence name) {
    return (name + ": ").getBytes(StandardCharsets.US_ASCII);
  }

  /** The names of the headers the load balancer sets, as each protocol's header map keeps them. */
  record Names(CharSequence host, CharSequence forwardedFor, CharSequence forwardedProto,
      CharSequence forwardedPort, CharSequence traceId) {
    static final Names HTTP1 = new Names(HOST, X_FORWARDED_FOR, X_FORWARDED_PROTO, X_FORWARDED_PORT, X_AMZN_TRACE_ID);
    static final Names HTTP2 = new Names(lower(HOST), lower(X_FORWARDED_FOR), lower(X_FORWARDED_PROTO),
        lower(X_FORWARDED_PORT), lower(X_AMZN_TRACE_ID));

    private static CharSequence lower(CharSequence name) {
      return HttpHeaders.createOptimized(name.toString().toLowerCase(java.util.Locale.ROOT));
    }
  }

  /**
   * The Host header for the target (SPEC §11.1): lower-cased; on ports 80 and 443 without a
   * port, elsewhere with {@code :port} added when the client sent none. With preserve-host, the
   * client's value unchanged. Without a Host (HTTP/1.0), the load balancer's DNS name.
   */
  public static String targetHost(String clientHost, int listenerPort, ProxySettings settings) {
    boolean defaultPort = listenerPort == 80 || listenerPort == 443;
    if (clientHost == null || clientHost.isEmpty()) {
      return defaultPort ? settings.dnsName() : settings.dnsName() + ":" + listenerPort;
    }
    if (settings.preserveHost()) {
      return clientHost;
    }
    String h = lower(clientHost);
    int colon = portColon(h);
    if (defaultPort) {
      return colon < 0 ? h : h.substring(0, colon);
    }
    return colon < 0 ? h + ":" + listenerPort : h;
  }

  /** The host name of a Host value, without its port; IPv6 brackets kept. */
  public static String hostName(String hostHeader) {
    if (hostHeader == null) {
      return null;
    }
    int colon = portColon(hostHeader);
    return colon < 0 ? hostHeader : hostHeader.substring(0, colon);
  }

  /** The index of the colon before a port, or -1 ({@code [::1]:80}, {@code a.b:80}, {@code ::1}). */
  private static int portColon(String h) {
    int colon = h.lastIndexOf(':');
    if (colon < 0) {
      return -1;
    }
    if (h.startsWith("[")) {
      return h.indexOf(']') < colon ? colon : -1;
    }
    return h.indexOf(':') == colon ? colon : -1;
  }

  /**
   * The client's entry in X-Forwarded-For: its IP address (IPv6 compressed), with {@code :port}
   * ({@code [ip]:port} for IPv6) when {@code withPort} ({@code routing.http.xff_client_port.enabled}).
   */
  public static String forwardedFor(SocketAddress client, boolean withPort) {
    String ip = client.hostAddress();
    boolean v6 = ip.indexOf(':') >= 0;
    if (v6) {
      // The JDK writes IPv6 in full (0:0:0:0:0:0:0:1); ALB writes the usual compressed form (::1).
      byte[] bytes = IpAddresses.parse(ip);
      ip = bytes == null ? ip : IpAddresses.canonical(bytes);
    }
    if (!withPort) {
      return ip;
    }
    return v6 ? "[" + ip + "]:" + client.port() : ip + ":" + client.port();
  }

  /**
   * Whether a header's name is not valid ({@link #validName}). HTTP/1.x headers are read as they are
   * stored, without making a String of each name.
   */
  static boolean hasInvalidName(MultiMap headers) {
    if (headers instanceof io.netty.handler.codec.http.HttpHeaders stored) {
      Iterator<Map.Entry<CharSequence, CharSequence>> it = stored.iteratorCharSequence();
      while (it.hasNext()) {
        if (!validName(it.next().getKey())) {
          return true;
        }
      }
      return false;
    }
    for (Map.Entry<String, String> h : headers) {
      if (!validName(h.getKey())) {
        return true;
      }
    }
    return false;
  }

  /** Removes the headers whose names are not valid. */
  private static void dropInvalid(MultiMap headers) {
    java.util.Set<String> bad = new java.util.HashSet<>();
    for (Map.Entry<String, String> h : headers) {
      if (!validName(h.getKey())) {
        bad.add(h.getKey());
      }
    }
    bad.forEach(headers::remove);
  }

  static boolean validName(CharSequence name) {
    if (name.length() == 0) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
        return false;
      }
    }
    return true;
  }

  private static String lower(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c >= 'A' && c <= 'Z') {
        return s.toLowerCase(java.util.Locale.ROOT);
      }
    }
    return s;
  }
}
