package io.fulcrum.testing;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.NetServer;
import io.vertx.core.net.NetServerOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.parsetools.RecordParser;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real TCP target of a network load balancer on a free loopback port (optionally over TLS). It
 * answers each line {@code x} of a connection with {@code <id>:x}; a connection that starts with
 * {@code GET } is a health check, answered {@code 200} or {@code 503} as {@link #healthy(boolean)}
 * says and closed. A PROXY protocol v2 header ahead of either is taken off and kept (and can be
 * required, see {@link #requireProxyProtocol}).
 */
public final class TcpTarget implements AutoCloseable {

  private static final byte[] PROXY_V2 = {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A};

  private final String id;
  private final NetServer server;
  private final AtomicInteger connections = new AtomicInteger();
  private final Set<NetSocket> open = ConcurrentHashMap.newKeySet();
  private final List<byte[]> proxyHeaders = new CopyOnWriteArrayList<>();
  private volatile boolean healthy = true;
  private volatile boolean requireProxyProtocol;

  private TcpTarget(String id, NetServer server) {
    this.id = id;
    this.server = server;
  }

  public static TcpTarget start(Vertx vertx, String id) {
    return start(vertx, id, null);
  }

  /** A target over TLS with the certificate {@code pem}; cleartext when it is null. */
  public static TcpTarget start(Vertx vertx, String id, TestCertificates.Pem pem) {
    NetServerOptions options = new NetServerOptions().setHost("127.0.0.1").setPort(0);
    if (pem != null) {
      options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
          .setCertPath(pem.certificate().toString()).setKeyPath(pem.privateKey().toString()));
    }
    NetServer server = vertx.createNetServer(options);
    TcpTarget t = new TcpTarget(id, server);
    server.connectHandler(t::accept);
    Await.result(server.listen());
    return t;
  }

  private void accept(NetSocket socket) {
    Buffer start = Buffer.buffer();
    boolean[] decided = {false};
    socket.handler(data -> {
      if (decided[0]) {
        return;
      }
      start.appendBuffer(data);
      // A PROXY protocol v2 header first (12 bytes of signature, 4 of version, family and length)?
      int header = 0;
      if (start.length() >= 12 && java.util.Arrays.equals(start.getBytes(0, 12), PROXY_V2)) {
        if (start.length() < 16 || start.length() < 16 + start.getUnsignedShort(14)) {
          return;
        }
        header = 16 + start.getUnsignedShort(14);
      } else if (start.length() < 12 && java.util.Arrays.equals(start.getBytes(), java.util.Arrays.copyOf(PROXY_V2,
          start.length()))) {
        return; // maybe the start of one
      }
      if (start.length() < header + 4) {
        return;
      }
      decided[0] = true;
      if (header > 0) {
        proxyHeaders.add(start.getBytes(0, header));
      } else if (requireProxyProtocol) {
        socket.close(); // as NGINX's "listen ... proxy_protocol" does without one
        return;
      }
      if (start.getString(header, header + 4, "US-ASCII").equals("GET ")) {
        String status = healthy ? "200 OK" : "503 Service Unavailable";
        socket.end(Buffer.buffer("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"));
        return;
      }
      connections.incrementAndGet();
      open.add(socket);
      socket.closeHandler(v -> open.remove(socket));
      RecordParser lines = RecordParser.newDelimited("\n",
          line -> socket.write(id + ":" + line.toString(StandardCharsets.UTF_8) + "\n"));
      socket.handler(lines);
      lines.handle(start.getBuffer(header, start.length()));
    });
  }

  /** Whether a connection without a PROXY protocol header is closed at once (health checks included). */
  public void requireProxyProtocol(boolean required) {
    this.requireProxyProtocol = required;
  }

  public String id() {
    return id;
  }

  public int port() {
    return server.actualPort();
  }

  /** Whether health checks pass. */
  public void healthy(boolean healthy) {
    this.healthy = healthy;
  }

  /** Connections that carried data (health checks aside). */
  public int connections() {
    return connections.get();
  }

  /** Connections open now that carried data. */
  public int open() {
    return open.size();
  }

  /** The PROXY protocol v2 headers received (health checks' included), in order. */
  public List<byte[]> proxyHeaders() {
    return proxyHeaders;
  }

  @Override
  public void close() {
    Await.result(server.close());
  }
}
