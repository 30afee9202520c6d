package io.fulcrum.routing;

import io.fulcrum.jwt.KeySource;
import io.fulcrum.jwt.TokenCheck;
import io.fulcrum.model.JwtValidation;

/**
 * A rule's jwt-validation action and the routing action a request takes once its token passes
 * ({@code then}). Immutable; the key source is shared and read without locks.
 */
public final class JwtRoute implements RouteAction {

  private final int priority;
  private final TokenCheck check;
  private final KeySource keys;
  private final RouteAction then;
  private final String executed;

  JwtRoute(int priority, TokenCheck check, KeySource keys, RouteAction then) {
    this.priority = priority;
    this.check = check;
    this.keys = keys;
    this.then = then;
    this.executed = JwtValidation.TYPE + "," + then.executed();
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public String executed() {
    return executed;
  }

  public TokenCheck check() {
    return check;
  }

  public KeySource keys() {
    return keys;
  }

  /** The routing action (forward, fixed-response or redirect) of a request whose token is valid. */
  public RouteAction then() {
    return then;
  }
}
