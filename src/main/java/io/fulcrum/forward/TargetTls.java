package io.fulcrum.forward;

import io.fulcrum.tls.TlsEngine;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import javax.net.ssl.SSLException;

/**
 * TLS toward HTTPS targets, as ALB does it: ELBSecurityPolicy-2016-08's TLS 1.2, or TLS 1.2 and
 * 1.3 when an HTTPS listener of the load balancer has a TLS 1.3 policy (see
 * {@link ProxySettings#targetTls13()}); the target's certificate is not verified (ALB accepts
 * self-signed and expired ones). HTTP/2 connections (HTTP2 and GRPC target groups) offer ALPN
 * {@code h2} only; a TLS listener's flows offer the protocol chosen with their client, if any. For
 * Netty's channels, one context of each kind per process, shared by every loop.
 */
public final class TargetTls {

  private static final Set<String> TLS12_PROTOCOLS = Set.of("TLSv1.2");
  private static final Set<String> TLS13_PROTOCOLS = Set.of("TLSv1.2", "TLSv1.3");
  private static final SslContext TLS12 = build(TLS12_PROTOCOLS, null);
  private static final SslContext TLS13 = build(TLS13_PROTOCOLS, null);
  private static final SslContext H2_TLS12 = build(TLS12_PROTOCOLS, ApplicationProtocolNames.HTTP_2);
  private static final SslContext H2_TLS13 = build(TLS13_PROTOCOLS, ApplicationProtocolNames.HTTP_2);
  /** By ALPN protocol id: a few at most (those of the ALPN policies), made on first use. */
  private static final Map<String, SslContext> FLOW_ALPN = new ConcurrentHashMap<>();

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

  /**
   * For a TLS listener's flows to a TLS target group: TLS 1.2 and 1.3, offering {@code protocol}
   * alone by ALPN (the one chosen with the client), or nothing when it is null. A target that
   * chooses nothing is taken as it is; the bytes that follow are the client's.
   */
  public static SslContext context(String protocol) {
    if (protocol == null) {
      return TLS13;
    }
    return FLOW_ALPN.computeIfAbsent(protocol, p -> build(TLS13_PROTOCOLS, p));
  }

  /** As {@link #context}, offering ALPN {@code h2}: for HTTP/2 connections. */
  static SslContext h2Context(boolean tls13) {
    return tls13 ? H2_TLS13 : H2_TLS12;
  }

  /** @param alpn the one ALPN protocol id to offer, or null for none */
  private static SslContext build(Set<String> protocols, String alpn) {
    try {
      SslContextBuilder b = SslContextBuilder.forClient()
          .sslProvider(TlsEngine.current().nettyProvider())
          .trustManager(InsecureTrustManagerFactory.INSTANCE)
          .protocols(protocols);
      if (alpn != null) {
        // A target that does not speak HTTP/2 refuses the handshake, or gets the connection preface and fails it.
        b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
            ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
            ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
      }
      return b.build();
    } catch (SSLException e) {
      throw new IllegalStateException("TLS toward targets cannot be set up: " + e.getMessage(), e);
    }
  }
}
