package io.fulcrum.listener;

import io.fulcrum.bus.ListenerTls;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.tls.ClientTrustOptions;
import io.fulcrum.tls.ServerKeyCertOptions;
import io.fulcrum.tls.TlsEngine;
import io.netty.channel.Channel;
import io.netty.handler.ssl.ReferenceCountedOpenSslEngine;
import io.netty.handler.ssl.SslHandler;
import io.netty.internal.tcnative.SSL;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PfxOptions;
import io.vertx.core.internal.ContextInternal;
import io.vertx.core.internal.tls.SslContextManager;
import io.vertx.core.internal.tls.SslContextProvider;
import io.vertx.core.net.ServerSSLOptions;
import java.time.Clock;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLContext;

/**
 * TLS for a listener: its certificates (several chosen by SNI), the security policy's
 * protocols and cipher suites (those this JVM and the {@link TlsEngine} offer), and ALPN: for an
 * HTTPS listener's server {@code h2} and {@code http/1.1}, for a TLS listener its ALPN policy's.
 */
final class Tls {

  /**
   * TLS listeners' contexts, one manager per Vert.x instance and TLS setup, so that every loop's
   * socket of a TLS listener ends sessions with the same context: one session cache and one set of
   * ticket keys, and a client resumes its session on whichever loop the kernel gives its next
   * connection to. Per TLS setup because a manager knows a context by its certificates alone: one
   * shared by every setup gave a listener the security policy and ALPN protocols of the first
   * listener with the same certificates, and kept a policy that changed. Files replaced in place
   * make another key (their digest changed), whose manager reads them again; the manager of their
   * earlier contents is then dropped (connections open keep their sessions). One manager per setup
   * seen, a few at most, kept while the Vert.x instance lives.
   */
  private static final Map<Vertx, Map<ListenerTls, SslContextManager>> FLOW_CONTEXTS =
      Collections.synchronizedMap(new WeakHashMap<>());

  private static final Set<String> SUPPORTED_PROTOCOLS;

  static {
    try {
      SUPPORTED_PROTOCOLS = Set.of(SSLContext.getDefault().getDefaultSSLParameters().getProtocols());
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private Tls() {
  }

  static void configure(HttpServerOptions options, ListenerTls tls, boolean http2) {
    options.setSsl(true).setSslEngineOptions(TlsEngine.current().vertxOptions());
    ServerSSLOptions ssl = sslOptions(tls);
    options.setSni(ssl.isSni()).setKeyCertOptions(ssl.getKeyCertOptions())
        .setEnabledSecureTransportProtocols(ssl.getEnabledSecureTransportProtocols())
        .setClientAuth(ssl.getClientAuth()).setTrustOptions(ssl.getTrustOptions());
    ssl.getEnabledCipherSuites().forEach(options::addEnabledCipherSuite);
    options.setUseAlpn(true)
        .setAlpnVersions(http2 ? List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1) : List.of(HttpVersion.HTTP_1_1));
  }

  /**
   * The context of a TLS listener's sessions: its certificates (loaded off the event loop), SNI, its
   * policy's protocols and cipher suites, and its ALPN policy's protocols (the first of them that
   * the client offers is chosen; none offered, none is chosen and the handshake goes on).
   */
  static Future<SslContextProvider> flowContext(Vertx vertx, ListenerTls tls, ContextInternal context) {
    Map<ListenerTls, SslContextManager> managers = FLOW_CONTEXTS.computeIfAbsent(vertx, v -> new ConcurrentHashMap<>());
    SslContextManager contexts = managers.get(tls);
    if (contexts == null) {
      ListenerTls setup = tls.setup();
      managers.keySet().removeIf(seen -> !seen.equals(tls) && seen.setup().equals(setup)); // its files as they were
      contexts = managers.computeIfAbsent(tls, t -> new SslContextManager(TlsEngine.current().vertxOptions()));
    }
    return contexts.resolveSslContextProvider(sslOptions(tls), null, ClientAuth.NONE,
        tls.alpn().isEmpty() ? null : tls.alpn(), context);
  }

  /**
   * The application protocol chosen with a TLS client (its listener's ALPN policy), which the
   * session to a TLS target offers alone so that the target speaks what the client does; null
   * when none was (no policy, or the client offered none of it) or the client is not on TLS.
   */
  static String negotiated(Channel client) {
    SslHandler tls = client.pipeline().get(SslHandler.class);
    return tls == null ? null : tls.applicationProtocol();
  }

  /**
   * Whether the client's session on {@code client} resumed an earlier one (an abbreviated
   * handshake, by session id or ticket), as BoringSSL tells; false over cleartext, and on the JDK's
   * TLS, which does not tell.
   */
  static boolean resumed(Channel client) {
    SslHandler tls = client.pipeline().get(SslHandler.class);
    if (tls != null && tls.engine() instanceof ReferenceCountedOpenSslEngine engine) {
      long ssl = engine.sslPointer();
      return ssl != 0 && SSL.isSessionReused(ssl); // 0: the engine has been freed (the connection closed)
    }
    return false;
  }

  /**
   * Certificates, SNI, the protocols and cipher suites of the policy that this JVM offers, and
   * mutual TLS: passthrough asks for a client certificate and takes any, verify requires one that
   * the trust store vouches for (a handshake without one fails).
   */
  static ServerSSLOptions sslOptions(ListenerTls tls) {
    ServerSSLOptions options = new ServerSSLOptions().setSni(true);
    MutualAuthentication mtls = tls.mutualAuthentication();
    if (mtls.on()) {
      options.setClientAuth(mtls.mode() == MutualAuthentication.Mode.VERIFY ? ClientAuth.REQUIRED : ClientAuth.REQUEST)
          .setTrustOptions(new ClientTrustOptions(mtls, Clock.systemUTC()));
    }
    if (tls.pkcs12File() != null) {
      options.setKeyCertOptions(ServerKeyCertOptions.pkcs12(
          new PfxOptions().setPath(tls.pkcs12File()).setPassword(tls.password())));
    } else {
      PemKeyCertOptions pem = new PemKeyCertOptions();
      tls.certificateFiles().forEach(pem::addCertPath);
      tls.keyFiles().forEach(pem::addKeyPath);
      options.setKeyCertOptions(ServerKeyCertOptions.pem(pem));
    }
    // The JVM may refuse part of a policy (Java 17 disables TLS 1.0 and 1.1): offer what both allow, whichever
    // engine runs the sessions.
    Set<String> protocols = new LinkedHashSet<>();
    tls.policy().protocols().stream().filter(SUPPORTED_PROTOCOLS::contains).forEach(protocols::add);
    options.setEnabledSecureTransportProtocols(protocols);
    // The engine may lack part of it too (BoringSSL has no CBC suites with SHA-256 or SHA-384 MACs).
    Set<String> ciphers = TlsEngine.current().cipherSuites();
    tls.policy().jsseCiphers().stream().filter(ciphers::contains).forEach(options::addEnabledCipherSuite);
    return options;
  }
}
