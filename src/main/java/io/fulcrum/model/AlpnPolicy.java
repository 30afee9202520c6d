package io.fulcrum.model;

import java.util.Arrays;
import java.util.List;

/**
 * An ALPN policy of a TLS listener (NLB): the application protocols the listener negotiates with
 * a client, in the order it prefers them. A client that offers one of them gets the first of the
 * policy's list that it offers; a client that offers none, or no ALPN, gets no protocol and the
 * session goes on. With a TLS target group, the session to the target offers the protocol chosen
 * with the client, and nothing when none was.
 */
public enum AlpnPolicy {
  HTTP1_ONLY("HTTP1Only", "http/1.1", "http/1.0"),
  HTTP2_ONLY("HTTP2Only", "h2"),
  HTTP2_OPTIONAL("HTTP2Optional", "http/1.1", "http/1.0", "h2"),
  HTTP2_PREFERRED("HTTP2Preferred", "h2", "http/1.1", "http/1.0"),
  NONE("None");

  private final String wire;
  private final List<String> protocols;

  AlpnPolicy(String wire, String... protocols) {
    this.wire = wire;
    this.protocols = List.of(protocols);
  }

  /** The policy's name in the API and the config file ({@code HTTP2Preferred}). */
  public String wire() {
    return wire;
  }

  /** The ALPN protocol ids, most preferred first; empty for {@code None}. */
  public List<String> protocols() {
    return protocols;
  }

  /** The policy named {@code wire} (exactly, as AWS spells it), or null. */
  public static AlpnPolicy named(String wire) {
    return Arrays.stream(values()).filter(p -> p.wire.equals(wire)).findFirst().orElse(null);
  }

  /** Every policy's name, for messages. */
  public static List<String> names() {
    return Arrays.stream(values()).map(AlpnPolicy::wire).toList();
  }

  /** What a config or state file is told of a name that is no policy. */
  public static String unknown(String name) {
    return "'" + name + "' is not an ALPN policy (expected one of: " + String.join(", ", names()) + ")";
  }
}
