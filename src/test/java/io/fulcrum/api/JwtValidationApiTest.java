package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.path;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Arns;
import io.fulcrum.testing.JwksServer;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestJwts;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.tls.SelfSignedCertificate;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Action;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ActionTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.JwtValidationActionAdditionalClaim;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.JwtValidationActionAdditionalClaimFormatEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.JwtValidationActionConfig;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ProtocolEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Rule;

/**
 * The jwt-validation action through the real AWS SDK: a rule created with it (Order 1) before its
 * forward (Order 2) is described as given and guards the path with a real JWKS endpoint; a rule
 * changed to forward only lets requests through; what ALB refuses is refused with its codes,
 * changing nothing.
 */
class JwtValidationApiTest {

  private static final Arns ARNS = new Arns("us-east-1", "000000000000");
  private static final String ISSUER = "https://issuer.example.com";
  private static final TestJwts.Key KEY = TestJwts.Key.rsa("k1");

  @TempDir
  Path dir;
  @TempDir
  Path idpDir;
  private final Vertx vertx = TestVertx.create();
  private LbApiHarness h;
  private JwksServer idp;

  @AfterEach
  void close() {
    if (h != null) {
      h.close();
    }
    vertx.close();
  }

  private Action jwt(int order, JwtValidationActionAdditionalClaim... claims) {
    return Action.builder().type(ActionTypeEnum.JWT_VALIDATION).order(order)
        .jwtValidationConfig(JwtValidationActionConfig.builder().jwksEndpoint(idp.origin() + "/jwks").issuer(ISSUER)
            .additionalClaims(claims).build()).build();
  }

  private static Action forward(String tg) {
    return LbApiHarness.forward(tg);
  }

  private static Action forward(String tg, int order) {
    return LbApiHarness.forward(tg).toBuilder().order(order).build();
  }

  private int get(int port, String path, String token) throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(TestCertificates.trusting(
        TestCertificates.read(dir.resolve("tls").resolve(SelfSignedCertificate.CERT_FILE)))).build();
    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10));
    if (token != null) {
      r.header("Authorization", "Bearer " + token);
    }
    return client.send(r.build(), HttpResponse.BodyHandlers.discarding()).statusCode();
  }

  @Test
  void aRuleWithJwtValidation_isDescribedAsGiven_guardsItsPath_andCanBeChangedToForwardOnly() throws Exception {
    idp = JwksServer.start(vertx, idpDir, TestJwts.jwks(KEY));
    h = LbApiHarness.start(dir, "jwks: {ca-certificates: '" + idp.caFile() + "'}\n", 1);
    String lb = h.createLoadBalancer("secure");
    int port = Ports.free();
    String listener = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(port)
        .certificates(c -> c.certificateArn(ARNS.selfSignedCertificate())).defaultActions(forward(h.tg("blue"))))
        .listeners().get(0).listenerArn();
    JwtValidationActionAdditionalClaim scope = JwtValidationActionAdditionalClaim.builder()
        .format(JwtValidationActionAdditionalClaimFormatEnum.SPACE_SEPARATED_VALUES).name("scope")
        .values("orders:read", "orders:admin").build();
    // Given in the other order: Order decides.
    Rule created = h.elb.createRule(b -> b.listenerArn(listener).priority(10).conditions(path("/api/*"))
        .actions(forward(h.tg("green"), 2), jwt(1, scope))).rules().get(0);

    Rule described = h.elb.describeRules(b -> b.ruleArns(created.ruleArn())).rules().get(0);
    assertThat(described.actions()).extracting(Action::typeAsString, Action::order)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("jwt-validation", 1),
            org.assertj.core.groups.Tuple.tuple("forward", 2));
    JwtValidationActionConfig config = described.actions().get(0).jwtValidationConfig();
    assertThat(config.jwksEndpoint()).isEqualTo(idp.origin() + "/jwks");
    assertThat(config.issuer()).isEqualTo(ISSUER);
    assertThat(config.additionalClaims()).containsExactly(scope);

    long now = System.currentTimeMillis();
    String token = KEY.sign(TestJwts.claims(ISSUER, now).put("scope", "orders:read"));
    String wrongScope = KEY.sign(TestJwts.claims(ISSUER, now).put("scope", "profile"));
    assertThat(get(port, "/api/orders", null)).isEqualTo(401);
    assertThat(get(port, "/api/orders", wrongScope)).isEqualTo(401);
    assertThat(get(port, "/api/orders", token)).isEqualTo(200);
    assertThat(h.green.trafficHits()).isEqualTo(1);
    assertThat(get(port, "/elsewhere", null)).as("the default action needs no token").isEqualTo(200);

    h.elb.modifyRule(b -> b.ruleArn(created.ruleArn()).actions(forward(h.tg("green"))));
    assertThat(h.elb.describeRules(b -> b.ruleArns(created.ruleArn())).rules().get(0).actions())
        .extracting(Action::typeAsString).containsExactly("forward");
    assertThat(get(port, "/api/orders", null)).isEqualTo(200);
  }

  @Test
  void whatAlbRefuses_isRefusedWithItsCodes_changingNothing() {
    idp = JwksServer.start(vertx, idpDir, TestJwts.jwks(KEY));
    h = LbApiHarness.start(dir, "", 1);
    String lb = h.createLoadBalancer("guarded");
    String https = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTPS).port(Ports.free())
        .certificates(c -> c.certificateArn(ARNS.selfSignedCertificate())).defaultActions(forward(h.tg("blue"))))
        .listeners().get(0).listenerArn();
    String http = h.elb.createListener(b -> b.loadBalancerArn(lb).protocol(ProtocolEnum.HTTP).port(Ports.free())
        .defaultActions(forward(h.tg("blue")))).listeners().get(0).listenerArn();
    String blue = h.tg("blue");

    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(http).priority(1).conditions(path("/a"))
        .actions(jwt(1), forward(blue, 2))), "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(forward(blue, 1), jwt(2))), "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(jwt(1))), "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(jwt(1), forward(blue, 2), LbApiHarness.fixed(200, "x").toBuilder().order(3).build())),
        "InvalidLoadBalancerAction");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(jwt(1), forward(blue, 1))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(jwt(1).toBuilder().order(null).build(), forward(blue))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(jwt(1, JwtValidationActionAdditionalClaim.builder().format("single-string").name("exp")
            .values("1").build()), forward(blue, 2))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(jwt(1).toBuilder().jwtValidationConfig(c -> c.jwksEndpoint("http://idp.example/jwks")
            .issuer(ISSUER)).build(), forward(blue, 2))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a"))
        .actions(jwt(1, JwtValidationActionAdditionalClaim.builder().format("space-separated-values").name("scope")
            .values("a b").build()), forward(blue, 2))), "ValidationError");

    h.elb.createRule(b -> b.listenerArn(https).priority(1).conditions(path("/a")).actions(jwt(1), forward(blue, 2)));
    assertThat(h.refusedUnchanged(() -> h.elb.modifyListener(b -> b.listenerArn(https).protocol(ProtocolEnum.HTTP)),
        "InvalidLoadBalancerAction").awsErrorDetails().errorMessage()).contains("needs an HTTPS listener");
  }
}
