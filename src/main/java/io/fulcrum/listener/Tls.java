package io.fulcrum.listener;

import io.fulcrum.bus.ListenerTls;
import io.fulcrum.tls.TlsEngine;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PfxOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * TLS for a listener: its certificates (several chosen by SNI), the security policy's
 * protocols and cipher suites (those this JVM and the {@link TlsEngine} offer), and, for an HTTPS
 * listener's server, ALPN {@code h2} and {@code http/1.1}.
 */
final class Tls {

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
        .setEnabledSecureTransportProtocols(ssl.getEnabledSecureTransportProtocols());
    ssl.getEnabledCipherSuites().forEach(options::addEnabledCipherSuite);
    options.setUseAlpn(true)
        .setAlpnVersions(http2 ? List.of(HttpVersion.HTTP_2, HttpVersion.HTTP_1_1) : List.of(HttpVersion.HTTP_1_1));
  }

  /** Certificates, SNI, and the protocols and cipher suites of the policy that this JVM offers. */
  static ServerSSLOptions sslOptions(ListenerTls tls) {
    ServerSSLOptions options = new ServerSSLOptions().setSni(true);
    if (tls.pkcs12File() != null) {
      options.setKeyCertOptions(new PfxOptions().setPath(tls.pkcs12File()).setPassword(tls.password()));
    } else {
      PemKeyCertOptions pem = new PemKeyCertOptions();
      tls.certificateFiles().forEach(pem::addCertPath);
      tls.keyFiles().forEach(pem::addKeyPath);
      options.setKeyCertOptions(pem);
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
