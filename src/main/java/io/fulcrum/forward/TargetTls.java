package io.fulcrum.forward;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * TLS toward HTTPS targets, as ALB does it: ELBSecurityPolicy-2016-08's TLS 1.2, or TLS 1.2 and
 * 1.3 when an HTTPS listener of the load balancer has a TLS 1.3 policy (see
 * {@link ProxySettings#targetTls13()}); the target's certificate is not verified (ALB accepts
 * self-signed and expired ones). For Netty's channels, one context of each kind per process,
 * shared by every loop.
 */
final class TargetTls {

  private static final Set<String> TLS12_PROTOCOLS = Set.of("TLSv1.2");
  private static final Set<String> TLS13_PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
  private static final SslContext TLS12 = build(TLS12_PROTOCOLS);
  private static final SslContext TLS13 = build(TLS13_PROTOCOLS);

  private TargetTls() {
  }

  /** The TLS versions offered to targets. */
  static Set<String> protocols(boolean tls13) {
    return tls13 ? TLS13_PROTOCOLS : TLS12_PROTOCOLS;
  }

  static SslContext context(boolean tls13) {
    return tls13 ? TLS13 : TLS12;
  }

  private static SslContext build(Set<String> protocols) {
    try {
      return SslContextBuilder.forClient()
          .sslProvider(SslProvider.JDK)
          .trustManager(InsecureTrustManagerFactory.INSTANCE)
          .protocols(protocols)
          .build();
    } catch (SSLException e) {
      throw new IllegalStateException("TLS toward targets cannot be set up: " + e.getMessage(), e);
    }
  }
}
