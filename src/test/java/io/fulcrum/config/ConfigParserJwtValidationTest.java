package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.withListener;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Action;
import io.fulcrum.model.JwtValidation;
import io.fulcrum.model.JwtValidation.Claim;
import io.fulcrum.model.JwtValidation.ClaimFormat;
import io.fulcrum.model.Rule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The jwt-validation action in the config file, and the {@code jwks} settings. */
class ConfigParserJwtValidationTest {

  private static final String L = "load-balancers[0].listeners[0].";
  private static final String R = L + "rules[0].";
  private static final String JWT = "{type: jwt-validation, jwks-endpoint: 'https://idp.example.com/jwks',"
      + " issuer: 'https://idp.example.com'";

  private static String listener(String protocol, String actions) {
    return withListener("""
        - protocol: %s
          port: 8443
          default-actions: [{type: forward, target-group: web}]
          rules:
            - priority: 1
              conditions: [{field: path-pattern, values: [/api/*]}]
              actions: [%s]
        """.formatted(protocol, actions));
  }

  private static List<String> ruleMessages(String actions) {
    return messages(listener("HTTPS", actions));
  }

  @Test
  void aRuleWithJwtValidation_thenForward_isRead() {
    Rule rule = parse(listener("HTTPS", JWT + ", additional-claims: [{name: scope, format: space-separated-values,"
        + " values: [orders:read, orders:admin]}, {name: aud, format: string-array, values: [api]}]},"
        + " {type: forward, target-group: api}")).resources().loadBalancers().get(0).listeners().get(0).rules().get(0);
    assertThat(rule.actions()).hasSize(2);
    assertThat(rule.actions().get(0)).isEqualTo(new JwtValidation("https://idp.example.com/jwks",
        "https://idp.example.com", List.of(
            new Claim("scope", ClaimFormat.SPACE_SEPARATED_VALUES, List.of("orders:read", "orders:admin")),
            new Claim("aud", ClaimFormat.STRING_ARRAY, List.of("api")))));
    assertThat(rule.actions().get(1)).isInstanceOf(Action.Forward.class);
  }

  @Test
  void onlyAnHttpsListener_takesIt() {
    assertThat(messages(listener("HTTP", JWT + "}, {type: forward, target-group: api}"))).containsExactly(
        R + "actions[0]: a jwt-validation action needs an HTTPS listener (this one is HTTP)");
  }

  @Test
  void itComesFirst_beforeExactlyOneRoutingAction() {
    assertThat(ruleMessages("{type: forward, target-group: api}, " + JWT + "}")).containsExactly(
        R + "actions[1]: the jwt-validation action must come first, before the forward action");
    assertThat(ruleMessages(JWT + "}")).containsExactly(
        R + "actions: a jwt-validation action must be followed by a forward, fixed-response or redirect action");
    assertThat(ruleMessages(JWT + "}, " + JWT + "}, {type: forward, target-group: api}")).containsExactly(
        R + "actions: 2 actions of types jwt-validation, jwt-validation: at most one jwt-validation or authenticate-oidc action is allowed");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{type: jwt-validation, issuer: i} | actions[0].jwks-endpoint: a JWKS endpoint is required (an https:// URL)",
      "{type: jwt-validation, jwks-endpoint: 'http://idp/jwks', issuer: i} | actions[0].jwks-endpoint:"
          + " 'http://idp/jwks' is not a full https:// URL (expected https://host[:port]/path)",
      "{type: jwt-validation, jwks-endpoint: 'https:///jwks', issuer: i} | actions[0].jwks-endpoint:"
          + " 'https:///jwks' is not a full https:// URL (expected https://host[:port]/path)",
      "{type: jwt-validation, jwks-endpoint: 'https://idp/jwks'} | actions[0].issuer: an issuer is required (the iss"
          + " claim tokens must have)",
      "{type: jwt-validation, jwks-endpoint: 'https://idp/jwks', issuer: i, additional-claims: [{name: exp, format:"
          + " single-string, values: [x]}]} | actions[0].additional-claims[0].name: 'exp' is validated always; an"
          + " additional claim cannot name exp, iss, nbf or iat",
      "{type: jwt-validation, jwks-endpoint: 'https://idp/jwks', issuer: i, additional-claims: [{name: scope, format:"
          + " words, values: [x]}]} | actions[0].additional-claims[0].format: 'words' is not one of: single-string,"
          + " string-array, space-separated-values",
      "{type: jwt-validation, jwks-endpoint: 'https://idp/jwks', issuer: i, additional-claims: [{name: scope, format:"
          + " space-separated-values, values: ['a b']}]} | actions[0].additional-claims[0].values[0]: 'a b' holds a"
          + " space, which space-separated-values cannot match",
      "{type: jwt-validation, jwks-endpoint: 'https://idp/jwks', issuer: i, additional-claims: [{name: scope, format:"
          + " single-string, values: []}]} | actions[0].additional-claims[0].values: 0 values is outside 1-10",
      "{type: jwt-validation, jwks-endpoint: 'https://idp/jwks', issuer: i, additional-claims: [{name: a, format:"
          + " single-string, values: [x]}, {name: a, format: single-string, values: [y]}]} |"
          + " actions[0].additional-claims[1].name: claim 'a' appears twice"})
  void aBadAction_isNamedAtItsKey(String action, String message) {
    assertThat(ruleMessages(action + ", {type: forward, target-group: api}")).containsExactly(R + message);
  }

  @Test
  void jwksCaCertificates_mustReadAsCertificates(@TempDir Path dir) throws Exception {
    Path junk = Files.writeString(dir.resolve("junk.pem"), "not a certificate");
    assertThat(messages("jwks: {ca-certificates: '" + dir.resolve("none.pem") + "'}\n")).singleElement().asString()
        .startsWith("jwks.ca-certificates: ");
    assertThat(messages("jwks: {ca-certificates: '" + junk + "'}\n")).singleElement().asString()
        .startsWith("jwks.ca-certificates: ");
    assertThat(messages("jwks: {ca-certificate: x}\n")).containsExactly(
        "jwks.ca-certificate: unknown key (expected one of: ca-certificates)");
    assertThat(parse(Configs.MINIMAL).jwks()).isEqualTo(FulcrumConfig.Jwks.DEFAULT);
  }
}
