package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.withListener;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Action;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.model.AuthenticateOidc.OnUnauthenticated;
import io.fulcrum.model.Rule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The authenticate-oidc action in the config file: its keys, ALB's defaults, and where it may stand. */
class ConfigParserAuthenticateOidcTest {

  private static final String L = "load-balancers[0].listeners[0].";
  private static final String R = L + "rules[0].";
  /** Every required key; the optional ones are added by each test. */
  private static final String OIDC = "{type: authenticate-oidc, issuer: 'https://idp.example.com',"
      + " authorization-endpoint: 'https://idp.example.com/authorize', token-endpoint: 'https://idp.example.com/token',"
      + " user-info-endpoint: 'https://idp.example.com/userinfo', client-id: fulcrum, client-secret: s3cret";

  private static String listener(String protocol, String actions) {
    return withListener("""
        - protocol: %s
          port: 8443
          default-actions: [{type: forward, target-group: web}]
          rules:
            - priority: 1
              conditions: [{field: path-pattern, values: [/app/*]}]
              actions: [%s]
        """.formatted(protocol, actions));
  }

  private static List<String> ruleMessages(String actions) {
    return messages(listener("HTTPS", actions));
  }

  private static Rule rule(String actions) {
    return parse(listener("HTTPS", actions)).resources().loadBalancers().get(0).listeners().get(0).rules().get(0);
  }

  @Test
  void aRuleWithAuthenticateOidc_thenForward_isReadWithEveryKey() {
    Rule rule = rule(OIDC + ", session-cookie-name: AppSession, scope: 'openid email', session-timeout: 3600,"
        + " authentication-request-extra-params: {prompt: login, display: page, acr_values: '2'},"
        + " on-unauthenticated-request: deny}, {type: forward, target-group: api}");
    assertThat(rule.actions()).hasSize(2);
    assertThat(rule.actions().get(0)).isEqualTo(new AuthenticateOidc("https://idp.example.com",
        "https://idp.example.com/authorize", "https://idp.example.com/token", "https://idp.example.com/userinfo",
        "fulcrum", "s3cret", "AppSession", "openid email", 3600,
        Map.of("prompt", "login", "display", "page", "acr_values", "2"), OnUnauthenticated.DENY));
    assertThat(((AuthenticateOidc) rule.actions().get(0)).extraParams().keySet()).as("in the order given")
        .containsExactly("prompt", "display", "acr_values");
    assertThat(rule.actions().get(1)).isInstanceOf(Action.Forward.class);
  }

  @Test
  void theOptionalKeys_takeAlbsDefaults() {
    AuthenticateOidc oidc = (AuthenticateOidc) rule(OIDC + "}, {type: forward, target-group: api}").actions().get(0);
    assertThat(oidc.sessionCookieName()).isEqualTo("AWSELBAuthSessionCookie");
    assertThat(oidc.scope()).isEqualTo("openid");
    assertThat(oidc.sessionTimeoutSeconds()).isEqualTo(604_800);
    assertThat(oidc.extraParams()).isEmpty();
    assertThat(oidc.onUnauthenticated()).isEqualTo(OnUnauthenticated.AUTHENTICATE);
  }

  @Test
  void onlyAnHttpsListener_takesIt() {
    assertThat(messages(listener("HTTP", OIDC + "}, {type: forward, target-group: api}"))).containsExactly(
        R + "actions[0]: an authenticate-oidc action needs an HTTPS listener (this one is HTTP)");
  }

