package io.fulcrum.oidc;

import io.fulcrum.jwt.StrictJson;
import io.fulcrum.model.AuthenticateOidc;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemTrustOptions;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.concurrent.TimeUnit;

/**
 * How authenticate-oidc actions talk to identity providers: redeems an authorization code at the
 * token endpoint ({@code client_secret_basic}) and reads the user's claims at the user info
 * endpoint, over HTTPS with the host name checked, trusting the JDK's CAs or only a configured
 * bundle, each call given {@value #TIMEOUT_MILLIS} ms as on ALB. Every failure is an
 * {@link IdpFailure} with ALB's reason. Shared by every event loop (a Vert.x client runs each
 * request on its caller's context); owned and closed by the registry.
 */
public final class IdpClient {

  public static final int TIMEOUT_MILLIS = 5_000;
  /** The most the user's claims and the access token may weigh together (ALB's 11K). */
  public static final int MAX_CLAIMS_BYTES = 11 * 1024;
  static final int MAX_TOKEN_RESPONSE_BYTES = 64 * 1024;
  /** Leeway for the ID token's {@code exp}, as for jwt-validation. */
  static final long LEEWAY_SECONDS = 60;

  private final HttpClient client;

  /**
   * What the token endpoint gave: the access token, the subject of the ID token (on a refresh
   * without one, the session's), the refresh token (empty: none) and the access token's lifetime.
   */
  public record Tokens(String accessToken, String subject, String refreshToken, long expiresInSeconds) {

    /** When the access token expires, or 0 when the IdP did not say. */
    public long accessExpiresAt(long nowMillis) {
      return expiresInSeconds > 0 ? nowMillis + expiresInSeconds * 1000 : 0;
    }
  }

