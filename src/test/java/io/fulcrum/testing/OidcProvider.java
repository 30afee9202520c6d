package io.fulcrum.testing;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * An OpenID Connect identity provider over HTTPS (its own self-signed certificate for 127.0.0.1)
 * that signs every user in at once: {@code /authorize} sends the browser back to the redirect URI
 * with a code and the state; {@code /token} redeems a code once, for the client id and secret it
 * was made with (HTTP Basic) and the same redirect URI, with an access token and an RS256-signed ID
 * token; {@code /userinfo} gives the claims of an access token it issued. {@link #misbehave} makes
 * one endpoint fail in a given way. Records what it was asked.
 */
public final class OidcProvider implements AutoCloseable {

  public static final String SUBJECT = "user-1";
  public static final String EMAIL = "alice@example.com";

  /** Ways to fail. */
  public enum Fault {
    /** None. */
    NONE,
    /** {@code /authorize} sends the browser back with {@code error=access_denied}. */
    LOGIN_DENIED,
    /** {@code /token} answers 400 {@code invalid_grant} whatever the code. */
    TOKEN_INVALID_GRANT,
    /** {@code /token} never answers. */
    TOKEN_SILENT,
    /** {@code /token} answers 200 with something that is not JSON. */
    TOKEN_NOT_JSON,
    /** {@code /token} gives an ID token for another client. */
    ID_TOKEN_OTHER_AUDIENCE,
    /** {@code /userinfo} answers 503. */
    USERINFO_DOWN,
    /** {@code /userinfo} gives another user's claims. */
    USERINFO_OTHER_SUBJECT,
    /** {@code /userinfo} gives claims of 6 KB (two session cookie shards). */
    USERINFO_LARGE,
    /** {@code /userinfo} gives claims of 12 KB. */
    USERINFO_HUGE
  }

  private final HttpServer server;
  private final TestCertificates.Pem certificate;
  private final String clientId;
  private final String clientSecret;
  private final LongSupplier clock;
  private final TestJwts.Key key = TestJwts.Key.rsa("idp-key");
  private final Map<String, String> codes = new ConcurrentHashMap<>();
  private final Map<String, String> accessTokens = new ConcurrentHashMap<>();
  private final AtomicInteger issued = new AtomicInteger();
  private final List<MultiMap> authorizations = new CopyOnWriteArrayList<>();
  private final List<String> tokenRequests = new CopyOnWriteArrayList<>();
  private final AtomicInteger userInfoRequests = new AtomicInteger();
  private volatile Fault fault = Fault.NONE;
  /** The access tokens' lifetime, seconds. */
  private volatile long accessLifetime = 3600;
  private volatile boolean refreshTokens;
  private final Map<String, String> refreshable = new ConcurrentHashMap<>();

  private OidcProvider(HttpServer server, TestCertificates.Pem certificate, String clientId, String clientSecret,
      LongSupplier clock) {
    this.server = server;
    this.certificate = certificate;
    this.clientId = clientId;
    this.clientSecret = clientSecret;
    this.clock = clock;
  }

  /**
   * Starts the provider for one client; its certificate is written into {@code dir}.
   *
   * @param clock the time its ID tokens are issued at (millis)
   */
  public static OidcProvider start(Vertx vertx, Path dir, String clientId, String clientSecret, LongSupplier clock) {
    TestCertificates.Pem cert = TestCertificates.pem(dir, "oidc", "127.0.0.1");
    HttpServer server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setPort(0).setHost("127.0.0.1")
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert.certificate().toString())
            .setKeyPath(cert.privateKey().toString())));
    OidcProvider p = new OidcProvider(server, cert, clientId, clientSecret, clock);
    server.requestHandler(p::handle);
    Await.result(server.listen());
    return p;
  }

  private void handle(HttpServerRequest req) {
    switch (req.path()) {
      case "/authorize" -> authorize(req);
      case "/token" -> req.body().onSuccess(b -> token(req, b.toString(StandardCharsets.UTF_8)));
      case "/userinfo" -> userInfo(req);
      default -> req.response().setStatusCode(404).end();
    }
  }

  private void authorize(HttpServerRequest req) {
    MultiMap params = MultiMap.caseInsensitiveMultiMap().addAll(req.params());
    authorizations.add(params);
    String back = params.get("redirect_uri");
    String state = URLEncoder.encode(params.get("state"), StandardCharsets.UTF_8);
    if (fault == Fault.LOGIN_DENIED) {
      req.response().setStatusCode(302).putHeader("Location", back + "?error=access_denied&state=" + state).end();
      return;
    }
    String code = "code-" + issued.incrementAndGet();
    codes.put(code, params.get("client_id") + " " + back);
    req.response().setStatusCode(302).putHeader("Location", back + "?code=" + code + "&state=" + state).end();
  }

  private void token(HttpServerRequest req, String form) {
    tokenRequests.add(form);
    if (fault == Fault.TOKEN_SILENT) {
      return;
    }
    if (fault == Fault.TOKEN_NOT_JSON) {
      req.response().putHeader("Content-Type", "text/html").end("<html>oops</html>");
      return;
    }
    Map<String, String> f = decode(form);
    String basic = req.getHeader("Authorization");
    String expected = "Basic " + Base64.getEncoder().encodeToString((URLEncoder.encode(clientId, StandardCharsets.UTF_8)
        + ":" + URLEncoder.encode(clientSecret, StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8));
    if (!expected.equals(basic)) {
      error(req, 401, "invalid_client");
      return;
    }
    if ("refresh_token".equals(f.get("grant_type"))) {
      String subject = refreshable.get(String.valueOf(f.get("refresh_token")));
      if (subject == null || fault == Fault.TOKEN_INVALID_GRANT) {
        error(req, 400, "invalid_grant");
        return;
      }
      String access = "access-" + issued.incrementAndGet();
      accessTokens.put(access, subject);
      req.response().putHeader("Content-Type", "application/json").end(new JsonObject().put("access_token", access)
          .put("token_type", "Bearer").put("expires_in", accessLifetime).encode());
      return;
    }
    String grant = codes.remove(String.valueOf(f.get("code")));
    if (fault == Fault.TOKEN_INVALID_GRANT || !"authorization_code".equals(f.get("grant_type")) || grant == null
        || !grant.equals(clientId + " " + f.get("redirect_uri"))) {
      error(req, 400, "invalid_grant");
      return;
    }
    String access = "access-" + issued.incrementAndGet();
    accessTokens.put(access, SUBJECT);
    long now = clock.getAsLong() / 1000;
    JsonObject id = new JsonObject().put("iss", issuer()).put("sub", SUBJECT)
        .put("aud", fault == Fault.ID_TOKEN_OTHER_AUDIENCE ? "someone-else" : clientId)
        .put("iat", now).put("exp", now + 3600);
    JsonObject answer = new JsonObject().put("access_token", access).put("token_type", "Bearer")
        .put("expires_in", accessLifetime).put("id_token", key.sign(id));
    if (refreshTokens) {
      String refresh = "refresh-" + issued.incrementAndGet();
      refreshable.put(refresh, SUBJECT);
      answer.put("refresh_token", refresh);
    }
    req.response().putHeader("Content-Type", "application/json").end(answer.encode());
  }

  private void userInfo(HttpServerRequest req) {
    userInfoRequests.incrementAndGet();
    String auth = req.getHeader("Authorization");
    String subject = auth == null || !auth.startsWith("Bearer ") ? null : accessTokens.get(auth.substring(7));
    if (subject == null) {
      error(req, 401, "invalid_token");
      return;
    }
    if (fault == Fault.USERINFO_DOWN) {
      req.response().setStatusCode(503).end();
      return;
    }
    JsonObject claims = new JsonObject().put("sub", fault == Fault.USERINFO_OTHER_SUBJECT ? "mallory" : subject)
        .put("email", EMAIL).put("name", "Alice");
    if (fault == Fault.USERINFO_LARGE || fault == Fault.USERINFO_HUGE) {
      claims.put("groups", "g".repeat(fault == Fault.USERINFO_LARGE ? 6 * 1024 : 12 * 1024));
    }
    req.response().putHeader("Content-Type", "application/json").end(claims.encode());
  }

  private static void error(HttpServerRequest req, int status, String code) {
    req.response().setStatusCode(status).putHeader("Content-Type", "application/json")
        .end(new JsonObject().put("error", code).encode());
  }

  private static Map<String, String> decode(String form) {
    Map<String, String> out = new ConcurrentHashMap<>();
    for (String pair : form.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        out.put(URLDecoder.decode(pair.substring(0, eq), StandardCharsets.UTF_8),
            URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return out;
  }

  /** Issues refresh tokens from now on, with access tokens that last {@code seconds}. */
  public void refreshTokens(long seconds) {
    this.refreshTokens = true;
    this.accessLifetime = seconds;
  }

  /** Forgets every refresh token it issued (the user signed out at the IdP). */
  public void signOut() {
    refreshable.clear();
  }

  /** Fails from now on as {@code f} says. */
  public void misbehave(Fault f) {
    this.fault = f;
  }

  /** {@code https://127.0.0.1:<port>}, also its issuer identifier. */
  public String issuer() {
    return "https://127.0.0.1:" + server.actualPort();
  }

  /** The PEM file of the server's certificate, for {@code oidc.ca-certificates}. */
  public Path caFile() {
    return certificate.certificate();
  }

  /** The query parameters of each authorization request, in order. */
  public List<MultiMap> authorizations() {
    return authorizations;
  }

  /** The form of each token request, in order. */
  public List<String> tokenRequests() {
    return tokenRequests;
  }

  public int userInfoRequests() {
    return userInfoRequests.get();
  }

  @Override
  public void close() {
    Await.result(server.close());
  }
}
