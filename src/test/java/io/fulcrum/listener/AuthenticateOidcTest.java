package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.observe.LogDestination;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.OidcProvider;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.time.Duration;
import java.util.Base64;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * ALB's authenticate-oidc action on a running HTTPS listener, signing a browser in at a real
 * OpenID Connect provider over HTTPS: the browser is sent to the authorization endpoint with a
 * state only it can redeem, comes back to {@code /oauth2/idpresponse}, and is sent on with a
 * session cookie; its requests then reach the target with the user's claims in
 * {@code x-amzn-oidc-*} headers, signed (ES256) with a key the control plane publishes. Every way
 * the sign-in can fail gets ALB's status and {@code error_reason}, and never reaches a target.
 */
class AuthenticateOidcTest {

  private static final String CLIENT = "fulcrum-app";
  private static final String SECRET = "s3cret/with+symbols";

  private final Vertx backends = TestVertx.create();
  /** Virtual time from now: the tokens it signs are current for verifiers on the real clock (PyJWT). */
  private final VirtualTime time = new VirtualTime(System.currentTimeMillis());
  private Gateway gateway;
  private Backend backend;
  private OidcProvider idp;
  private Path data;
  private Path lbCertificate;
  private int port;
  private SSLContext trust;
  private final Map<HttpClient.Version, HttpClient> clients = new EnumMap<>(HttpClient.Version.class);
  /** The browser's cookies (both servers are 127.0.0.1, whose cookies a browser shares across ports). */
  private final Map<String, String> jar = new LinkedHashMap<>();

