package io.fulcrum.forward;

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
 */
public record ProxySettings(
    long idleTimeoutMillis,
    int connectTimeoutMillis,
    String xffMode,
    boolean xffClientPort,
    boolean preserveHost,
    boolean dropInvalidHeaders,
    String dnsName) {

  public static ProxySettings of(LoadBalancer lb) {
    LoadBalancerAttributes a = lb.attributes();
    return new ProxySettings(a.idleTimeoutSeconds() * 1000L, a.connectTimeoutMillis(), a.xffMode(), a.xffClientPort(),
        a.preserveHost(), a.dropInvalidHeaders(), lb.dnsName());
  }
}
