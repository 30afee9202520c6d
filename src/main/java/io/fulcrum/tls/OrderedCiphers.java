package io.fulcrum.tls;

import io.fulcrum.model.SecurityPolicy;
import io.netty.handler.ssl.SslContext;
import io.vertx.core.net.JdkSSLEngineOptions;
import io.vertx.core.net.OpenSSLEngineOptions;
import io.vertx.core.net.SSLEngineOptions;
import io.vertx.core.spi.tls.SslContextFactory;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLException;
import javax.net.ssl.TrustManagerFactory;

/**
 * Vert.x's engine options, with the cipher suites a context is made with put in ELB's order of
 * preference ({@link SecurityPolicy#jssePreference}). A server picks, among the suites a client
 * offers, the first in its own list; Vert.x (5.0.7) hands its context factory the enabled suites in
 * a hash set, whose order is no order, so that a TLS 1.2 client offering both got a plain RSA key
 * exchange before ECDHE (no forward secrecy) under {@code ELBSecurityPolicy-2016-08}. The order is
 * ELB's, whatever the policy: each policy lists its suites in it.
 */
final class OrderedCiphers {

  private static final Map<String, Integer> RANK = new HashMap<>();

  static {
    List<String> preference = SecurityPolicy.jssePreference();
    for (int i = 0; i < preference.size(); i++) {
      RANK.putIfAbsent(preference.get(i), i);
    }
  }

  /** ELB's suites first, in its order; any other after them, by name. */
  private static final Comparator<String> ORDER = Comparator.<String>comparingInt(
      s -> RANK.getOrDefault(s, Integer.MAX_VALUE)).thenComparing(Comparator.naturalOrder());

  private OrderedCiphers() {
  }

  /** {@code suites} in ELB's order of preference. */
  static Set<String> ordered(Set<String> suites) {
    Set<String> out = new LinkedHashSet<>();
    suites.stream().sorted(ORDER).forEach(out::add);
    return out;
  }

  /** BoringSSL's engine options (tcnative), ordering the suites. */
  static final class OpenSsl extends OpenSSLEngineOptions {

    OpenSsl() {
    }

    private OpenSsl(OpenSsl other) {
      super(other);
    }

    @Override
    public OpenSsl copy() {
      return new OpenSsl(this);
    }

    @Override
    public SslContextFactory sslContextFactory() {
      return new Factory(super.sslContextFactory());
    }
  }

  /** The JDK's engine options, ordering the suites. */
  static final class Jdk extends JdkSSLEngineOptions {

    Jdk() {
    }

    private Jdk(Jdk other) {
      super(other);
    }

    @Override
    public Jdk copy() {
      return new Jdk(this);
    }

    @Override
    public SslContextFactory sslContextFactory() {
      return new Factory(super.sslContextFactory());
    }
  }

  /** Vert.x's factory, given the suites in order. */
  private static final class Factory implements SslContextFactory {

    private final SslContextFactory delegate;

    Factory(SslContextFactory delegate) {
      this.delegate = delegate;
    }

    @Override
    public SslContextFactory useAlpn(boolean useAlpn) {
      delegate.useAlpn(useAlpn);
      return this;
    }

    @Override
    public SslContextFactory clientAuth(io.netty.handler.ssl.ClientAuth clientAuth) {
      delegate.clientAuth(clientAuth);
      return this;
    }

    @Override
    public SslContextFactory forClient(boolean forClient) {
      delegate.forClient(forClient);
      return this;
    }

    @Override
    public SslContextFactory keyMananagerFactory(KeyManagerFactory kmf) {
      delegate.keyMananagerFactory(kmf);
      return this;
    }

    @Override
    public SslContextFactory trustManagerFactory(TrustManagerFactory tmf) {
      delegate.trustManagerFactory(tmf);
      return this;
    }

    @Override
    public SslContextFactory enabledCipherSuites(Set<String> enabledCipherSuites) {
      delegate.enabledCipherSuites(enabledCipherSuites == null ? null : ordered(enabledCipherSuites));
      return this;
    }

    @Override
    public SslContextFactory applicationProtocols(List<String> applicationProtocols) {
      delegate.applicationProtocols(applicationProtocols);
      return this;
    }

    @Override
    public SslContextFactory serverName(String serverName) {
      delegate.serverName(serverName);
      return this;
    }

    @Override
    public SslContext create() throws SSLException {
      return delegate.create();
    }
  }
}
