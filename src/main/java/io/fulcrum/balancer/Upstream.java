package io.fulcrum.balancer;

/**
 * A target as the data plane sees it: where to connect and which zone it is in. Immutable.
 *
 * @param key     {@code id:port}, the registration's identity
 * @param id      the registered id (IP or instance id)
 * @param address the IP address to connect to
 * @param port    the traffic port
 * @param zone    its zone, or {@code all}
 */
public record Upstream(String key, String id, String address, int port, String zone) {
}