  /** @param caCertificates a PEM bundle of the CAs the IdP's certificates must chain to, or null for the JDK's */
  public IdpClient(Vertx vertx, String caCertificates) {
    HttpClientOptions options = new HttpClientOptions().setVerifyHost(true).setConnectTimeout(TIMEOUT_MILLIS)
        .setIdleTimeout(TIMEOUT_MILLIS).setIdleTimeoutUnit(TimeUnit.MILLISECONDS);
    if (caCertificates != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(caCertificates));
    }
    this.client = vertx.createHttpClient(options);
  }

  public Future<Void> close() {
    return client.close();
  }

  /**
   * Redeems {@code code} at the token endpoint and checks the ID token that comes back: issued by
   * the action's issuer to its client, unexpired, with a subject. Its signature is not checked: it
   * came straight from the token endpoint over verified TLS (OpenID Connect Core §3.1.3.7).
   */
  public Future<Tokens> redeem(AuthenticateOidc a, String code, String redirectUri, long nowMillis) {
    String form = "grant_type=authorization_code&code=" + encode(code) + "&redirect_uri=" + encode(redirectUri);
    return token(a, form, null, nowMillis);
  }

  /**
   * Gets a new access token with a session's refresh token; an ID token that comes with it must be
   * for the same subject. The refresh token stays the same unless the IdP gives a new one.
   */
  public Future<Tokens> refresh(AuthenticateOidc a, String refreshToken, String subject, long nowMillis) {
    String form = "grant_type=refresh_token&refresh_token=" + encode(refreshToken);
    return token(a, form, subject, nowMillis).map(t -> t.refreshToken().isEmpty()
        ? new Tokens(t.accessToken(), t.subject(), refreshToken, t.expiresInSeconds()) : t);
  }

  /** @param subject the session's subject on a refresh (null: the answer must hold an ID token) */
  private Future<Tokens> token(AuthenticateOidc a, String form, String subject, long nowMillis) {
    String basic = Base64.getEncoder().encodeToString((encode(a.clientId()) + ':' + encode(a.clientSecret()))
        .getBytes(StandardCharsets.UTF_8));
    RequestOptions request = options(HttpMethod.POST, a.tokenEndpoint())
        .putHeader(HttpHeaders.CONTENT_TYPE, "application/x-www-form-urlencoded")
        .putHeader(HttpHeaders.AUTHORIZATION, "Basic " + basic);
    return call(request, Buffer.buffer(form), MAX_TOKEN_RESPONSE_BYTES, "AuthTokenEpRequestTimeout",
        "the token endpoint")
        .compose(r -> {
          if (r.status / 100 != 2) {
            String error = errorCode(r.body);
            return Future.failedFuture(new IdpFailure("invalid_grant".equals(error) ? "AuthInvalidGrantError"
                : "AuthTokenEpRequestFailed", IdpFailure.IDP_ERROR, "the token endpoint answered " + r.status
                + (error == null ? "" : " " + error)));
          }
          if (r.body == null) {
            return Future.failedFuture(new IdpFailure("AuthInvalidTokenResponse", IdpFailure.INTERNAL,
                "the token endpoint's answer is larger than " + MAX_TOKEN_RESPONSE_BYTES + " bytes"));
          }
          return Future.succeededFuture(tokens(a, r.body.getBytes(), subject, nowMillis));
        });
  }

  /**
   * The user's claims (the user info endpoint's JSON object, as it came), for the subject of the
   * ID token; together with the access token at most {@value #MAX_CLAIMS_BYTES} bytes.
   */
  public Future<String> userInfo(AuthenticateOidc a, Tokens tokens) {
    RequestOptions request = options(HttpMethod.GET, a.userInfoEndpoint())
        .putHeader(HttpHeaders.AUTHORIZATION, "Bearer " + tokens.accessToken());
    int room = MAX_CLAIMS_BYTES - tokens.accessToken().length();
    return call(request, null, Math.max(room, 0), "AuthUserinfoEpRequestTimeout", "the user info endpoint")
        .compose(r -> {
          if (r.status / 100 != 2) {
            return Future.failedFuture(new IdpFailure("AuthUserinfoEpRequestFailed", IdpFailure.IDP_ERROR,
                "the user info endpoint answered " + r.status));
          }
          if (r.body == null) {
            return Future.failedFuture(new IdpFailure("AuthUserinfoResponseSizeExceeded", IdpFailure.INTERNAL,
                "the user's claims and access token are larger than " + MAX_CLAIMS_BYTES + " bytes"));
          }
          JsonObject claims;
          try {
            claims = StrictJson.object(r.body.getBytes());
          } catch (IllegalArgumentException e) {
            return Future.failedFuture(new IdpFailure("AuthInvalidUserinfoResponse", IdpFailure.INTERNAL,
                "the user info endpoint's answer is " + e.getMessage()));
          }
          if (!tokens.subject().equals(claims.getValue("sub"))) {
            // OpenID Connect Core §5.3.4: the claims are not the ID token's user's.
            return Future.failedFuture(new IdpFailure("AuthInvalidUserinfoResponse", IdpFailure.INTERNAL,
                "the user info's sub is not the ID token's"));
          }
          return Future.succeededFuture(r.body.toString(StandardCharsets.UTF_8));
        });
  }

  private static RequestOptions options(HttpMethod method, String url) {
    return new RequestOptions().setMethod(method).setAbsoluteURI(url).putHeader(HttpHeaders.ACCEPT, "application/json")
        .setConnectTimeout(TIMEOUT_MILLIS).setIdleTimeout(TIMEOUT_MILLIS);
  }

  /** A status and a body of at most {@code max} bytes (null when it was larger). */
  private record Reply(int status, Buffer body) {
  }

  private Future<Reply> call(RequestOptions options, Buffer body, int max, String timeoutReason, String what) {
    Future<HttpClientResponse> sent = client.request(options)
        .compose(req -> body == null ? req.send() : req.send(body));
    return sent.transform(ar -> {
      if (ar.failed()) {
        return Future.failedFuture(new IdpFailure(timeoutReason, IdpFailure.INTERNAL, what + " could not be"
            + " reached or did not answer within " + TIMEOUT_MILLIS + " ms: " + ar.cause().getMessage()));
      }
      HttpClientResponse response = ar.result();
      Promise<Reply> reply = Promise.promise();
      Buffer read = Buffer.buffer();
      response.handler(chunk -> {
        if (read.length() + chunk.length() > max) {
          reply.tryComplete(new Reply(response.statusCode(), null));
          response.request().reset();
        } else {
          read.appendBuffer(chunk);
        }
      });
      response.exceptionHandler(e -> reply.tryFail(new IdpFailure(timeoutReason, IdpFailure.INTERNAL,
          what + "'s answer broke off: " + e.getMessage())));
      response.endHandler(v -> reply.tryComplete(new Reply(response.statusCode(), read)));
      return reply.future();
    });
  }

  /** OAuth's {@code error} of a refused token request, or null. */
  private static String errorCode(Buffer body) {
    if (body == null) {
      return null;
    }
    try {
      return StrictJson.object(body.getBytes()).getValue("error") instanceof String s ? s : null;
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  static Tokens tokens(AuthenticateOidc a, byte[] body, String subject, long nowMillis) {
    JsonObject json;
    try {
      json = StrictJson.object(body);
    } catch (IllegalArgumentException e) {
      throw new IdpFailure("AuthInvalidTokenResponse", IdpFailure.INTERNAL, "the token endpoint's answer is "
          + e.getMessage());
    }
    Object access = json.getValue("access_token");
    Object id = json.getValue("id_token");
    Object type = json.getValue("token_type");
    Object refresh = json.getValue("refresh_token");
    Object expiresIn = json.getValue("expires_in");
    if (!(access instanceof String accessToken) || accessToken.isEmpty() || !(id == null ? subject != null
        : id instanceof String) || (type != null && !"bearer".equalsIgnoreCase(String.valueOf(type)))
        || refresh != null && !(refresh instanceof String) || expiresIn != null && !(expiresIn instanceof Number)) {
      throw new IdpFailure("AuthInvalidTokenResponse", IdpFailure.INTERNAL,
          "the token endpoint's answer lacks a bearer access_token or an id_token, or has a malformed refresh_token"
          + " or expires_in");
    }
    String sub = id == null ? subject : idTokenSubject(a, (String) id, nowMillis);
    if (subject != null && !subject.equals(sub)) {
      throw new IdpFailure("AuthInvalidIdToken", IdpFailure.UNAUTHORIZED, "the refreshed ID token is another user's");
    }
    return new Tokens(accessToken, sub, refresh == null ? "" : (String) refresh,
        expiresIn == null ? 0 : Math.max(0, ((Number) expiresIn).longValue()));
  }

  /** The subject of an ID token issued by the action's issuer to its client and unexpired. */
  static String idTokenSubject(AuthenticateOidc a, String idToken, long nowMillis) {
    String[] parts = idToken.split("\\.", -1);
    JsonObject claims;
    try {
      if (parts.length != 3) {
        throw new IllegalArgumentException("not a compact JWS");
      }
      claims = StrictJson.object(Base64.getUrlDecoder().decode(strip(parts[1])));
    } catch (IllegalArgumentException e) {
      throw new IdpFailure("AuthInvalidIdToken", IdpFailure.UNAUTHORIZED, "the ID token is " + e.getMessage());
    }
    Object aud = claims.getValue("aud");
    boolean audience = aud instanceof String s ? s.equals(a.clientId())
        : aud instanceof JsonArray list && list.getList().contains(a.clientId());
    String problem = !a.issuer().equals(claims.getValue("iss")) ? "its iss is not " + a.issuer()
        : !audience ? "its aud does not hold client " + a.clientId()
        : !(claims.getValue("exp") instanceof Number exp) ? "it has no exp"
        : exp.longValue() + LEEWAY_SECONDS <= nowMillis / 1000 ? "it expired"
        : !(claims.getValue("sub") instanceof String sub) || sub.isEmpty() ? "it has no sub" : null;
    if (problem != null) {
      throw new IdpFailure("AuthInvalidIdToken", IdpFailure.UNAUTHORIZED, "the ID token was refused: " + problem);
    }
    return claims.getString("sub");
  }

  private static String strip(String part) {
    int end = part.length();
    while (end > 0 && part.charAt(end - 1) == '=') {
      end--;
    }
    return part.substring(0, end);
  }

  static String encode(String s) {
    return URLEncoder.encode(s, StandardCharsets.UTF_8);
  }

}
