package io.fulcrum.model;

/**
 * One node of the load balancers: a zone and the address its listeners bind to. A request's
 * zone is the zone of the node it arrived on.
 */
public record Node(String zone, String address) {
}
