package io.fulcrum.forward;

import io.fulcrum.model.Listener;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.SecurityPolicy;

import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerAttributes;

/**
 * What the forwarder needs of a load balancer's attributes, read once per snapshot.
 *
 * @param idleTimeoutMillis   idle timeout toward clients and targets
 * @param connectTimeoutMillis connect timeout toward targets (ALB: 10 s)
 * @param xffMode             {@code append}, {@code preserve} or {@code remove}
 * @param xffClientPort       add the client port to X-Forwarded-For
 * @param preserveHost        forward Host unchanged
 * @param dropInvalidHeaders  drop headers whose names are not {@code [-A-Za-z0-9]+}
 * @param dnsName             the load balancer's DNS name (Host of HTTP/1.0 requests without one)
 * @param targetTls13         whether TLS to targets may use TLS 1.3: as on ALB, only when an HTTPS
 *                            listener of the load balancer has a TLS 1.3 policy; otherwise
 *                            ELBSecurityPolicy-2016-08 (TLS 1.2 here: the JVM refuses 1.0 and 1.1)
 * @param tlsHeaders          requests from HTTPS listeners get {@code x-amzn-tls-version} and
 *                            {@code x-amzn-tls-cipher-suite}
 *                            ({@code routing.http.x_amzn_tls_version_and_cipher_suite.enabled})
 * @param clientKeepAliveMillis the longest life of a client connection ({@code client_keep_alive.seconds})
 * @param desyncMode          {@code routing.http.desync_mitigation_mode}: {@code monitor},
 *                            {@code defensive} or {@code strictest}
 * @param accessLogBucket     where the access log goes ({@code access_logs.s3.bucket}), or null while it is off
 * @param accessLogPrefix     the access log's key prefix, {@code ""} for none
 * @param connectionLogBucket where the connection log goes ({@code connection_logs.s3.bucket}), or null
 *                            while it is off
 * @param connectionLogPrefix the connection log's key prefix, {@code ""} for none
 */
public record ProxySettings(
    long idleTimeoutMillis,
    int connectTimeoutMillis,
    String xffMode,
    boolean xffClientPort,
    boolean preserveHost,
    boolean dropInvalidHeaders,
    String dnsName,
    boolean targetTls13,
    boolean tlsHeaders,
    long clientKeepAliveMillis,
    String desyncMode,
    String accessLogBucket,
    String accessLogPrefix,
    String connectionLogBucket,
    String connectionLogPrefix) {

  /** ALB's default {@code client_keep_alive.seconds}: an hour. */
  public static final long DEFAULT_CLIENT_KEEP_ALIVE_MILLIS = 3_600_000;

  /**
   * Without TLS 1.3 toward targets, nor the TLS headers; client connections live an hour at most;
   * desync mitigation defensive; no access log, no connection log.
   */
  public ProxySettings(long idleTimeoutMillis, int connectTimeoutMillis, String xffMode, boolean xffClientPort,
      boolean preserveHost, boolean dropInvalidHeaders, String dnsName) {
    this(idleTimeoutMillis, connectTimeoutMillis, xffMode, xffClientPort, preserveHost, dropInvalidHeaders, dnsName,
        false, false, DEFAULT_CLIENT_KEEP_ALIVE_MILLIS, "defensive", null, "", null, "");
  }

  public static ProxySettings of(LoadBalancer lb) {
    LoadBalancerAttributes a = lb.attributes();
    boolean tls13 = lb.listeners().stream().filter(l -> l.protocol() == Protocol.HTTPS).anyMatch(l -> {
      SecurityPolicy p = SecurityPolicy.named(l.sslPolicy() == null ? Listener.DEFAULT_SSL_POLICY : l.sslPolicy());
      return p != null && p.protocols().contains("TLSv1.3");
    });
    return new ProxySettings(a.idleTimeoutSeconds() * 1000L, a.connectTimeoutMillis(), a.xffMode(), a.xffClientPort(),
        a.preserveHost(), a.dropInvalidHeaders(), lb.dnsName(), tls13, a.tlsHeaders(),
        a.clientKeepAliveSeconds() * 1000L, a.desyncMode(), a.accessLogBucket(), a.accessLogPrefix(),
        a.connectionLogBucket(), a.connectionLogPrefix());
  }
}
