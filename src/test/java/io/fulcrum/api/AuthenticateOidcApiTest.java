package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Arns;
import io.fulcrum.model.AuthenticateOidc;
import io.fulcrum.testing.Ports;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Action;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ActionTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.AuthenticateOidcActionConditionalBehaviorEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.AuthenticateOidcActionConfig;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.JwtValidationActionConfig;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Rule;

/**
 * The authenticate-oidc action through the real AWS SDK: a rule created with it (Order 1) before
 * its forward (Order 2) is described with every field but the client secret, which the registry
 * and the state file keep; {@code UseExistingClientSecret} keeps it through ModifyRule and
 * ModifyListener; what ALB refuses is refused with its codes, changing nothing.
 */
class AuthenticateOidcApiTest {

  private static final Arns ARNS = new Arns("us-east-1", "000000000000");
  private static final String IDP = "https://idp.example.com";
  private static final String SECRET = "s3cret-of-the-client";

  @TempDir
  Path dir;
  private LbApiHarness h;
  private String https;
  private String http;

  @BeforeEach
  void start() {
    h = LbApiHarness.start(dir);
    String lb = h.createLoadBalancer("signed-in");
    https = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(Ports.free())
        .certificates(c -> c.certificateArn(ARNS.selfSignedCertificate())).defaultActions(forward(h.tg("blue"))))
        .listeners().get(0).listenerArn();
    http = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(Ports.free())
        .defaultActions(forward(h.tg("blue")))).listeners().get(0).listenerArn();
  }

  @AfterEach
  void close() {
    h.close();
  }

  /** Every required field, with the secret; tests change the rest through {@code toBuilder()}. */
  private static AuthenticateOidcActionConfig config() {
    return AuthenticateOidcActionConfig.builder().issuer(IDP).authorizationEndpoint(IDP + "/authorize")
        .tokenEndpoint(IDP + "/token").userInfoEndpoint(IDP + "/userinfo").clientId("fulcrum").clientSecret(SECRET)
        .build();
  }

  private static Action oidc(int order, AuthenticateOidcActionConfig config) {
    return Action.builder().type(ActionTypeEnum.AUTHENTICATE_OIDC).order(order).authenticateOidcConfig(config).build();
  }

  private static Action forward(String tg) {
    return LbApiHarness.forward(tg);
  }

  private static Action forward(String tg, int order) {
    return LbApiHarness.forward(tg).toBuilder().order(order).build();
  }

  /** The authenticate-oidc action the registry holds first in the rule. */
  private AuthenticateOidc held(String ruleArn) {
    return (AuthenticateOidc) h.resources().loadBalancers().stream().flatMap(lb -> lb.listeners().stream())
        .flatMap(l -> l.rules().stream()).filter(r -> r.arn().equals(ruleArn)).findFirst().orElseThrow()
        .actions().get(0);
  }

  private String stateFile() {
    return new String(h.state(), StandardCharsets.UTF_8);
  }

  @Test
  void aRuleWithAuthenticateOidc_isDescribedWithEveryFieldButTheSecret_whichItKeeps() {
    Map<String, String> extra = new LinkedHashMap<>();
    extra.put("prompt", "login");
    extra.put("acr_values", "urn:mace:incommon:iap:silver");
    // Given in the other order: Order decides.
    Rule created = h.elb.createRule(b -> b.listenerArn(https).priority(10).conditions(path("/app/*"))
        .actions(forward(h.tg("green"), 2), oidc(1, config().toBuilder().sessionCookieName("AppSession")
            .scope("openid email").sessionTimeout(3600L).authenticationRequestExtraParams(extra)
            .onUnauthenticatedRequest(AuthenticateOidcActionConditionalBehaviorEnum.DENY).build()))).rules().get(0);

    Rule described = h.elb.describeRules(b -> b.ruleArns(created.ruleArn())).rules().get(0);
    assertThat(described.actions()).extracting(Action::typeAsString, Action::order)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("authenticate-oidc", 1),
            org.assertj.core.groups.Tuple.tuple("forward", 2));
    AuthenticateOidcActionConfig c = described.actions().get(0).authenticateOidcConfig();
    assertThat(c.issuer()).isEqualTo(IDP);
    assertThat(c.authorizationEndpoint()).isEqualTo(IDP + "/authorize");
    assertThat(c.tokenEndpoint()).isEqualTo(IDP + "/token");
    assertThat(c.userInfoEndpoint()).isEqualTo(IDP + "/userinfo");
    assertThat(c.clientId()).isEqualTo("fulcrum");
    assertThat(c.clientSecret()).as("ALB never describes the secret").isNull();
    assertThat(c.sessionCookieName()).isEqualTo("AppSession");
    assertThat(c.scope()).isEqualTo("openid email");
    assertThat(c.sessionTimeout()).isEqualTo(3600L);
    assertThat(c.authenticationRequestExtraParams()).isEqualTo(extra);
    assertThat(c.onUnauthenticatedRequest()).isEqualTo(AuthenticateOidcActionConditionalBehaviorEnum.DENY);
    assertThat(held(created.ruleArn()).clientSecret()).isEqualTo(SECRET);
    assertThat(held(created.ruleArn()).extraParams().keySet()).containsExactly("prompt", "acr_values");
    assertThat(stateFile()).as("the state file is private to the process: it keeps the secret").contains(SECRET);

    // ALB's defaults, described as such.
    Rule plain = h.elb.createRule(b -> b.listenerArn(https).priority(11).conditions(path("/plain/*"))
        .actions(oidc(1, config()), forward(h.tg("green"), 2))).rules().get(0);
    AuthenticateOidcActionConfig d = plain.actions().get(0).authenticateOidcConfig();
    assertThat(d.sessionCookieName()).isEqualTo("AWSELBAuthSessionCookie");
    assertThat(d.scope()).isEqualTo("openid");
    assertThat(d.sessionTimeout()).isEqualTo(604_800L);
    assertThat(d.hasAuthenticationRequestExtraParams()).isFalse();
    assertThat(d.onUnauthenticatedRequest()).isEqualTo(AuthenticateOidcActionConditionalBehaviorEnum.AUTHENTICATE);
  }

  @Test
  void modifyRule_withUseExistingClientSecret_keepsTheSecret_andWithNeitherIsRefused() {
    Rule created = h.elb.createRule(b -> b.listenerArn(https).priority(10).conditions(path("/app/*"))
        .actions(oidc(1, config()), forward(h.tg("green"), 2))).rules().get(0);

    h.elb.modifyRule(b -> b.ruleArn(created.ruleArn()).actions(oidc(1, config().toBuilder().clientSecret(null)
        .useExistingClientSecret(true).scope("openid profile").build()), forward(h.tg("blue"), 2)));
    AuthenticateOidc kept = held(created.ruleArn());
    assertThat(kept.clientSecret()).isEqualTo(SECRET);
    assertThat(kept.scope()).isEqualTo("openid profile");
    assertThat(h.elb.describeRules(b -> b.ruleArns(created.ruleArn())).rules().get(0).actions().get(0)
        .authenticateOidcConfig().scope()).isEqualTo("openid profile");

    // A secret given wins over UseExistingClientSecret.
    h.elb.modifyRule(b -> b.ruleArn(created.ruleArn()).actions(oidc(1, config().toBuilder().clientSecret("rotated")
        .useExistingClientSecret(true).build()), forward(h.tg("blue"), 2)));
    assertThat(held(created.ruleArn()).clientSecret()).isEqualTo("rotated");

    String message = h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(created.ruleArn())
        .actions(oidc(1, config().toBuilder().clientSecret(null).build()), forward(h.tg("blue"), 2))),
        "ValidationError").awsErrorDetails().errorMessage();
    assertThat(message).contains("AuthenticateOidcConfig.ClientSecret");
    h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(created.ruleArn())
        .actions(oidc(1, config().toBuilder().clientSecret(null).useExistingClientSecret(false).build()),
            forward(h.tg("blue"), 2))), "ValidationError");

    // Nothing to keep: the rule has no authenticate-oidc action now.
    String other = h.createRule(https, 20, forward(h.tg("blue")), path("/other"));
    assertThat(h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(other).actions(oidc(1, config().toBuilder()
        .clientSecret(null).useExistingClientSecret(true).build()), forward(h.tg("blue"), 2))), "ValidationError")
        .awsErrorDetails().errorMessage()).contains("ClientSecret");
    // Nor on a create.
    assertThat(h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(30)
        .conditions(path("/new")).actions(oidc(1, config().toBuilder().clientSecret(null)
            .useExistingClientSecret(true).build()), forward(h.tg("blue"), 2))), "ValidationError")
        .awsErrorDetails().errorMessage()).contains("ClientSecret");
  }

  @Test
  void modifyListener_withUseExistingClientSecret_keepsTheDefaultActionsSecret() {
    h.elb.modifyListener(b -> b.listenerArn(https).defaultActions(oidc(1, config()), forward(h.tg("blue"), 2)));
    h.elb.modifyListener(b -> b.listenerArn(https).defaultActions(oidc(1, config().toBuilder().clientSecret(null)
        .useExistingClientSecret(true).clientId("other-client").build()), forward(h.tg("green"), 2)));

    AuthenticateOidcActionConfig described = h.elb.describeListeners(b -> b.listenerArns(https)).listeners().get(0)
        .defaultActions().get(0).authenticateOidcConfig();
    assertThat(described.clientId()).isEqualTo("other-client");
    assertThat(described.clientSecret()).isNull();
    AuthenticateOidc held = (AuthenticateOidc) h.resources().loadBalancers().get(0).listeners().stream()
        .filter(l -> l.arn().equals(https)).findFirst().orElseThrow().defaultActions().get(0);
    assertThat(held.clientSecret()).isEqualTo(SECRET);
    assertThat(held.clientId()).isEqualTo("other-client");

    h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(http).defaultActions(oidc(1, config()
        .toBuilder().clientSecret(null).useExistingClientSecret(true).build()), forward(h.tg("blue"), 2))),
        "ValidationError");
  }

  @Test
  void whatAlbRefuses_isRefusedWithItsCodes_changingNothing() {
    String blue = h.tg("blue");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(http).priority(1).conditions(path("/a"))
        .actions(oidc(1, config()), forward(blue, 2))), "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(forward(blue, 1), oidc(2, config()))), "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config()))), "InvalidLoadBalancerAction");
    Action jwt = Action.builder().type(ActionTypeEnum.JWT_VALIDATION).order(2).jwtValidationConfig(
        JwtValidationActionConfig.builder().jwksEndpoint(IDP + "/jwks").issuer(IDP).build()).build();
    assertThat(h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config()), jwt, forward(blue, 3))), "InvalidLoadBalancerAction").awsErrorDetails()
        .errorMessage()).contains("at most one jwt-validation or authenticate-oidc action");

    assertThat(h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config().toBuilder().onUnauthenticatedRequest("bogus").build()), forward(blue, 2))),
        "ValidationError").awsErrorDetails().errorMessage()).contains("'bogus'")
        .contains("actions.1.member.authenticateOidcConfig.onUnauthenticatedRequest")
        .contains("[deny, allow, authenticate]");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config().toBuilder().clientSecret(null).build()), forward(blue, 2))), "ValidationError");
    assertThat(h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config().toBuilder().tokenEndpoint("http://idp.example.com/token").build()),
            forward(blue, 2))), "ValidationError").awsErrorDetails().errorMessage())
        .startsWith("Actions.member.1.AuthenticateOidcConfig.TokenEndpoint: ");
    assertThat(h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config().toBuilder().sessionTimeout(604_801L).build()), forward(blue, 2))),
        "ValidationError").awsErrorDetails().errorMessage())
        .isEqualTo("Actions.member.1.AuthenticateOidcConfig.SessionTimeout: 604801 is above the maximum 604800");
    assertThat(h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config().toBuilder().authenticationRequestExtraParams(Map.of("redirect_uri", "x")).build()),
            forward(blue, 2))), "ValidationError").awsErrorDetails().errorMessage())
        .startsWith("Actions.member.1.AuthenticateOidcConfig.AuthenticationRequestExtraParams.redirect_uri: ");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(Action.builder().type(ActionTypeEnum.AUTHENTICATE_OIDC).order(1).build(), forward(blue, 2))),
        "ValidationError");

    assertThat(h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(Action.builder().type(ActionTypeEnum.AUTHENTICATE_COGNITO).order(1).build(), forward(blue, 2))),
        "InvalidLoadBalancerAction").awsErrorDetails().errorMessage())
        .contains("'authenticate-cognito' actions are not supported by Fulcrum");

    h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(oidc(1, config()), forward(blue, 2)));
    assertThat(h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(https).protocol(ProtocolEnum.HTTP)),
        "InvalidLoadBalancerAction").awsErrorDetails().errorMessage())
        .contains("an authenticate-oidc action needs an HTTPS listener");
  }
}