  @Test
  void itComesFirst_beforeExactlyOneRoutingAction_andNeverBesideJwtValidation() {
    assertThat(ruleMessages("{type: forward, target-group: api}, " + OIDC + "}")).containsExactly(
        R + "actions[1]: the authenticate-oidc action must come first, before the forward action");
    assertThat(ruleMessages(OIDC + "}")).containsExactly(
        R + "actions: an authenticate-oidc action must be followed by a forward, fixed-response or redirect action");
    assertThat(ruleMessages(OIDC + "}, {type: jwt-validation, jwks-endpoint: 'https://idp.example.com/jwks',"
        + " issuer: 'https://idp.example.com'}, {type: forward, target-group: api}")).containsExactly(
        R + "actions: 2 actions of types authenticate-oidc, jwt-validation: at most one jwt-validation or"
            + " authenticate-oidc action is allowed");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "issuer: 'http://idp.example.com' | issuer: 'http://idp.example.com' is not a full https:// URL (expected"
          + " https://host[:port]/path)",
      "authorization-endpoint: '' | authorization-endpoint: the authorization endpoint is required (a full https://"
          + " URL)",
      "token-endpoint: 'https:///token' | token-endpoint: 'https:///token' is not a full https:// URL (expected"
          + " https://host[:port]/path)",
      "user-info-endpoint: 'https://u:p@idp/userinfo' | user-info-endpoint: 'https://u:p@idp/userinfo' is not a full"
          + " https:// URL (expected https://host[:port]/path)",
      "client-id: '' | client-id: a client id is required",
      "client-secret: '' | client-secret: a client secret is required",
      "scope: '' | scope: a scope is 1-2048 printable ASCII characters (scopes separated by spaces)",
      "session-timeout: 0 | session-timeout: 0 is below the minimum 1",
      "session-timeout: 604801 | session-timeout: 604801 is above the maximum 604800",
      "session-timeout: a week | session-timeout: expected an integer, found 'a week'",
      "authentication-request-extra-params: {state: x} | authentication-request-extra-params.state: 'state' is set"
          + " by the load balancer (reserved: response_type, client_id, redirect_uri, scope, state)",
      "authentication-request-extra-params: [prompt] | authentication-request-extra-params: expected an object"
          + " (key: value lines), found a list",
      "on-unauthenticated-request: redirect | on-unauthenticated-request: 'redirect' is not one of: deny, allow,"
          + " authenticate",
      "client-secrets: x | client-secrets: unknown key (expected one of: type, issuer, authorization-endpoint,"
          + " token-endpoint, user-info-endpoint, client-id, client-secret, session-cookie-name, scope,"
          + " session-timeout, authentication-request-extra-params, on-unauthenticated-request)"})
  void aBadKey_isNamedAtItsKey(String key, String message) {
    assertThat(ruleMessages(override(key) + ", {type: forward, target-group: api}")).containsExactly(
        R + "actions[0]." + message);
  }

  @Test
  void aCookieName_isAnHttpToken() {
    assertThat(ruleMessages(override("session-cookie-name: 'my cookie'") + ", {type: forward, target-group: api}"))
        .containsExactly(R + "actions[0].session-cookie-name: 'my cookie' is not a cookie name (1-64 letters, digits"
            + " and !#$%&'*+.^_`|~-)");
  }

  @Test
  void everyRequiredKey_isNamedWhenMissing() {
    assertThat(ruleMessages("{type: authenticate-oidc}, {type: forward, target-group: api}")).containsExactly(
        R + "actions[0].issuer: the issuer is required (a full https:// URL)",
        R + "actions[0].authorization-endpoint: the authorization endpoint is required (a full https:// URL)",
        R + "actions[0].token-endpoint: the token endpoint is required (a full https:// URL)",
        R + "actions[0].user-info-endpoint: the user info endpoint is required (a full https:// URL)",
        R + "actions[0].client-id: a client id is required",
        R + "actions[0].client-secret: a client secret is required");
  }

  /** The required action with one key's value replaced (or added). */
  private static String override(String keyValue) {
    String key = keyValue.substring(0, keyValue.indexOf(':'));
    StringBuilder out = new StringBuilder("{type: authenticate-oidc");
    for (String part : OIDC.substring("{type: authenticate-oidc, ".length()).split(", ")) {
      if (!part.startsWith(key + ":")) {
        out.append(", ").append(part);
      }
    }
    return out.append(", ").append(keyValue).append('}').toString();
  }

  @Test
  void oidcCaCertificates_mustReadAsCertificates(@TempDir Path dir) throws Exception {
    Path junk = Files.writeString(dir.resolve("junk.pem"), "not a certificate");
    assertThat(messages("oidc: {ca-certificates: '" + dir.resolve("none.pem") + "'}\n")).singleElement().asString()
        .startsWith("oidc.ca-certificates: ");
    assertThat(messages("oidc: {ca-certificates: '" + junk + "'}\n")).singleElement().asString()
        .startsWith("oidc.ca-certificates: ");
    assertThat(messages("oidc: {ca-certificate: x}\n")).containsExactly(
        "oidc.ca-certificate: unknown key (expected one of: ca-certificates)");
    assertThat(parse(Configs.MINIMAL).oidc()).isEqualTo(FulcrumConfig.Oidc.DEFAULT);
  }
}
