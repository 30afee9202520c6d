package io.fulcrum.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * ALB's {@code authenticate-oidc} action (ELBv2 {@code AuthenticateOidcActionConfig}): a request
 * passes on to the rule's routing action with a session the load balancer made after the user
 * signed in at an OpenID Connect identity provider (authorization code flow, callback at
 * {@value #CALLBACK_PATH}); the target receives the user's claims in {@code x-amzn-oidc-*} headers.
 * It comes before the routing action, on HTTPS listeners only.
 *
 * @param issuer                 the IdP's issuer identifier ({@code iss} of its ID tokens)
 * @param authorizationEndpoint  where users are sent to sign in
 * @param tokenEndpoint          where the load balancer redeems the authorization code
 * @param userInfoEndpoint       where the load balancer reads the user's claims
 * @param clientId               the OAuth 2.0 client id
 * @param clientSecret           the OAuth 2.0 client secret (never described back)
 * @param sessionCookieName      the session cookie's name; its shards are {@code <name>-0}, {@code <name>-1}, ...
 * @param scope                  the scopes asked for, space-separated
 * @param sessionTimeoutSeconds  how long a session lasts
 * @param extraParams            further query parameters of the authorization request, in order
 * @param onUnauthenticated      what a request without a session gets
 */
public record AuthenticateOidc(String issuer, String authorizationEndpoint, String tokenEndpoint,
    String userInfoEndpoint, String clientId, String clientSecret, String sessionCookieName, String scope,
    long sessionTimeoutSeconds, Map<String, String> extraParams, OnUnauthenticated onUnauthenticated)
    implements Action {

  public static final String TYPE = "authenticate-oidc";
  /** The path at which the IdP sends users back with their authorization code. */
  public static final String CALLBACK_PATH = "/oauth2/idpresponse";
  public static final String DEFAULT_COOKIE_NAME = "AWSELBAuthSessionCookie";
  public static final String DEFAULT_SCOPE = "openid";
  public static final long DEFAULT_SESSION_TIMEOUT = 604_800;
  public static final long MAX_SESSION_TIMEOUT = 604_800;
  public static final int MAX_EXTRA_PARAMS = 10;
  /** Fulcrum's bound on URLs, ids, secrets and parameters (AWS states none). */
  public static final int MAX_LENGTH = 2048;
  /** Parameters of the authorization request the load balancer sets itself. */
  public static final List<String> RESERVED_PARAMS =
      List.of("response_type", "client_id", "redirect_uri", "scope", "state");
  private static final Pattern COOKIE_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}");

  public AuthenticateOidc {
    extraParams = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extraParams));
  }

  /** ELBv2 {@code AuthenticateOidcActionConditionalBehaviorEnum}. */
  public enum OnUnauthenticated implements WireEnum {
    /** 401. */
    DENY("deny"),
    /** Forwarded without the user's claims. */
    ALLOW("allow"),
    /** Redirected to the IdP's authorization endpoint (the default). */
    AUTHENTICATE("authenticate");

    private final String wire;

    OnUnauthenticated(String wire) {
      this.wire = wire;
    }

    @Override
    public String wire() {
      return wire;
    }
  }

  @Override
  public String type() {
    return TYPE;
  }

  /** Every field but the client secret, which no log line or message should carry. */
  @Override
  public String toString() {
    return "AuthenticateOidc[issuer=" + issuer + ", authorizationEndpoint=" + authorizationEndpoint
        + ", tokenEndpoint=" + tokenEndpoint + ", userInfoEndpoint=" + userInfoEndpoint + ", clientId=" + clientId
        + ", clientSecret=" + (clientSecret == null ? null : "(hidden)") + ", sessionCookieName=" + sessionCookieName
        + ", scope=" + scope + ", sessionTimeoutSeconds=" + sessionTimeoutSeconds + ", extraParams=" + extraParams
        + ", onUnauthenticated=" + onUnauthenticated + "]";
  }

  /** The same action with another client secret (ModifyRule's {@code UseExistingClientSecret}). */
  public AuthenticateOidc withClientSecret(String secret) {
    return new AuthenticateOidc(issuer, authorizationEndpoint, tokenEndpoint, userInfoEndpoint, clientId, secret,
        sessionCookieName, scope, sessionTimeoutSeconds, extraParams, onUnauthenticated);
  }

  /**
   * Checks and builds the action. The issuer and the three endpoints are full {@code https://}
   * URLs (at {@code issuer}, {@code authorization-endpoint}, {@code token-endpoint},
   * {@code user-info-endpoint}); a client id and secret are required (at {@code client-id},
   * {@code client-secret}); the cookie name is an HTTP token (at {@code session-cookie-name}); the
   * session timeout is 1-{@value #MAX_SESSION_TIMEOUT} seconds (at {@code session-timeout}); at most
   * {@value #MAX_EXTRA_PARAMS} extra parameters, none of {@link #RESERVED_PARAMS} (at
   * {@code authentication-request-extra-params}). Null optional values take ALB's defaults.
   *
   * @return the action, or {@code null} when a problem was recorded
   */
  public static AuthenticateOidc of(String issuer, String authorizationEndpoint, String tokenEndpoint,
      String userInfoEndpoint, String clientId, String clientSecret, String sessionCookieName, String scope,
      Long sessionTimeoutSeconds, Map<String, String> extraParams, OnUnauthenticated onUnauthenticated, Problems p) {
    int before = p.size();
    checkUrl(issuer, "issuer", p.at("issuer"));
    checkUrl(authorizationEndpoint, "authorization endpoint", p.at("authorization-endpoint"));
    checkUrl(tokenEndpoint, "token endpoint", p.at("token-endpoint"));
    checkUrl(userInfoEndpoint, "user info endpoint", p.at("user-info-endpoint"));
    checkText(clientId, "a client id", p.at("client-id"));
    checkText(clientSecret, "a client secret", p.at("client-secret"));
    String cookie = sessionCookieName == null ? DEFAULT_COOKIE_NAME : sessionCookieName;
    if (!COOKIE_NAME.matcher(cookie).matches()) {
      p.at("session-cookie-name").add("'" + cookie + "' is not a cookie name (1-64 letters, digits and"
          + " !#$%&'*+.^_`|~-)");
    }
    String scopes = scope == null ? DEFAULT_SCOPE : scope;
    if (scopes.isBlank() || scopes.length() > MAX_LENGTH || !scopes.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
      p.at("scope").add("a scope is 1-" + MAX_LENGTH + " printable ASCII characters (scopes separated by spaces)");
    }
    long timeout = sessionTimeoutSeconds == null ? DEFAULT_SESSION_TIMEOUT : sessionTimeoutSeconds;
    p.at("session-timeout").checkRange(timeout, 1, MAX_SESSION_TIMEOUT);
    Map<String, String> params = extraParams == null ? Map.of() : extraParams;
    Problems pp = p.at("authentication-request-extra-params");
    if (params.size() > MAX_EXTRA_PARAMS) {
      pp.add(params.size() + " parameters is above the maximum " + MAX_EXTRA_PARAMS);
    }
    params.forEach((name, value) -> {
      if (name == null || name.isEmpty() || name.length() > MAX_LENGTH) {
        pp.add("a parameter name is 1-" + MAX_LENGTH + " characters");
      } else if (RESERVED_PARAMS.contains(name)) {
        pp.at(name).add("'" + name + "' is set by the load balancer (reserved: " + String.join(", ", RESERVED_PARAMS)
            + ")");
      } else if (value == null || value.length() > MAX_LENGTH) {
        pp.at(name).add("a parameter value is 0-" + MAX_LENGTH + " characters");
      }
    });
    OnUnauthenticated on = onUnauthenticated == null ? OnUnauthenticated.AUTHENTICATE : onUnauthenticated;
    return p.size() > before ? null : new AuthenticateOidc(issuer, authorizationEndpoint, tokenEndpoint,
        userInfoEndpoint, clientId, clientSecret, cookie, scopes, timeout, params, on);
  }

  private static void checkText(String value, String what, Problems p) {
    if (value == null || value.isEmpty()) {
      p.add(what + " is required");
    } else if (value.length() > MAX_LENGTH) {
      p.add(value.length() + " characters is above the maximum " + MAX_LENGTH);
    }
  }

  private static void checkUrl(String url, String what, Problems p) {
    HttpsUrls.check(url, "the " + what + " is required (a full https:// URL)", MAX_LENGTH, p);
  }
}
