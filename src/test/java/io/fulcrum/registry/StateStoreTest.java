package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.config.FulcrumConfig;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerIpAddressType;
import io.fulcrum.model.LoadBalancerScheme;
import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.Resources;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.TestPki;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The persisted state: exact round trips, atomic replacement, and torn files that lose nothing. */
class StateStoreTest {

  @TempDir
  Path dir;

  private static FulcrumConfig demo() throws IOException {
    return Gateway.config(Files.readString(Path.of("conf", "fulcrum.yaml")));
  }

  @Test
  void demoResources_roundTripExactly_tagsIncluded() throws IOException {
    FulcrumConfig c = demo();
    Resources r = new Resources(c.resources().loadBalancers(), c.resources().targetGroups(),
        Map.of(c.resources().targetGroups().get(0).arn(), Map.of("team", "web", "env", "demo")));
    StateStore store = new StateStore(dir);
    store.save(r);
    assertThat(store.load(c.environment())).contains(r);
  }

  @Test
  void apiCreatedLoadBalancer_roundTripsItsSchemeAddressTypeSecurityGroupsAndCreatedTime() throws IOException {
    FulcrumConfig c = demo();
    LoadBalancer demo = c.resources().loadBalancers().get(0);
    LoadBalancer created = new LoadBalancer(demo.arn(), demo.name(), demo.type(), "internal-" + demo.dnsName(),
        demo.zones(), demo.attributes(), demo.listeners(), LoadBalancerScheme.INTERNAL,
        LoadBalancerIpAddressType.DUALSTACK, List.of("sg-1", "sg-2"), Instant.parse("2025-03-01T10:15:30.123Z"));
    Resources r = new Resources(List.of(created), c.resources().targetGroups());
    StateStore store = new StateStore(dir);
    store.save(r);
    assertThat(store.load(c.environment())).contains(r);
  }

  @Test
  void aTlsListenersAlpnPolicy_roundTrips() throws IOException {
    FulcrumConfig c = Gateway.config("""
        load-balancers:
          - name: edge
            type: network
            listeners:
              - {protocol: TLS, port: 7443, alpn-policy: HTTP2Only, default-actions: [{type: forward, target-group: tcp}]}
              - {protocol: TLS, port: 8443, default-actions: [{type: forward, target-group: tcp}]}
        target-groups:
          - {name: tcp, target-type: ip, protocol: TCP, port: 80}
        """);
    Resources r = new Resources(c.resources().loadBalancers(), c.resources().targetGroups());
    StateStore store = new StateStore(dir);
    store.save(r);
    assertThat(store.load(c.environment())).contains(r);
    assertThat(store.load(c.environment()).orElseThrow().loadBalancers().get(0).listeners())
        .extracting(l -> l.alpnPolicy()).containsExactly(io.fulcrum.model.AlpnPolicy.HTTP2_ONLY, null);
  }

  @Test
  void httpsListenersMutualTls_roundTrips_trustStoreIncluded() throws IOException {
    TestPki.Issued root = TestPki.root("Root");
    Path bundle = TestPki.bundle(dir.resolve("ca.pem"), root.certificate());
    Path crl = TestPki.crl(dir.resolve("ca.crl"), root, TestPki.client(root, "gone").certificate());
    FulcrumConfig c = Gateway.config("""
        trust-stores:
          - {name: clients, ca-certificates: '%s', revocations: ['%s']}
        load-balancers:
          - name: web
            listeners:
              - protocol: HTTPS
                port: 8443
                mutual-authentication: {mode: verify, trust-store: clients, ignore-client-certificate-expiry: true,
                  advertise-trust-store-ca-names: on}
                default-actions: [{type: fixed-response, status-code: 200}]
              - protocol: HTTPS
                port: 9443
                mutual-authentication: {mode: passthrough}
                default-actions: [{type: fixed-response, status-code: 200}]
              - protocol: HTTPS
                port: 10443
                default-actions: [{type: fixed-response, status-code: 200}]
        """.formatted(bundle, crl));
    Resources r = new Resources(c.resources().loadBalancers(), c.resources().targetGroups());
    StateStore store = new StateStore(dir);
    store.save(r);
    assertThat(store.load(c.environment())).contains(r);
    assertThat(r.loadBalancers().get(0).listeners()).extracting(l -> l.mutualAuthentication().mode())
        .containsExactly(MutualAuthentication.Mode.VERIFY, MutualAuthentication.Mode.PASSTHROUGH,
            MutualAuthentication.Mode.OFF);
    assertThat(r.loadBalancers().get(0).listeners().get(0).mutualAuthentication().trustStore().revokedCount())
        .isEqualTo(1);
  }

