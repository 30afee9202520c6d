package io.fulcrum.model;

import java.util.List;

/**
 * A listener of a load balancer: protocol and port, its default actions and its rules (sorted
 * by priority), and for HTTPS its certificates (the first is the default; the others are chosen
 * by SNI) and security policy. Immutable.
 *
 * @param h2c whether an HTTP listener also accepts cleartext HTTP/2 (prior knowledge and
 *            upgrade): Fulcrum's own extension, so that plaintext gRPC works locally
 */
public record Listener(String arn, Protocol protocol, int port, List<Action> defaultActions, List<Rule> rules,
    List<Certificate> certificates, String sslPolicy, boolean h2c) {

  /** The security policy of HTTPS listeners created without one, as in the ELBv2 API. */
  public static final String DEFAULT_SSL_POLICY = "ELBSecurityPolicy-2016-08";

  public Listener {
    defaultActions = List.copyOf(defaultActions);
    rules = rules.stream().sorted((a, b) -> Integer.compare(a.priority(), b.priority())).toList();
    certificates = List.copyOf(certificates);
  }

  /** A listener without certificates and without h2c. */
  public Listener(String arn, Protocol protocol, int port, List<Action> defaultActions, List<Rule> rules) {
    this(arn, protocol, port, defaultActions, rules, List.of(), null, false);
  }

  public Listener withRules(List<Rule> newRules) {
    return new Listener(arn, protocol, port, defaultActions, newRules, certificates, sslPolicy, h2c);
  }
}
