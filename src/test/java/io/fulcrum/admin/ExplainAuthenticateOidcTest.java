package io.fulcrum.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /ui/explain} for a rule with an authenticate-oidc action: the explanation names the
 * identity provider, the client and what a request without a session gets, never the client
 * secret; the dashboard's page says it in its sentence.
 */
class ExplainAuthenticateOidcTest {

  private static final String SECRET = "s3cret-of-the-client";
  private final Vertx clients = TestVertx.create();
  private Gateway gateway;
  private Http http;
  private int port;

  @BeforeEach
  void start() {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
        load-balancers:
          - name: web
            zones: [zone-a]
            listeners:
              - protocol: HTTPS
                port: %d
                default-actions: [{type: fixed-response, status-code: 404}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: [/app/*]}]
                    actions:
                      - {type: authenticate-oidc, issuer: 'https://idp.example.com',
                         authorization-endpoint: 'https://idp.example.com/authorize',
                         token-endpoint: 'https://idp.example.com/token',
                         user-info-endpoint: 'https://idp.example.com/userinfo', client-id: fulcrum,
                         client-secret: %s, on-unauthenticated-request: deny}
                      - {type: forward, target-group: app}
        target-groups:
          - {name: app, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: 9, zone: zone-a}]}
        """.formatted(port, SECRET));
    gateway.awaitDataPlane();
    http = new Http(clients);
  }

  @AfterEach
  void stop() {
    http.close();
    gateway.close();
    clients.close();
  }

  private Http.Response control(String path) {
    Http.Response r = http.get("127.0.0.1", gateway.controlPort(), path, Map.of());
    assertThat(r.status()).as(r.body()).isEqualTo(200);
    return r;
  }

  @Test
  void theExplanation_namesTheIdentityProviderAndClient_neverTheSecret(@TempDir Path dir) throws Exception {
    Http.Response r = control("/ui/explain?port=" + port + "&path=%2Fapp%2Fhome");
    assertThat(r.body()).doesNotContain(SECRET).doesNotContain("clientSecret");
    JsonObject e = new JsonObject(r.body());
    assertThat(e.getString("decidedBy")).isEqualTo("1");
    JsonObject action = e.getJsonObject("action");
    assertThat(action.getString("type")).isEqualTo("forward");
    assertThat(action.containsKey("jwtValidation")).isFalse();
    JsonObject oidc = action.getJsonObject("authenticateOidc");
    assertThat(oidc.getString("issuer")).isEqualTo("https://idp.example.com");
    assertThat(oidc.getString("clientId")).isEqualTo("fulcrum");
    assertThat(oidc.getString("onUnauthenticatedRequest")).isEqualTo("deny");

    // The page's sentence, drawn by its own script under Node.
    Path node = Interop.require("/usr/bin/node", "nodejs");
    Path page = Files.writeString(dir.resolve("dashboard.html"), control("/ui").body());
    Path state = Files.writeString(dir.resolve("state.json"), control("/ui/state").body());
    Path events = Files.writeString(dir.resolve("events.json"), control("/ui/events").body());
    Path explain = Files.writeString(dir.resolve("explain.json"), r.body());
    Path whatIf = Files.writeString(dir.resolve("whatif.json"), control("/ui/what-if?targetGroup=app").body());
    Path render = Path.of(ExplainAuthenticateOidcTest.class.getResource("/ui/render.js").toURI());
    Tool.Result drawn = Tool.run(dir, Duration.ofSeconds(30), List.of(node.toString(), render.toString(),
        page.toString(), state.toString(), events.toString(), explain.toString(), whatIf.toString(), ""));
    assertThat(drawn.exitCode()).as(drawn.output()).isZero();
    assertThat(drawn.output()).contains("EXPLAINED Load balancer web, listener HTTPS:" + port + ", zone zone-a: rule 1"
        + " \u2192 with a session signed in at https://idp.example.com (client fulcrum; else 401), forward app")
        .doesNotContain(SECRET);
  }
}
