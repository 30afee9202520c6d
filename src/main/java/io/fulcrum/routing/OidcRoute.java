package io.fulcrum.routing;

import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.oidc.IdpClient;

/**
 * A rule's authenticate-oidc action and the routing action a request with a session takes
 * ({@code then}). Immutable; the IdP client is shared.
 *
 * @param id     the rule's ARN, or the listener's for its default actions: what a login's state names
 * @param signer the load balancer's ARN, the {@code signer} of the claims passed to targets
 */
public record OidcRoute(int priority, AuthenticateOidc config, String id, String signer, IdpClient idp,
    RouteAction then, String executed) implements RouteAction {

  /** ALB's {@code actions_executed} word for every authenticate action. */
  public static final String EXECUTED = "authenticate";

  OidcRoute(int priority, AuthenticateOidc config, String id, String signer, IdpClient idp, RouteAction then) {
    this(priority, config, id, signer, idp, then, EXECUTED + "," + then.executed());
  }
}