  @BeforeEach
  void start() throws Exception {
    Path dir = Files.createTempDirectory("oidc");
    data = dir.resolve("data");
    TestCertificates.Pem server = TestCertificates.pem(dir, "lb", "127.0.0.1");
    lbCertificate = server.certificate();
    // Sessions with large claims send large heads (ALB allows 64 KB of them); Vert.x takes 8 KB by default.
    backend = Backend.start(backends, "b", new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setMaxHeaderSize(64 * 1024), req -> {
      JsonObject seen = new JsonObject();
      req.headers().forEach(h -> {
        if (h.getKey().toLowerCase().startsWith("x-amzn-oidc-")) {
          seen.put(h.getKey().toLowerCase(), h.getValue());
        }
      });
      req.response().putHeader("Content-Type", "application/json").end(seen.encode());
    });
    idp = OidcProvider.start(backends, dir, CLIENT, SECRET, time::millis);
    trust = TestCertificates.trusting(server.x509(), TestCertificates.read(idp.caFile()));
    port = Ports.free();
    String i = idp.issuer();
    String oidc = "type: authenticate-oidc, issuer: '%s', authorization-endpoint: '%s/authorize',"
        + " token-endpoint: '%s/token', user-info-endpoint: '%s/userinfo', client-id: %s, client-secret: '%s'";
    oidc = oidc.formatted(i, i, i, i, CLIENT, SECRET);
    gateway = Gateway.start(TestVertx.create(), """
        oidc: {ca-certificates: '%s'}
        data-dir: '%s'
        load-balancers:
          - name: lb
            attributes: {access_logs.s3.enabled: "true", access_logs.s3.bucket: logs}
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: [/app/*]}]
                    actions:
                      - {%s, scope: 'openid email', session-timeout: 600,
                         authentication-request-extra-params: {prompt: login}}
                      - {type: forward, target-group: tg}
                  - priority: 2
                    conditions: [{field: path-pattern, values: [/open/*]}]
                    actions:
                      - {%s, on-unauthenticated-request: allow}
                      - {type: forward, target-group: tg}
                  - priority: 3
                    conditions: [{field: path-pattern, values: [/api/*]}]
                    actions:
                      - {%s, on-unauthenticated-request: deny}
                      - {type: forward, target-group: tg}
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(idp.caFile(), data, port, server.certificate(), server.privateKey(), oidc, oidc, oidc,
        backend.port()), instances(), time);
  }

  /** Listener verticle instances (event loops) Fulcrum runs with. */
  int instances() {
    return 1;
  }

  /** Whether each request goes on a new connection (else one client per version keeps its connections). */
  boolean freshConnections() {
    return false;
  }

  private HttpClient client(HttpClient.Version version) {
    return HttpClient.newBuilder().version(version).sslContext(trust).followRedirects(HttpClient.Redirect.NEVER)
        .connectTimeout(Duration.ofSeconds(5)).build();
  }

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  /** A request as a browser makes it: with the cookies it holds, keeping those it is given; no redirects followed. */
  private HttpResponse<String> browse(HttpClient.Version version, String url, String... headers) throws Exception {
    HttpClient client = freshConnections() ? client(version) : clients.computeIfAbsent(version, this::client);
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(15));
    if (!jar.isEmpty()) {
      request.header("Cookie", String.join("; ", jar.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
          .toList()));
    }
    if (headers.length > 0) {
      request.headers(headers);
    }
    HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    for (String c : r.headers().allValues("set-cookie")) {
      String pair = c.split(";", 2)[0];
      String name = pair.substring(0, pair.indexOf('='));
      if (c.contains("Max-Age=0") || c.contains("Expires=Thu, 01 Jan 1970")) {
        jar.remove(name);
      } else {
        jar.put(name, pair.substring(pair.indexOf('=') + 1));
      }
    }
    return r;
  }

  private HttpResponse<String> browse(String path) throws Exception {
    return browse(HttpClient.Version.HTTP_1_1, url(path));
  }

  private String url(String path) {
    return "https://127.0.0.1:" + port + path;
  }

  private static Map<String, String> query(String url) {
    Map<String, String> out = new LinkedHashMap<>();
    for (String pair : URI.create(url).getRawQuery().split("&")) {
      int eq = pair.indexOf('=');
      out.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
    }
    return out;
  }

  private static String location(HttpResponse<String> r) {
    return r.headers().firstValue("location").orElseThrow();
  }

  /** Signs in from {@code path}: to the IdP, back to the callback, and the callback's answer. */
  private HttpResponse<String> signIn(String path) throws Exception {
    HttpResponse<String> toIdp = browse(path);
    assertThat(toIdp.statusCode()).isEqualTo(302);
    HttpResponse<String> back = browse(HttpClient.Version.HTTP_1_1, location(toIdp));
    assertThat(back.statusCode()).isEqualTo(302);
    return browse(HttpClient.Version.HTTP_1_1, location(back));
  }

  @Test
  void aBrowserWithoutASession_isSentToTheIdp_andComesBackSignedIn() throws Exception {
    HttpResponse<String> first = browse("/app/page?x=1");
    assertThat(first.statusCode()).isEqualTo(302);
    String toIdp = location(first);
    assertThat(toIdp).startsWith(idp.issuer() + "/authorize?");
    Map<String, String> q = query(toIdp);
    assertThat(q).containsEntry("client_id", CLIENT).containsEntry("response_type", "code")
        .containsEntry("scope", "openid email").containsEntry("prompt", "login")
        .containsEntry("redirect_uri", url("/oauth2/idpresponse")).containsKey("state");
    assertThat(first.headers().allValues("set-cookie")).anySatisfy(c -> assertThat(c)
        .startsWith("AWSALBAuthNonce=").contains("Secure", "HttpOnly", "Path=/"));
    assertThat(backend.trafficHits()).isZero();

    HttpResponse<String> back = browse(HttpClient.Version.HTTP_1_1, location(browse(HttpClient.Version.HTTP_1_1,
        toIdp)));
    assertThat(back.statusCode()).isEqualTo(302);
    assertThat(location(back)).isEqualTo(url("/app/page?x=1"));
    assertThat(back.headers().allValues("set-cookie")).anySatisfy(c -> assertThat(c)
        .startsWith("AWSELBAuthSessionCookie-0=").contains("Expires=", "Path=/", "Secure", "HttpOnly"));
    assertThat(jar).containsKey("AWSELBAuthSessionCookie-0").doesNotContainKey("AWSALBAuthNonce");
    // The code was redeemed with the client's credentials (HTTP Basic, checked by the IdP) and the same redirect URI.
    assertThat(idp.tokenRequests()).singleElement().asString().contains("grant_type=authorization_code")
        .contains("redirect_uri=" + java.net.URLEncoder.encode(url("/oauth2/idpresponse"), StandardCharsets.UTF_8));
    assertThat(backend.trafficHits()).isZero();

    for (HttpClient.Version v : HttpClient.Version.values()) {
      long before = DirectForwarder.forwarded();
      HttpResponse<String> r = browse(v, url("/app/page?x=1"));
      assertThat(r.statusCode()).as(v.toString()).isEqualTo(200);
      assertThat(DirectForwarder.forwarded() - before).as("the direct path took it").isEqualTo(1);
      JsonObject seen = new JsonObject(r.body());
      assertThat(seen.getString("x-amzn-oidc-identity")).isEqualTo(OidcProvider.SUBJECT);
      assertThat(seen.getString("x-amzn-oidc-accesstoken")).startsWith("access-");
      JsonObject payload = verifiedClaims(seen.getString("x-amzn-oidc-data"));
      assertThat(payload.getString("sub")).isEqualTo(OidcProvider.SUBJECT);
      assertThat(payload.getString("email")).isEqualTo(OidcProvider.EMAIL);
      assertThat(payload.getString("iss")).isEqualTo(idp.issuer());
      assertThat(payload.getLong("exp") * 1000).isGreaterThan(time.millis());
    }
    assertThat(idp.userInfoRequests()).as("claims read once, at sign-in").isEqualTo(1);
  }

  /**
   * Checks {@code x-amzn-oidc-data} as a target would: its key fetched by id from the control plane,
   * its ES256 signature verified by the JDK, its header naming the load balancer, issuer and client.
   */
  private JsonObject verifiedClaims(String token) throws Exception {
    String[] parts = token.split("\\.");
    assertThat(parts).hasSize(3);
    assertThat(parts[2]).as("padded base64url, as ALB's").endsWith("=");
    JsonObject header = new JsonObject(new String(Base64.getUrlDecoder().decode(parts[0]), StandardCharsets.UTF_8));
    assertThat(header.getString("alg")).isEqualTo("ES256");
    assertThat(header.getString("iss")).isEqualTo(idp.issuer());
    assertThat(header.getString("client")).isEqualTo(CLIENT);
    assertThat(header.getString("signer"))
        .matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/lb/[0-9a-f]{16}");
    HttpResponse<String> pem = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + gateway.controlPort() + "/public-keys/" + header.getString("kid"))).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(pem.statusCode()).isEqualTo(200);
    assertThat(pem.body()).startsWith("-----BEGIN PUBLIC KEY-----");
    String b64 = pem.body().replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
    PublicKey key = KeyFactory.getInstance("EC").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(b64)));
    Signature verify = Signature.getInstance("SHA256withECDSAinP1363Format");
    verify.initVerify(key);
    verify.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
    assertThat(verify.verify(Base64.getUrlDecoder().decode(parts[2]))).as("signature").isTrue();
    return new JsonObject(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8));
  }

  /**
   * A target verifies {@code x-amzn-oidc-data} as AWS's documentation shows, with code nobody here
   * wrote: Debian's PyJWT decodes ALB's padded token, checks the ES256 signature with the key the
   * control plane serves for its {@code kid}, and its {@code exp}.
   */
  @Test
  void pyJwt_verifiesTheClaims_asATargetDoes() throws Exception {
    Path python = Interop.python3With("jwt", "python3-jwt");
    signIn("/app/a");
    String token = new JsonObject(browse("/app/a").body()).getString("x-amzn-oidc-data");
    Path dir = Files.createTempDirectory("pyjwt");
    Files.writeString(dir.resolve("verify.py"), """
        import base64, json, sys, urllib.request
        import jwt
        token, control = sys.argv[1], sys.argv[2]
        header = json.loads(base64.urlsafe_b64decode(token.split(".")[0]))
        key = urllib.request.urlopen(control + "/public-keys/" + header["kid"]).read().decode()
        claims = jwt.decode(token, key, algorithms=["ES256"])
        print(json.dumps({"header": header, "claims": claims}))
        """);
    Tool.Result r = Tool.run(dir, Duration.ofSeconds(60), List.of(python.toString(), "verify.py", token,
        "http://127.0.0.1:" + gateway.controlPort()));
    assertThat(r.exitCode()).as(r.output()).isZero();
    JsonObject out = Interop.lastJsonLine(r);
    assertThat(out.getJsonObject("claims").getString("sub")).isEqualTo(OidcProvider.SUBJECT);
    assertThat(out.getJsonObject("claims").getString("email")).isEqualTo(OidcProvider.EMAIL);
    assertThat(out.getJsonObject("header").getString("client")).isEqualTo(CLIENT);
    assertThat(out.getJsonObject("header").getString("signer")).contains(":loadbalancer/app/lb/");
  }

  /**
   * curl signs in as a browser would, with a cookie engine nobody here wrote: it follows the
   * redirects to the IdP and back, keeps the nonce and session cookies as their Set-Cookie lines say
   * (Secure, HttpOnly, Path, Expires), and ends at the page with the user's claims.
   */
  @Test
  void curl_signsIn_followingTheRedirects_withItsOwnCookieJar() throws Exception {
    Path curl = Interop.require("/usr/bin/curl", "curl");
    Path dir = Files.createTempDirectory("curl");
    Path cas = dir.resolve("cas.pem");
    Files.writeString(cas, Files.readString(lbCertificate) + Files.readString(idp.caFile()));
    Tool.Result r = Tool.run(dir, Duration.ofSeconds(60), List.of(curl.toString(), "-sS", "-L", "--cacert",
        cas.toString(), "-c", "jar", "-b", "jar", url("/app/page?x=1")));
    assertThat(r.exitCode()).as(r.output()).isZero();
    JsonObject seen = Interop.lastJsonLine(r);
    assertThat(seen.getString("x-amzn-oidc-identity")).isEqualTo(OidcProvider.SUBJECT);
    assertThat(Files.readString(dir.resolve("jar"))).contains("AWSELBAuthSessionCookie-0")
        .doesNotContain("AWSALBAuthNonce\t");
    Tool.Result again = Tool.run(dir, Duration.ofSeconds(60), List.of(curl.toString(), "-sS", "--cacert",
        cas.toString(), "-b", "jar", url("/api/orders")));
    assertThat(Interop.lastJsonLine(again).getString("x-amzn-oidc-identity")).as("the jar's session, on a deny rule")
        .isEqualTo(OidcProvider.SUBJECT);
  }

  @Test
  void aKeyIdNotInUse_isNotFound() throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(
        "http://127.0.0.1:" + gateway.controlPort() + "/public-keys/no-such-kid")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(404);
  }

  @Test
  void aClientsOwnOidcHeaders_neverReachTheTarget() throws Exception {
    String[] forged = {"x-amzn-oidc-identity", "admin", "x-amzn-oidc-data", "forged", "X-Amzn-Oidc-Accesstoken", "t"};
    HttpResponse<String> allowed = browse(HttpClient.Version.HTTP_1_1, url("/open/x"), forged);
    assertThat(allowed.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(allowed.body())).as("allowed without a session: no claims").isEmpty();
    assertThat(signIn("/app/a").statusCode()).isEqualTo(302);
    for (HttpClient.Version v : HttpClient.Version.values()) {
      JsonObject seen = new JsonObject(browse(v, url("/open/x"), forged).body());
      assertThat(seen.getString("x-amzn-oidc-identity")).as(v.toString()).isEqualTo(OidcProvider.SUBJECT);
      assertThat(seen.getString("x-amzn-oidc-accesstoken")).as(v.toString()).startsWith("access-");
      assertThat(seen.getString("x-amzn-oidc-data")).as(v.toString()).isNotEqualTo("forged");
    }
  }

  @Test
  void denyAnswers401_withoutASession_andForwardsWithOne() throws Exception {
    HttpResponse<String> denied = browse("/api/orders");
    assertThat(denied.statusCode()).isEqualTo(401);
    assertThat(denied.body()).contains("401 Authorization Required");
    assertThat(backend.trafficHits()).isZero();
    signIn("/app/a");
    assertThat(browse("/api/orders").statusCode()).as("the session is the client's, for every rule").isEqualTo(200);
  }

  @Test
  void aSessionEnds_afterTheSessionTimeout() throws Exception {
    signIn("/app/a");
    assertThat(browse("/app/a").statusCode()).isEqualTo(200);
    time.advance(Duration.ofSeconds(601));
    HttpResponse<String> again = browse("/app/a");
    assertThat(again.statusCode()).isEqualTo(302);
    assertThat(location(again)).startsWith(idp.issuer() + "/authorize?");
  }

  @Test
  void anExpiredAccessToken_isRenewedWithTheRefreshToken_untilTheIdpRefuses() throws Exception {
    idp.refreshTokens(60);
    signIn("/app/a");
    String first = new JsonObject(browse("/app/a").body()).getString("x-amzn-oidc-accesstoken");
    String cookie = jar.get("AWSELBAuthSessionCookie-0");
    time.advance(Duration.ofSeconds(61));
    long before = DirectForwarder.forwarded();
    HttpResponse<String> renewed = browse(HttpClient.Version.HTTP_1_1, url("/app/a"), "Content-Type", "text/plain");
    assertThat(renewed.statusCode()).isEqualTo(200);
    String second = new JsonObject(renewed.body()).getString("x-amzn-oidc-accesstoken");
    assertThat(second).startsWith("access-").isNotEqualTo(first);
    assertThat(idp.tokenRequests()).last().asString().startsWith("grant_type=refresh_token&refresh_token=refresh-");
    assertThat(idp.userInfoRequests()).as("claims read again").isEqualTo(2);
    assertThat(renewed.headers().allValues("set-cookie")).anySatisfy(c -> assertThat(c)
        .startsWith("AWSELBAuthSessionCookie-0="));
    assertThat(jar.get("AWSELBAuthSessionCookie-0")).isNotEqualTo(cookie);
    assertThat(DirectForwarder.forwarded()).as("the usual path renews").isEqualTo(before);

    HttpResponse<String> next = browse(HttpClient.Version.HTTP_2, url("/app/a"));
    assertThat(new JsonObject(next.body()).getString("x-amzn-oidc-accesstoken")).isEqualTo(second);
    assertThat(idp.tokenRequests()).as("no refresh until it expires again").hasSize(2);
    assertThat(DirectForwarder.forwarded() - before).as("and the direct path serves it").isEqualTo(1);

    idp.signOut();
    time.advance(Duration.ofSeconds(61));
    HttpResponse<String> out = browse("/app/a");
    assertThat(out.statusCode()).as("a refused refresh: sign in again").isEqualTo(302);
    assertThat(location(out)).startsWith(idp.issuer() + "/authorize?");
    assertThat(browse("/api/a").statusCode()).isEqualTo(401);
    assertThat(scrape()).contains("ELBAuthRefreshTokenSuccess{").containsPattern("ELBAuthSuccess\\{[^}]*} 1")
        .as("ELBAuthLatency: the sign-in, the refresh and the two refused refreshes each asked the IdP once")
        .containsPattern("ELBAuthLatency_bucket\\{[^}]*le=\"\\+Inf\"} 4")
        .containsPattern("ELBAuthLatency_count\\{[^}]*} 4");
  }

  private String scrape() throws Exception {
    return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
        + gateway.controlPort() + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
  }

  @Test
  void aCookieNotSealedByTheLoadBalancer_isNoSession() throws Exception {
    jar.put("AWSELBAuthSessionCookie-0", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA");
    assertThat(browse("/app/a").statusCode()).isEqualTo(302);
    assertThat(browse("/api/a").statusCode()).isEqualTo(401);
    assertThat(backend.trafficHits()).isZero();
  }

  @Test
  void largeClaims_travelInSeveralCookieShards() throws Exception {
    idp.misbehave(OidcProvider.Fault.USERINFO_LARGE);
    HttpResponse<String> back = signIn("/app/a");
    assertThat(back.statusCode()).isEqualTo(302);
    assertThat(jar).containsKeys("AWSELBAuthSessionCookie-0", "AWSELBAuthSessionCookie-1");
    assertThat(back.headers().allValues("set-cookie")).allSatisfy(c -> assertThat(c.length()).isLessThan(4096));
    JsonObject seen = new JsonObject(browse("/app/a").body());
    assertThat(seen.getString("x-amzn-oidc-identity")).isEqualTo(OidcProvider.SUBJECT);
  }

  @Test
  void aCallbackThatCannotBeTrusted_is401_andTheIdpIsNotAsked() throws Exception {
    HttpResponse<String> toIdp = browse("/app/a");
    String back = location(browse(HttpClient.Version.HTTP_1_1, location(toIdp)));
    Map<String, String> q = query(back);
    String nonce = jar.get("AWSALBAuthNonce");

    assertThat(browse("/oauth2/idpresponse?code=" + q.get("code")).statusCode()).as("no state").isEqualTo(401);
    assertThat(browse("/oauth2/idpresponse?code=" + q.get("code") + "&state=tampered").statusCode()).as("forged state")
        .isEqualTo(401);
    jar.remove("AWSALBAuthNonce");
    assertThat(browse(HttpClient.Version.HTTP_1_1, back).statusCode()).as("another browser").isEqualTo(401);
    jar.put("AWSALBAuthNonce", "bm90LXRoZS1ub25jZQ");
    assertThat(browse(HttpClient.Version.HTTP_1_1, back).statusCode()).as("another sign-in's nonce").isEqualTo(401);
    jar.put("AWSALBAuthNonce", nonce);
    assertThat(browse("/oauth2/idpresponse?state=" + java.net.URLEncoder.encode(q.get("state"),
        StandardCharsets.UTF_8)).statusCode()).as("no code").isEqualTo(401);
    assertThat(idp.tokenRequests()).isEmpty();

    assertThat(browse(HttpClient.Version.HTTP_1_1, back).statusCode()).as("the real one").isEqualTo(302);
    jar.put("AWSALBAuthNonce", nonce);
    assertThat(browse(HttpClient.Version.HTTP_1_1, back).statusCode()).as("its code used again: invalid_grant")
        .isEqualTo(561);
    assertThat(backend.trafficHits()).isZero();

    assertThat(accessLog()).extracting(AuthenticateOidcTest::errorReason).containsExactlyInAnyOrder(
        "-", "AuthMissingStateParam", "AuthInvalidStateParam", "AuthMissingAWSALBAuthNonce",
        "AuthInvalidAWSALBAuthNonce", "AuthMissingCodeParam", "-", "AuthInvalidGrantError");
  }

  @Test
  void aStateOlderThan15Minutes_isRefused() throws Exception {
    String back = location(browse(HttpClient.Version.HTTP_1_1, location(browse("/app/a"))));
    time.advance(Duration.ofMinutes(16));
    assertThat(browse(HttpClient.Version.HTTP_1_1, back).statusCode()).isEqualTo(401);
  }

  @Test
  void idpFailures_getAlbsStatuses() throws Exception {
    Map<OidcProvider.Fault, Integer> expected = new LinkedHashMap<>();
    expected.put(OidcProvider.Fault.LOGIN_DENIED, 561);
    expected.put(OidcProvider.Fault.TOKEN_INVALID_GRANT, 561);
    expected.put(OidcProvider.Fault.TOKEN_NOT_JSON, 500);
    expected.put(OidcProvider.Fault.ID_TOKEN_OTHER_AUDIENCE, 401);
    expected.put(OidcProvider.Fault.USERINFO_DOWN, 561);
    expected.put(OidcProvider.Fault.USERINFO_OTHER_SUBJECT, 500);
    expected.put(OidcProvider.Fault.USERINFO_HUGE, 500);
    expected.put(OidcProvider.Fault.TOKEN_SILENT, 500);
    for (Map.Entry<OidcProvider.Fault, Integer> e : expected.entrySet()) {
      idp.misbehave(e.getKey());
      assertThat(signIn("/app/a").statusCode()).as(e.getKey().toString()).isEqualTo(e.getValue());
      assertThat(jar).as(e.getKey().toString()).doesNotContainKey("AWSELBAuthSessionCookie-0");
    }
    assertThat(backend.trafficHits()).isZero();
    // Each sign-in: the redirect to the IdP (302, authenticate), then the callback's answer. A line
    // belongs to the period its request ended in: the virtual clock stands still at the real time the
    // test began, and a request ends that clock's time plus its real duration (5 s for the token
    // endpoint that never answers), so when the test began within seconds of a 5-minute boundary its
    // last lines are the next period's, in that period's file: every file counts.
    accessLog();
    // The writer collects a period at its end: while lines are missing, the clock moves on a minute
    // at a time until the next collection has written them.
    List<String> callbacks = await().atMost(Duration.ofSeconds(10)).until(() -> {
      List<String> found = callbackLines();
      if (found.size() < expected.size()) {
        time.advance(Duration.ofMinutes(1));
      }
      return found;
    }, l -> l.size() >= expected.size());
    assertThat(callbacks).extracting(AuthenticateOidcTest::errorReason).containsExactlyInAnyOrder("-",
        "AuthInvalidGrantError", "AuthInvalidTokenResponse", "AuthInvalidIdToken", "AuthUserinfoEpRequestFailed",
        "AuthInvalidUserinfoResponse", "AuthUserinfoResponseSizeExceeded", "AuthTokenEpRequestTimeout");
    assertThat(callbacks).allSatisfy(l -> assertThat(l).contains("\"authenticate\""));
  }

  @Test
  void theAccessLog_saysWhichActionsRan() throws Exception {
    signIn("/app/a");
    browse("/app/a");
    List<String> lines = accessLog();
    // Lines of different event loops come in no set order. elb_status_code target_status_code ...
    // matched_rule_priority request_creation_time actions_executed.
    assertThat(lines).hasSize(3);
    assertThat(lines).filteredOn(l -> l.contains(" 302 - ") && l.contains("/app/a HTTP/1.1"))
        .singleElement().asString().containsPattern(" 1 \\S+Z \"authenticate\" ");
    assertThat(lines).filteredOn(l -> l.contains(" 302 - ") && l.contains("/oauth2/idpresponse?"))
        .singleElement().asString().containsPattern(" 1 \\S+Z \"authenticate\" ");
    assertThat(lines).filteredOn(l -> l.contains(" 200 200 "))
        .singleElement().asString().containsPattern(" 1 \\S+Z \"authenticate,forward\" ");
  }

  /** The access log's callback lines, in every file written so far. */
  private List<String> callbackLines() throws java.io.IOException {
    Path logs = data.resolve("s3").resolve("logs");
    if (!Files.isDirectory(logs)) {
      return List.of();
    }
    try (java.util.stream.Stream<Path> files = Files.walk(logs)) {
      return files.filter(f -> f.getFileName().toString().endsWith(".log.gz")).sorted()
          .flatMap(f -> LogFiles.lines(f).stream()).filter(l -> l.contains("/oauth2/idpresponse")).toList();
    }
  }

  private List<String> accessLog() throws Exception {
    time.advance(Duration.ofMillis(LogDestination.periodEnd(time.millis()) - time.millis()));
    return LogFiles.lines(LogFiles.await(data.resolve("s3").resolve("logs"), 1).get(0));
  }

  /** The access log's error_reason: the quoted field after actions_executed and redirect_url. */
  private static String errorReason(String line) {
    java.util.regex.Matcher m = java.util.regex.Pattern.compile(" \"(authenticate[^\"]*)\" \"[^\"]*\" \"([^\"]*)\" ")
        .matcher(line);
    assertThat(m.find()).as(line).isTrue();
    return m.group(2);
  }
}