  @Test
  void aRulesTransformsAndRegexConditions_roundTrip() throws IOException {
    FulcrumConfig c = Gateway.config("""
        load-balancers:
          - name: web
            listeners:
              - protocol: HTTP
                port: 8080
                default-actions: [{type: fixed-response, status-code: 404}]
                rules:
                  - priority: 1
                    conditions:
                      - {field: path-pattern, values: [/api/*]}
                      - {field: http-header, http-header-name: X-Client, regex-values: ['^m']}
                    transforms:
                      - {type: url-rewrite, regex: '^/api/(.*)$', replace: '/$1'}
                      - {type: host-header-rewrite, regex: '^www\\.', replace: ''}
                    actions: [{type: fixed-response, status-code: 200}]
        """);
    Resources r = new Resources(c.resources().loadBalancers(), c.resources().targetGroups());
    StateStore store = new StateStore(dir);
    store.save(r);
    assertThat(store.load(c.environment())).contains(r);
    assertThat(r.loadBalancers().get(0).listeners().get(0).rules().get(0).transforms()).hasSize(2);
  }

  @Test
  void jwtValidationAndAuthenticateOidcActions_roundTrip_theClientSecretIncluded() throws IOException {
    FulcrumConfig c = Gateway.config("""
        load-balancers:
          - name: web
            listeners:
              - protocol: HTTPS
                port: 8443
                default-actions:
                  - {type: authenticate-oidc, issuer: 'https://idp.example.com',
                     authorization-endpoint: 'https://idp.example.com/authorize',
                     token-endpoint: 'https://idp.example.com/token',
                     user-info-endpoint: 'https://idp.example.com/userinfo', client-id: fulcrum,
                     client-secret: s3cret, session-cookie-name: AppSession, scope: 'openid email',
                     session-timeout: 3600, authentication-request-extra-params: {prompt: login, display: page},
                     on-unauthenticated-request: allow}
                  - {type: fixed-response, status-code: 200}
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: [/api/*]}]
                    actions:
                      - {type: jwt-validation, jwks-endpoint: 'https://idp.example.com/jwks',
                         issuer: 'https://idp.example.com', additional-claims: [{name: scope,
                         format: space-separated-values, values: [orders:read]}]}
                      - {type: fixed-response, status-code: 200}
                  - priority: 2
                    conditions: [{field: path-pattern, values: [/app/*]}]
                    actions:
                      - {type: authenticate-oidc, issuer: 'https://idp.example.com',
                         authorization-endpoint: 'https://idp.example.com/authorize',
                         token-endpoint: 'https://idp.example.com/token',
                         user-info-endpoint: 'https://idp.example.com/userinfo', client-id: app,
                         client-secret: other-s3cret}
                      - {type: fixed-response, status-code: 200}
        """);
    Resources r = new Resources(c.resources().loadBalancers(), c.resources().targetGroups());
    StateStore store = new StateStore(dir);
    store.save(r);
    Resources back = store.load(c.environment()).orElseThrow();
    assertThat(back).isEqualTo(r);
    AuthenticateOidc oidc = (AuthenticateOidc) back.loadBalancers().get(0).listeners().get(0).defaultActions().get(0);
    assertThat(oidc.clientSecret()).isEqualTo("s3cret");
    assertThat(oidc.extraParams().keySet()).containsExactly("prompt", "display");
    assertThat(oidc.onUnauthenticated()).isEqualTo(AuthenticateOidc.OnUnauthenticated.ALLOW);
    assertThat(back.loadBalancers().get(0).listeners().get(0).rules().get(0).actions().get(0))
        .isInstanceOf(JwtValidation.class);
    // The dashboard's view of the same actions never carries the secret.
    assertThat(ResourcesJson.actions(r.loadBalancers().get(0).listeners().get(0).defaultActions()).encode())
        .contains("\"clientId\":\"fulcrum\"").doesNotContain("s3cret").doesNotContain("clientSecret");
  }

