package io.fulcrum.routing;

import io.fulcrum.model.AuthenticateOidc;
import java.util.Map;

/**
 * The IdP's redirect back to a listener with authenticate-oidc actions
 * ({@value AuthenticateOidc#CALLBACK_PATH}): the load balancer redeems the code for the action the
 * login's state names; no rule sees the request. Immutable.
 *
 * @param actions the listener's authenticate-oidc actions by {@link OidcRoute#id()}
 */
public record OidcCallbackRoute(Map<String, OidcRoute> actions) implements RouteAction {

  public OidcCallbackRoute {
    actions = Map.copyOf(actions);
  }

  @Override
  public int priority() {
    return 0;
  }

  @Override
  public String executed() {
    return OidcRoute.EXECUTED;
  }
}
