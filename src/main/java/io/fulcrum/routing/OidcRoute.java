package io.fulcrum.routing;

import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.oidc.IdpClient;

/**
 * A rule's authenticate-oidc action and the routing action a request with a session takes
 * ({@code then}). Immutable; the IdP client is shared.
 */
public final class OidcRoute implements RouteAction {

  /** ALB's {@code actions_executed} word for every authenticate action. */
  public static final String EXECUTED = "authenticate";
  /** Session cookie shards read at most (four carry the largest session ALB allows). */
  public static final int MAX_SHARDS = 8;

  private final int priority;
  private final AuthenticateOidc config;
  private final String id;
  private final String signer;
  private final IdpClient idp;
  private final RouteAction then;
  private final String executed;
  private final String[] shardNames = new String[MAX_SHARDS];

  /**
   * @param id     the rule's ARN, or the listener's for its default actions: what a login's state names
   * @param signer the load balancer's ARN, the {@code signer} of the claims passed to targets
   */
  OidcRoute(int priority, AuthenticateOidc config, String id, String signer, IdpClient idp, RouteAction then) {
    this.priority = priority;
    this.config = config;
    this.id = id;
    this.signer = signer;
    this.idp = idp;
    this.then = then;
    this.executed = EXECUTED + "," + then.executed();
    for (int i = 0; i < MAX_SHARDS; i++) {
      shardNames[i] = config.sessionCookieName() + "-" + i;
    }
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public String executed() {
    return executed;
  }

  public AuthenticateOidc config() {
    return config;
  }

  /** The rule's ARN, or the listener's for its default actions. */
  public String id() {
    return id;
  }

  /** The load balancer's ARN. */
  public String signer() {
    return signer;
  }

  public IdpClient idp() {
    return idp;
  }

  /** The routing action (forward, fixed-response or redirect) of a request with a session. */
  public RouteAction then() {
    return then;
  }

  /** The name of the session cookie's shard {@code i} ({@code <name>-<i>}, below {@link #MAX_SHARDS}). */
  public String shardName(int i) {
    return shardNames[i];
  }
}
