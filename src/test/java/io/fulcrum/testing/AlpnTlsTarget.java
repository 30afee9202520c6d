package io.fulcrum.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * A TLS target that chooses an application protocol by ALPN from its own list and keeps what it
 * chose on each connection; it answers each line {@code x} with {@code <id>:x}. On the JDK's
 * TLS server, one thread per connection (a test's few). Connections that do not finish a
 * handshake (TCP health checks) are not counted.
 */
public final class AlpnTlsTarget implements AutoCloseable {

  private final String id;
  private final SSLServerSocket server;
  private final List<String> chosen = new CopyOnWriteArrayList<>();

  private AlpnTlsTarget(String id, SSLServerSocket server) {
    this.id = id;
    this.server = server;
  }

  /** A target on a free loopback port that speaks {@code protocols} by ALPN (its preference first). */
  public static AlpnTlsTarget start(String id, Path dir, List<String> protocols) {
    try {
      char[] password = "secret".toCharArray();
      Path store = TestCertificates.pkcs12(dir.resolve(id + ".p12"), "secret", List.of(List.of("target.example")));
      KeyStore keys = KeyStore.getInstance("PKCS12");
      try (var in = java.nio.file.Files.newInputStream(store)) {
        keys.load(in, password);
      }
      KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, password);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      SSLServerSocket server = (SSLServerSocket) context.getServerSocketFactory()
          .createServerSocket(0, 50, InetAddress.getLoopbackAddress());
      SSLParameters parameters = server.getSSLParameters();
      parameters.setApplicationProtocols(protocols.toArray(String[]::new));
      server.setSSLParameters(parameters);
      AlpnTlsTarget t = new AlpnTlsTarget(id, server);
      Thread accept = new Thread(t::accept, "alpn-target-" + id);
      accept.setDaemon(true);
      accept.start();
      return t;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        SSLSocket socket = (SSLSocket) server.accept();
        Thread serve = new Thread(() -> serve(socket), "alpn-target-" + id + "-conn");
        serve.setDaemon(true);
        serve.start();
      } catch (IOException e) {
        return; // closed
      }
    }
  }

  private void serve(SSLSocket socket) {
    try (socket) {
      socket.startHandshake();
      String protocol = socket.getApplicationProtocol();
      chosen.add(protocol == null ? "" : protocol);
      BufferedReader in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
      OutputStream out = socket.getOutputStream();
      for (String line = in.readLine(); line != null; line = in.readLine()) {
        out.write((id + ":" + line + "\n").getBytes(StandardCharsets.UTF_8));
        out.flush();
      }
    } catch (IOException e) {
      // a health check's connection, or the flow's end
    }
  }

  public int port() {
    return server.getLocalPort();
  }

  /** The protocol chosen on each connection whose handshake finished, in order ("" for none). */
  public List<String> chosenProtocols() {
    return chosen;
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
