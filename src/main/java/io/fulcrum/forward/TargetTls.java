package io.fulcrum.forward;

import io.fulcrum.tls.TlsEngine;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * TLS toward HTTPS targets, as ALB does it: ELBSecurityPolicy-2016-08's TLS 1.2, or TLS 1.2 and
 * 1.3 when an HTTPS listener of the load balancer has a TLS 1.3 policy (see
 * {@link ProxySettings#targetTls13()}); the target's certificate is not verified (ALB accepts
 * self-signed and expired ones). HTTP/2 connections (HTTP2 and GRPC target groups) offer ALPN
 * {@code h2} only. For Netty's channels, one context of each kind per process, shared by every loop.
 */
public final class TargetTls {

  private static final Set<String> TLS12_PROTOCOLS = Set.of("TLSv1.2");
  private static final Set<String> TLS13_PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
  private static final SslContext TLS12 = build(TLS12_PROTOCOLS, false);
  private static final SslContext TLS13 = build(TLS13_PROTOCOLS, false);
  private static final SslContext H2_TLS12 = build(TLS12_PROTOCOLS, true);
  private static final SslContext H2_TLS13 = build(TLS13_PROTOCOLS, true);

  private TargetTls() {
  }

  /** The TLS versions offered to targets. */
  static Set<String> protocols(boolean tls13) {
    return tls13 ? TLS13_PROTOCOLS : TLS12_PROTOCOLS;
  }

  /** For Netty's channels to targets: TLS 1.2, or 1.2 and 1.3 with {@code tls13}. */
  public static SslContext context(boolean tls13) {
    return tls13 ? TLS13 : TLS12;
  }

  /** As {@link #context}, offering ALPN {@code h2}: for HTTP/2 connections. */
  static SslContext h2Context(boolean tls13) {
    return tls13 ? H2_TLS13 : H2_TLS12;
  }

  private static SslContext build(Set<String> protocols, boolean h2) {
    try {
      SslContextBuilder b = SslContextBuilder.forClient()
          .sslProvider(TlsEngine.current().nettyProvider())
          .trustManager(InsecureTrustManagerFactory.INSTANCE)
          .protocols(protocols);
      if (h2) {
        // A target that does not speak HTTP/2 refuses the handshake, or gets the connection preface and fails it.
        b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, ApplicationProtocolNames.HTTP_2));
      }
      return b.build();
    } catch (SSLException e) {
      throw new IllegalStateException("TLS toward targets cannot be set up: " + e.getMessage(), e);
    }
  }
}
