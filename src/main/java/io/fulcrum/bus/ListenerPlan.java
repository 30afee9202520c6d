package io.fulcrum.bus;

import io.fulcrum.forward.ProxySettings;
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
    boolean h2c) {

  public ListenerPlan {
    nodes = List.copyOf(nodes);
  }
}
