package io.fulcrum.listener;

import io.fulcrum.forward.ElbError;
import io.fulcrum.forward.ElbResponses;
import io.fulcrum.forward.ListenerHeaders;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.observe.LoadBalancerMeters;
import io.fulcrum.oidc.ClaimsSigner;
import io.fulcrum.oidc.IdpFailure;
import io.fulcrum.oidc.LoginState;
import io.fulcrum.oidc.Session;
import io.fulcrum.routing.OidcCallbackRoute;
import io.fulcrum.routing.OidcRoute;
import io.fulcrum.sticky.CookieCodec;
import io.fulcrum.sticky.KeyRing;
import io.fulcrum.sticky.RequestCookies;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.net.HostAndPort;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ALB's authenticate-oidc action on one event loop: finds a request's session in its sealed,
 * sharded cookie and passes the user's claims to the target in {@code x-amzn-oidc-*} headers; sends
 * a request without one to the IdP (or denies, or allows it, as the action says); and completes a
 * sign-in when the IdP sends the user back to {@value AuthenticateOidc#CALLBACK_PATH}: redeems the
 * code, reads the user's claims, sets the session cookie and sends the user on to where they were
 * going.
 *
 * <p>Sessions ({@link LoopSessions}) and login states are sealed (AES-GCM) with the stickiness key
 * ring, so every process sharing the key file reads them and a rotation keeps live sessions. Called
 * on the owning event loop only.
 */
final class Authenticator {

  /** The headers the action sets (names with their hash kept); a client's own are removed first. */
  static final CharSequence ACCESS_TOKEN = HttpHeaders.createOptimized("x-amzn-oidc-accesstoken");
  static final CharSequence IDENTITY = HttpHeaders.createOptimized("x-amzn-oidc-identity");
  static final CharSequence DATA = HttpHeaders.createOptimized("x-amzn-oidc-data");
  /** How long a signed {@code x-amzn-oidc-data} is valid; one is signed again with half of it left. */
  static final long DATA_LIFETIME_MILLIS = 120_000;

  private static final Logger LOG = LoggerFactory.getLogger(Authenticator.class);
  private static final byte[] STATE_AAD = "fulcrum authenticate-oidc state".getBytes(StandardCharsets.US_ASCII);
  private static final CharSequence SET_COOKIE = HttpHeaders.createOptimized("Set-Cookie");
  private static final CharSequence LOCATION = HttpHeaders.createOptimized("Location");
  private static final CharSequence CONTENT_TYPE = HttpHeaders.createOptimized("Content-Type");
  private static final CharSequence CACHE_CONTROL = HttpHeaders.createOptimized("Cache-Control");
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

  private final Clock clock;
  private final SecureRandom random;
  private final CookieCodec codec;
  private final LoopSessions sessions;
  private ClaimsSigner signer;
  /** Refreshes under way, by the sealed session they renew. */
  private final Map<String, Future<Refreshed>> refreshing = new HashMap<>();



  /** What a request through an authenticate-oidc action gets. */
  enum Verdict {
    /** A session: the claims are in the request's headers; it goes on to the routing action. */
    SIGNED_IN,
    /** No session, and the action allows that: it goes on without claims. */
    ALLOWED,
    /** No session, and the action denies: 401. */
    DENIED,
    /** Answered: sent to the IdP, or refused for want of keys or a host. */
    ANSWERED
  }

  Authenticator(Clock clock, SecureRandom random) {
    this.clock = clock;
    this.random = random;
    this.codec = new CookieCodec(null, random);
    this.sessions = new LoopSessions(codec);
  }

  /** The key ring (at start and after each rotation). */
  void keys(KeyRing ring) {
    codec.keys(ring);
    signer = ClaimsSigner.of(ring);
    sessions.clear();
  }

  /**
   * Looks for the request's session: with one, puts the user's claims in its headers (reading them
   * again first when the access token expired and a refresh token can renew it: the new session's
   * cookies then go out with the response). Without one, does what the action says: sends the user
   * to the IdP (answered here), denies, or allows. Completes at once but for a refresh.
   */
  Future<Verdict> check(HttpServerRequest req, OidcRoute route, AccessEntry entry, ListenerHeaders listenerHeaders,
      LoadBalancerMeters meters) {
    MultiMap headers = req.headers();
    headers.remove(ACCESS_TOKEN).remove(IDENTITY).remove(DATA);
    long now = clock.millis();
    AuthenticateOidc a = route.config();
    String sealed = sessions.read(RequestCookies.of(headers), route);
    LoopSessions.Opened opened = sealed == null ? null : sessions.open(sealed);
    if (opened != null && opened.session.validFor(a.issuer(), a.clientId(), now)) {
      if (!opened.session.refreshDue(now)) {
        claims(headers, route, opened, now);
        return SIGNED_IN;
      }
      return refresh(route, sealed, opened.session, RequestCookies.of(headers), meters).transform(ar -> {
        if (req.response().ended() || req.response().closed()) {
          return ANSWERED; // the client left meanwhile
        }
        if (ar.succeeded()) {
          claims(headers, route, ar.result().opened(), clock.millis());
          ar.result().setCookies().forEach(c -> req.response().headers().add(SET_COOKIE, c));
          return SIGNED_IN;
        }
        if (entry != null) {
          entry.errorReason = failure(ar.cause()).reason();
        }
        return unauthenticated(req, route, entry, listenerHeaders, meters, clock.millis());
      });
    }
    if (sealed != null && opened == null && entry != null) {
      entry.errorReason = "AuthInvalidCookie"; // one we did not seal, or with keys rotated out: no session
    }
    return unauthenticated(req, route, entry, listenerHeaders, meters, now);
  }

  private static final Future<Verdict> SIGNED_IN = Future.succeededFuture(Verdict.SIGNED_IN);
  private static final Future<Verdict> ALLOWED = Future.succeededFuture(Verdict.ALLOWED);
  private static final Future<Verdict> DENIED = Future.succeededFuture(Verdict.DENIED);
  private static final Future<Verdict> ANSWERED = Future.succeededFuture(Verdict.ANSWERED);

  /** What the action does with a request without a session. */
  private Future<Verdict> unauthenticated(HttpServerRequest req, OidcRoute route, AccessEntry entry,
      ListenerHeaders listenerHeaders, LoadBalancerMeters meters, long now) {
    return switch (route.config().onUnauthenticated()) {
      case ALLOW -> ALLOWED;
      case DENY -> DENIED;
      case AUTHENTICATE -> {
        signIn(req, route, entry, listenerHeaders, meters, now);
        yield ANSWERED;
      }
    };
  }

  /** A session renewed, and the cookies that carry it. */
  private record Refreshed(LoopSessions.Opened opened, List<String> setCookies) {
  }

  /**
   * Renews a session whose access token expired: a new one from the token endpoint, the claims read
   * again. Requests of one session on this loop wait for one refresh; the old cookie opens the
   * renewed session from then on (its requests in flight, the browser's until it takes the new one).
   */
  private Future<Refreshed> refresh(OidcRoute route, String sealed, Session s, RequestCookies sent,
      LoadBalancerMeters meters) {
    Future<Refreshed> running = refreshing.get(sealed);
    if (running != null) {
      return running;
    }
    AuthenticateOidc a = route.config();
    long asked = System.nanoTime();
    Future<Refreshed> f = route.idp().refresh(a, s.refreshToken(), s.subject(), clock.millis())
        .compose(tokens -> route.idp().userInfo(a, tokens).map(claims -> s.refreshed(tokens.accessToken(), claims,
            tokens.refreshToken(), tokens.accessExpiresAt(clock.millis()))))
        .andThen(ar -> meters.authLatency(System.nanoTime() - asked))
        .compose(renewed -> {
          String next = sessions.seal(renewed);
          if (next == null) {
            return Future.failedFuture(new IdpFailure("AuthUserinfoResponseSizeExceeded", IdpFailure.INTERNAL,
                "the renewed session does not fit the session cookie's shards"));
          }
          LoopSessions.Opened opened = sessions.keep(renewed, next, sealed);
          meters.authRefreshed();
          return Future.succeededFuture(new Refreshed(opened,
              LoopSessions.setCookies(next, renewed, a.sessionCookieName(), sent, false)));
        });
    refreshing.put(sealed, f);
    f.onComplete(ar -> refreshing.remove(sealed));
    return f;
  }

  /**
   * For the direct paths: whether the request has a live session for the action (its access token
   * not due for a refresh), in which case its headers now carry the user's claims (and no
   * {@code x-amzn-oidc-*} of the client's own). False leaves the request to {@link #check} on the
   * usual path.
   */
  boolean signedIn(MultiMap headers, OidcRoute route) {
    AuthenticateOidc a = route.config();
    String sealed = sessions.read(RequestCookies.of(headers), route);
    if (sealed == null) {
      return false;
    }
    long now = clock.millis();
    LoopSessions.Opened opened = sessions.open(sealed);
    if (opened == null || !opened.session.validFor(a.issuer(), a.clientId(), now) || opened.session.refreshDue(now)) {
      return false;
    }
    headers.remove(ACCESS_TOKEN).remove(IDENTITY).remove(DATA);
    claims(headers, route, opened, now);
    return true;
  }

  /** Puts a live session's claims in the request's headers, signed again when the last signature is half spent. */
  private void claims(MultiMap headers, OidcRoute route, LoopSessions.Opened opened, long now) {
    AuthenticateOidc a = route.config();
    Session s = opened.session;
    if (!route.signer().equals(opened.signedFor) || now > opened.dataExpiresAt - DATA_LIFETIME_MILLIS / 2) {
      opened.dataExpiresAt = Math.min(now + DATA_LIFETIME_MILLIS, s.expiresAtMillis());
      opened.data = signer.sign(route.signer(), a.issuer(), a.clientId(), s.claims(), opened.dataExpiresAt / 1000);
      opened.signedFor = route.signer();
    }
    headers.set(ACCESS_TOKEN, s.accessToken()).set(IDENTITY, s.subject()).set(DATA, opened.data);
  }



  /** Sends the user to the IdP's authorization endpoint, with a state only this browser can redeem. */
  private void signIn(HttpServerRequest req, OidcRoute route, AccessEntry entry, ListenerHeaders listenerHeaders,
      LoadBalancerMeters meters, long now) {
    AuthenticateOidc a = route.config();
    String host = host(req);
    if (host == null) {
      refuse(req, entry, listenerHeaders, meters, new IdpFailure("AuthMissingHostHeader", IdpFailure.UNAUTHORIZED,
          "the request has no Host to send the user back to"));
      return;
    }
    byte[] nonceBytes = new byte[16];
    random.nextBytes(nonceBytes);
    String nonce = B64.encodeToString(nonceBytes);
    byte[] state = new LoginState(now, route.id(), a.clientId(), nonce, "https://" + host + req.uri()).encode();
    String sealedState = codec.seal(STATE_AAD, state, state.length);
    if (sealedState == null) {
      refuse(req, entry, listenerHeaders, meters, new IdpFailure("AuthUnhandledException", IdpFailure.INTERNAL,
          "the key ring has not reached this listener yet"));
      return;
    }
    StringBuilder location = new StringBuilder(a.authorizationEndpoint())
        .append(a.authorizationEndpoint().indexOf('?') < 0 ? '?' : '&')
        .append("client_id=").append(encode(a.clientId()))
        .append("&redirect_uri=").append(encode(callbackUrl(host)))
        .append("&response_type=code&scope=").append(encode(a.scope()))
        .append("&state=").append(sealedState);
    a.extraParams().forEach((name, value) -> location.append('&').append(encode(name)).append('=')
        .append(encode(value)));
    List<String> cookies = List.of(LoginState.NONCE_COOKIE + "=" + nonce + "; Max-Age="
        + LoginState.LIFETIME_MILLIS / 1000 + "; Path=/; Secure; HttpOnly");
    found(req, location.toString(), cookies, listenerHeaders);
    meters.elbStatus(302);
    if (entry != null) {
      entry.refusedByCheck(OidcRoute.EXECUTED);
      entry.answered(302);
    }
  }

  /**
   * The IdP sent the user back: checks the state against the browser's nonce, redeems the code,
   * reads the user's claims, and sends the user on with a session cookie.
   */
  void callback(HttpServerRequest req, OidcCallbackRoute callback, AccessEntry entry,
      ListenerHeaders listenerHeaders, LoadBalancerMeters meters) {
    long now = clock.millis();
    OidcRoute route;
    LoginState state;
    String code;
    String host = host(req);
    RequestCookies cookies = RequestCookies.of(req.headers());
    try {
      if (req.getParam("error") != null) {
        throw new IdpFailure(null, IdpFailure.IDP_ERROR, "the IdP returned error " + req.getParam("error")
            + (req.getParam("error_description") == null ? "" : ": " + req.getParam("error_description")));
      }
      String sealedState = req.getParam("state");
      if (sealedState == null) {
        throw new IdpFailure("AuthMissingStateParam", IdpFailure.UNAUTHORIZED, "no state parameter");
      }
      byte[] plain = codec.open(STATE_AAD, sealedState);
      state = plain == null ? null : LoginState.decode(plain);
      route = state == null ? null : callback.actions().get(state.routeId());
      if (state == null || state.expired(now) || route == null
          || !route.config().clientId().equals(state.clientId())) {
        throw new IdpFailure("AuthInvalidStateParam", IdpFailure.UNAUTHORIZED, state == null ? "not a state we sealed"
            : state.expired(now) ? "the sign-in started too long ago" : "its action is no longer on the listener");
      }
      String nonce = cookies.value(LoginState.NONCE_COOKIE);
      if (nonce == null) {
        throw new IdpFailure("AuthMissingAWSALBAuthNonce", IdpFailure.UNAUTHORIZED, "no nonce cookie");
      }
      if (!MessageDigest.isEqual(nonce.getBytes(StandardCharsets.US_ASCII),
          state.nonce().getBytes(StandardCharsets.US_ASCII))) {
        throw new IdpFailure("AuthInvalidAWSALBAuthNonce", IdpFailure.UNAUTHORIZED,
            "the nonce cookie is not the state's (another sign-in started in this browser since)");
      }
      code = req.getParam("code");
      if (code == null) {
        throw new IdpFailure("AuthMissingCodeParam", IdpFailure.UNAUTHORIZED, "no code parameter");
      }
      if (host == null) {
        throw new IdpFailure("AuthMissingHostHeader", IdpFailure.UNAUTHORIZED, "no Host header");
      }
    } catch (IdpFailure f) {
      meters.authenticated(f.status(), false);
      refuse(req, entry, listenerHeaders, meters, f);
      return;
    }
    if (entry != null) {
      entry.priority = route.priority();
    }
    AuthenticateOidc a = route.config();
    long asked = System.nanoTime();
    route.idp().redeem(a, code, callbackUrl(host), now)
        .compose(tokens -> route.idp().userInfo(a, tokens).map(claims -> new Session(a.issuer(), a.clientId(),
            tokens.subject(), tokens.accessToken(), claims, tokens.refreshToken(),
            tokens.accessExpiresAt(clock.millis()), clock.millis() + a.sessionTimeoutSeconds() * 1000)))
        .andThen(ar -> meters.authLatency(System.nanoTime() - asked))
        .onComplete(ar -> {
          if (req.response().ended() || req.response().closed()) {
            return; // the client left meanwhile
          }
          IdpFailure failure = ar.failed() ? failure(ar.cause()) : null;
          String sealedSession = failure == null ? sessions.seal(ar.result()) : null;
          List<String> setCookies = sealedSession == null ? null
              : LoopSessions.setCookies(sealedSession, ar.result(), a.sessionCookieName(), cookies, true);
          if (failure == null && setCookies == null) {
            failure = new IdpFailure("AuthUserinfoResponseSizeExceeded", IdpFailure.INTERNAL,
                "the sealed session does not fit the session cookie's shards");
          }
          if (failure != null) {
            meters.authenticated(failure.status(), "AuthUserinfoResponseSizeExceeded".equals(failure.reason()));
            refuse(req, entry, listenerHeaders, meters, failure);
            return;
          }
          meters.authenticated(302, false);
          found(req, state.url(), setCookies, listenerHeaders);
          meters.elbStatus(302);
          if (entry != null) {
            entry.answered(302);
          }
        });
  }

  private static IdpFailure failure(Throwable cause) {
    if (cause instanceof IdpFailure f) {
      return f;
    }
    LOG.warn("authenticate-oidc sign-in failed unexpectedly", cause);
    return new IdpFailure("AuthUnhandledException", IdpFailure.INTERNAL, String.valueOf(cause));
  }



  /** A 302 to {@code location} with these cookies. */
  private static void found(HttpServerRequest req, String location, List<String> cookies,
      ListenerHeaders listenerHeaders) {
    HttpServerResponse response = req.response();
    response.setStatusCode(302).setStatusMessage("Found");
    MultiMap h = listenerHeaders.server(response.headers()).set(LOCATION, location).set(CONTENT_TYPE, "text/html")
        .set(CACHE_CONTROL, "no-store");
    cookies.forEach(c -> h.add(SET_COOKIE, c));
    listenerHeaders.beforeHead(h);
    Buffer page = Buffer.buffer(ElbResponses.page("302 Found"));
    if (req.method() == HttpMethod.HEAD) {
      response.putHeader(HttpHeaders.CONTENT_LENGTH, Integer.toString(page.length())).end();
    } else {
      response.end(page);
    }
  }

  private static void refuse(HttpServerRequest req, AccessEntry entry, ListenerHeaders listenerHeaders,
      LoadBalancerMeters meters, IdpFailure f) {
    LOG.debug("authenticate-oidc: {} {} answered {}: {}", req.method(), req.uri(), f.status(), f.getMessage());
    ElbError error = switch (f.status()) {
      case IdpFailure.UNAUTHORIZED -> ElbError.AUTH_REFUSED;
      case IdpFailure.IDP_ERROR -> ElbError.AUTH_IDP_ERROR;
      default -> ElbError.AUTH_FAILED;
    };
    meters.elbStatus(error.status());
    ElbResponses.send(req, error, false, listenerHeaders);
    if (entry != null) {
      entry.refusedByCheck(OidcRoute.EXECUTED);
      entry.errorReason = f.reason();
      entry.answered(error.status());
    }
  }

  /** The host (and port, as the client gave it) that the user reached, or null. */
  private static String host(HttpServerRequest req) {
    HostAndPort authority = req.authority();
    if (authority == null || authority.host() == null || authority.host().isEmpty()) {
      return null;
    }
    String host = authority.host().indexOf(':') >= 0 && authority.host().charAt(0) != '['
        ? "[" + authority.host() + "]" : authority.host(); // an IPv6 literal, in a URL's brackets
    return authority.port() > 0 ? host + ":" + authority.port() : host;
  }

  private static String callbackUrl(String host) {
    return "https://" + host + AuthenticateOidc.CALLBACK_PATH;
  }

  private static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
  }
}
