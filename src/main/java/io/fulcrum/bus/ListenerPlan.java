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
 */
public record ListenerPlan(
    String lbName,
    String arn,
    Protocol protocol,
    int port,
    List<Node> nodes,
    RouteTable routes,
    ProxySettings proxy) {

  public ListenerPlan {
    nodes = List.copyOf(nodes);
  }
}
