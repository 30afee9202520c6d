package io.fulcrum.routing;

/**
 * What a matched rule (or the default action) does with a request. Compiled once per snapshot,
 * immutable, shared by every event loop.
 */
public sealed interface RouteAction permits ForwardRoute, FixedRoute, RedirectRoute, JwtRoute, OidcRoute,
    OidcCallbackRoute {

  /** The priority of the rule it came from; 0 for the default action (as in ALB's access log). */
  int priority();

  /**
   * The access log's {@code actions_executed} for a request it takes: {@code forward},
   * {@code jwt-validation,forward}, {@code authenticate,forward}, ...
   */
  String executed();
}