  @Test
  void save_replacesTheFileWhole_keepsThePreviousGoodOne_andLeavesNoTemporaryFile() throws IOException {
    FulcrumConfig c = demo();
    StateStore store = new StateStore(dir);
    store.save(Resources.EMPTY);
    String first = Files.readString(dir.resolve(StateStore.FILE));
    store.save(c.resources());
    assertThat(Files.readString(dir.resolve(StateStore.PREVIOUS))).isEqualTo(first);
    assertThat(store.load(c.environment())).contains(c.resources());
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder(StateStore.FILE, StateStore.PREVIOUS);
    }
  }

  @Test
  void stateAndPreviousState_areReadableByTheirOwnerOnly_whateverTheUmask() throws IOException {
    StateStore store = new StateStore(dir);
    Files.writeString(dir.resolve(StateStore.FILE + ".tmp"), "left by a crash");
    Files.setPosixFilePermissions(dir.resolve(StateStore.FILE + ".tmp"), PosixFilePermissions.fromString("rw-rw-rw-"));

    store.save(Resources.EMPTY);
    Files.setPosixFilePermissions(dir.resolve(StateStore.FILE), PosixFilePermissions.fromString("rw-r--r--"));
    store.save(demo().resources());

    assertThat(Files.getPosixFilePermissions(dir.resolve(StateStore.FILE)))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
    assertThat(Files.getPosixFilePermissions(dir.resolve(StateStore.PREVIOUS)))
        .isEqualTo(PosixFilePermissions.fromString("rw-------"));
  }

  @Test
  void noFile_meansNoState() throws IOException {
    assertThat(new StateStore(dir).load(demo().environment())).isEmpty();
  }

  @Test
  void tornFile_isRefusedWithAClearError_andNothingIsChanged() throws IOException {
    FulcrumConfig c = demo();
    StateStore store = new StateStore(dir);
    store.save(Resources.EMPTY);
    store.save(c.resources());
    String good = Files.readString(dir.resolve(StateStore.FILE));
    String torn = good.substring(0, good.length() / 2);
    Files.writeString(dir.resolve(StateStore.FILE), torn, StandardCharsets.UTF_8);
    String previous = Files.readString(dir.resolve(StateStore.PREVIOUS));

    assertThatThrownBy(() -> store.load(c.environment()))
        .isInstanceOf(InvalidModelException.class)
        .hasMessageContaining("is not valid JSON (torn or corrupt)")
        .hasMessageContaining("the previous good state is in " + dir.resolve(StateStore.PREVIOUS));
    assertThat(Files.readString(dir.resolve(StateStore.FILE))).isEqualTo(torn);
    assertThat(Files.readString(dir.resolve(StateStore.PREVIOUS))).isEqualTo(previous);
  }

  @Test
  void validJsonWithInvalidResources_isRefused() throws IOException {
    StateStore store = new StateStore(dir);
    store.save(demo().resources());
    String text = Files.readString(dir.resolve(StateStore.FILE)).replace("\"intervalSeconds\" : 5", "\"intervalSeconds\" : 301");
    Files.writeString(dir.resolve(StateStore.FILE), text);
    assertThatThrownBy(() -> store.load(demo().environment()))
        .isInstanceOf(InvalidModelException.class)
        .hasMessageContaining("holds resources this deployment refuses")
        .hasMessageContaining("301 is above the maximum 300");
  }
}
