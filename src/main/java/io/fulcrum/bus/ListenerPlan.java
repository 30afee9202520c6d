package io.fulcrum.bus;

import io.fulcrum.forward.ClientCertHeaders;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.forward.ProxySettings;
import io.fulcrum.model.ListenerAttributes;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Node;
import io.fulcrum.model.Protocol;
import io.fulcrum.routing.RouteTable;
import java.util.List;

/**
 * One listener as the data plane runs it: where it binds (each node of its load balancer's
 * enabled zones), its compiled rules and its load balancer's proxy settings. Immutable.
 *
 * @param lbName   the load balancer's name
 * @param arn      the listener's ARN
 * @param protocol the listener protocol
 * @param port     the listener port (also X-Forwarded-Port)
 * @param nodes    the nodes it binds on
 * @param routes   compiled rules and default action
 * @param proxy    settings from the load balancer's attributes
 * @param tls      certificates and security policy of an HTTPS listener; null for HTTP
 * @param http2    whether clients may speak HTTP/2 (ALPN h2 over TLS; {@code routing.http2.enabled})
 * @param h2c      whether an HTTP listener accepts cleartext HTTP/2 (Fulcrum's extension)
 * @param attributes the listener's attributes (header modification; a TCP, TLS or TCP_UDP
 *                   listener's idle timeout)
 * @param tlsNames the names of the TLS headers, from its attributes
 * @param clientCertNames the names of the mutual TLS headers, from its attributes; null unless the
 *                 listener has mutual TLS
 */
public record ListenerPlan(
    String lbName,
    String arn,
    Protocol protocol,
    int port,
    List<Node> nodes,
    RouteTable routes,
    ProxySettings proxy,
    ListenerTls tls,
    boolean http2,
    boolean h2c,
    ListenerAttributes attributes,
    ForwardHeaders.TlsNames tlsNames,
    ClientCertHeaders.Names clientCertNames) {

  public ListenerPlan {
    nodes = List.copyOf(nodes);
    attributes = attributes == null ? ListenerAttributes.defaults(protocol) : attributes;
  }

  /** A listener with {@code attributes} (null: the defaults). */
  public ListenerPlan(String lbName, String arn, Protocol protocol, int port, List<Node> nodes, RouteTable routes,
      ProxySettings proxy, ListenerTls tls, boolean http2, boolean h2c, ListenerAttributes attributes) {
    this(lbName, arn, protocol, port, nodes, routes, proxy, tls, http2, h2c, attributes, attributes == null
        ? ForwardHeaders.TlsNames.DEFAULT
        : ForwardHeaders.TlsNames.of(attributes.tlsVersionHeader(), attributes.tlsCipherSuiteHeader()),
        tls == null || !tls.mutualAuthentication().on() ? null : ClientCertHeaders.Names.of(
            (attributes == null ? ListenerAttributes.defaults(protocol) : attributes).clientCertHeaders()));
  }

  /** The listener's mutual TLS mode. */
  public MutualAuthentication.Mode mutualTls() {
    return tls == null ? MutualAuthentication.Mode.OFF : tls.mutualAuthentication().mode();
  }

  /** A listener with the default attributes. */
  public ListenerPlan(String lbName, String arn, Protocol protocol, int port, List<Node> nodes, RouteTable routes,
      ProxySettings proxy, ListenerTls tls, boolean http2, boolean h2c) {
    this(lbName, arn, protocol, port, nodes, routes, proxy, tls, http2, h2c, null);
  }
}
