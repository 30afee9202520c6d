package io.fulcrum.model;

import java.util.List;

/**
 * A listener of a load balancer: protocol and port, its default actions and its rules (sorted
 * by priority), and for HTTPS its certificates (the first is the default; the others are chosen
 * by SNI) and security policy. Immutable.
 *
 * @param h2c        whether an HTTP listener also accepts cleartext HTTP/2 (prior knowledge and
 *                   upgrade): Fulcrum's own extension, so that plaintext gRPC works locally
 * @param attributes its attributes (null: the defaults); those of another protocol family are
 *                   carried over to this one's keys (a change between HTTP and HTTPS)
 * @param alpnPolicy a TLS listener's ALPN policy ({@link AlpnPolicy}), or null when none was given
 *                   (which negotiates nothing, as {@code None} does)
 * @param mutualAuthentication an HTTPS listener's mutual TLS ({@link MutualAuthentication#OFF} when
 *                   none was given, and for every other protocol)
 */
public record Listener(String arn, Protocol protocol, int port, List<Action> defaultActions, List<Rule> rules,
    List<Certificate> certificates, String sslPolicy, boolean h2c, ListenerAttributes attributes,
    AlpnPolicy alpnPolicy, MutualAuthentication mutualAuthentication) {

  /** The security policy of HTTPS listeners created without one, as in the ELBv2 API. */
  public static final String DEFAULT_SSL_POLICY = "ELBSecurityPolicy-2016-08";

  public Listener {
    defaultActions = List.copyOf(defaultActions);
    rules = rules.stream().sorted((a, b) -> Integer.compare(a.priority(), b.priority())).toList();
    certificates = List.copyOf(certificates);
    attributes = attributes == null ? ListenerAttributes.defaults(protocol) : attributes.forProtocol(protocol);
    mutualAuthentication = mutualAuthentication == null || protocol != Protocol.HTTPS ? MutualAuthentication.OFF
        : mutualAuthentication;
  }

  /** A listener without certificates and without h2c. */
  public Listener(String arn, Protocol protocol, int port, List<Action> defaultActions, List<Rule> rules) {
    this(arn, protocol, port, defaultActions, rules, List.of(), null, false, null, null, null);
  }

  public Listener withRules(List<Rule> newRules) {
    return new Listener(arn, protocol, port, defaultActions, newRules, certificates, sslPolicy, h2c, attributes,
        alpnPolicy, mutualAuthentication);
  }

  public Listener withAttributes(ListenerAttributes newAttributes) {
    return new Listener(arn, protocol, port, defaultActions, rules, certificates, sslPolicy, h2c, newAttributes,
        alpnPolicy, mutualAuthentication);
  }

  public Listener withCertificates(List<Certificate> newCertificates) {
    return new Listener(arn, protocol, port, defaultActions, rules, newCertificates, sslPolicy, h2c, attributes,
        alpnPolicy, mutualAuthentication);
  }
}
