package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.bodies;
import static io.fulcrum.api.LbApiHarness.body;
import static io.fulcrum.api.LbApiHarness.fixed;
import static io.fulcrum.api.LbApiHarness.forward;
import static io.fulcrum.api.LbApiHarness.get;
import static io.fulcrum.api.LbApiHarness.path;
import static io.fulcrum.api.LbApiHarness.send;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Action;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ActionTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.QueryStringKeyValuePair;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RedirectActionStatusCodeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RuleCondition;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RulePriorityPair;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroupTuple;

/**
 * Rules made through the API route the very next request, on either node: every condition type,
 * weighted forwards, fixed responses and redirects; priorities decide which rule wins.
 */
class RuleRoutingApiTest {

  @TempDir
  Path dir;

  private LbApiHarness h;
  private String listener;
  private int port;

  @BeforeEach
  void start() {
    h = LbApiHarness.start(dir);
    port = Ports.free();
    listener = h.createListener(h.createLoadBalancer("web"), port, fixed(404, "no rule"));
  }

  @AfterEach
  void stop() {
    h.close();
  }

  private String rule(int priority, String group, RuleCondition... conditions) {
    return h.createRule(listener, priority, forward(h.tg(group)), conditions);
  }

  @Test
  void pathPatternRule_routesTheNextRequest_onBothNodes() {
    assertThat(body("127.0.0.1", port, "/api/x")).isEqualTo("no rule");
    rule(10, "blue", path("/api/*"));

    assertThat(body("127.0.0.1", port, "/api/x")).isEqualTo("blue");
    assertThat(body("127.0.0.2", port, "/api/y")).isEqualTo("blue");
    assertThat(body("127.0.0.2", port, "/web")).isEqualTo("no rule");
  }

  @Test
  void legacyValuesForm_routesLikeTheTypedForm() {
    h.createRule(listener, 10, forward(h.tg("green")), RuleCondition.builder().field("path-pattern")
        .values("/old/*").build());
    assertThat(body("127.0.0.2", port, "/old/page")).isEqualTo("green");
  }

  @Test
  void hostHeaderRule_matchesTheHostCaseInsensitively() {
    rule(10, "green", RuleCondition.builder().field("host-header").hostHeaderConfig(c -> c.values("*.example.org"))
        .build());

    assertThat(get("127.0.0.1", port, "/", Map.of("Host", "API.Example.org")).bodyText()).isEqualTo("green");
    assertThat(get("127.0.0.1", port, "/", Map.of("Host", "example.com")).bodyText()).isEqualTo("no rule");
  }

  @Test
  void httpHeaderRule_matchesTheNamedHeader() {
    rule(10, "blue", RuleCondition.builder().field("http-header").httpHeaderConfig(c -> c.httpHeaderName("X-Canary")
        .values("yes")).build());

    assertThat(get("127.0.0.2", port, "/", Map.of("X-Canary", "yes")).bodyText()).isEqualTo("blue");
    assertThat(get("127.0.0.2", port, "/", Map.of("X-Canary", "no")).bodyText()).isEqualTo("no rule");
  }

  @Test
  void httpRequestMethodRule_matchesTheMethod() {
    rule(10, "green", RuleCondition.builder().field("http-request-method").httpRequestMethodConfig(c -> c
        .values("DELETE")).build());

    assertThat(send("DELETE", "127.0.0.1", port, "/item", Map.of()).bodyText()).isEqualTo("green");
    assertThat(send("GET", "127.0.0.1", port, "/item", Map.of()).bodyText()).isEqualTo("no rule");
  }

  @Test
  void queryStringRule_matchesAKeyValuePair_orAValueUnderAnyKey() {
    rule(10, "blue", RuleCondition.builder().field("query-string").queryStringConfig(c -> c.values(
        QueryStringKeyValuePair.builder().key("version").value("2").build())).build());
    rule(20, "green", RuleCondition.builder().field("query-string").queryStringConfig(c -> c.values(
        QueryStringKeyValuePair.builder().value("beta").build())).build());

    assertThat(body("127.0.0.1", port, "/?version=2")).isEqualTo("blue");
    assertThat(body("127.0.0.1", port, "/?channel=beta")).isEqualTo("green");
    assertThat(body("127.0.0.1", port, "/?version=1")).isEqualTo("no rule");
  }

  @Test
  void sourceIpRule_matchesTheClientAddress() {
    rule(10, "blue", RuleCondition.builder().field("source-ip").sourceIpConfig(c -> c.values("127.0.0.3/32")).build());
    Vertx clients = TestVertx.create();
    try (Http from3 = new Http(clients, "127.0.0.3"); Http from4 = new Http(clients, "127.0.0.4")) {
      assertThat(from3.get("127.0.0.1", port, "/", Map.of()).body()).isEqualTo("blue");
      assertThat(from4.get("127.0.0.1", port, "/", Map.of()).body()).isEqualTo("no rule");
    } finally {
      clients.close();
    }
  }

  @Test
  void weightedForwardRule_sendsNothingToAGroupOfWeightZero_andSpreadsOverTheOthers() {
    h.createRule(listener, 10, Action.builder().type(ActionTypeEnum.FORWARD).forwardConfig(c -> c.targetGroups(
        TargetGroupTuple.builder().targetGroupArn(h.tg("blue")).weight(0).build(),
        TargetGroupTuple.builder().targetGroupArn(h.tg("green")).weight(5).build())).build(), path("/zero"));
    h.createRule(listener, 20, Action.builder().type(ActionTypeEnum.FORWARD).forwardConfig(c -> c.targetGroups(
        TargetGroupTuple.builder().targetGroupArn(h.tg("blue")).weight(1).build(),
        TargetGroupTuple.builder().targetGroupArn(h.tg("green")).weight(1).build())).build(), path("/even"));

    assertThat(bodies("127.0.0.1", port, "/zero", 20)).containsOnly("green");
    assertThat(bodies("127.0.0.2", port, "/even", 60)).contains("blue", "green");
  }

  @Test
  void fixedResponseAndRedirectRules_areAnsweredByTheLoadBalancer() {
    h.createRule(listener, 10, fixed(200, "pong"), path("/ping"));
    h.createRule(listener, 20, Action.builder().type(ActionTypeEnum.REDIRECT).redirectConfig(c -> c.host("new.#{host}")
        .path("/v2/#{path}").statusCode(RedirectActionStatusCodeEnum.HTTP_302)).build(), path("/v1/*"));

    RawConnection.Response pong = get("127.0.0.2", port, "/ping");
    assertThat(pong.status()).isEqualTo(200);
    assertThat(pong.bodyText()).isEqualTo("pong");
    RawConnection.Response moved = get("127.0.0.1", port, "/v1/users?id=7");
    assertThat(moved.status()).isEqualTo(302);
    assertThat(moved.header("Location")).isEqualTo("http://new.example.com:" + port + "/v2/v1/users?id=7");
  }

  @Test
  void setRulePriorities_changesWhichRuleWins() {
    String blue = rule(1, "blue", path("/shared/*"));
    String green = rule(2, "green", path("/shared/*"));
    assertThat(body("127.0.0.1", port, "/shared/a")).isEqualTo("blue");

    h.elb.setRulePriorities(b -> b.rulePriorities(RulePriorityPair.builder().ruleArn(blue).priority(2).build(),
        RulePriorityPair.builder().ruleArn(green).priority(1).build()));

    assertThat(body("127.0.0.1", port, "/shared/a")).isEqualTo("green");
    assertThat(body("127.0.0.2", port, "/shared/b")).isEqualTo("green");
  }

  @Test
  void modifyRuleAndDeleteRule_changeRoutingForTheNextRequest() {
    String arn = rule(10, "blue", path("/a"));
    h.elb.modifyRule(b -> b.ruleArn(arn).actions(forward(h.tg("green"))));
    assertThat(body("127.0.0.1", port, "/a")).isEqualTo("green");

    h.elb.modifyRule(b -> b.ruleArn(arn).conditions(path("/b")));
    assertThat(body("127.0.0.1", port, "/a")).isEqualTo("no rule");
    assertThat(body("127.0.0.1", port, "/b")).isEqualTo("green");

    h.elb.deleteRule(b -> b.ruleArn(arn));
    assertThat(body("127.0.0.2", port, "/b")).isEqualTo("no rule");
  }

  @Test
  void regexValues_routeByRegularExpression_andAreDescribed() {
    String arn = rule(10, "blue", RuleCondition.builder().field("path-pattern")
        .pathPatternConfig(c -> c.regexValues("^/api/v[0-9]+/")).build(),
        RuleCondition.builder().field("http-header")
            .httpHeaderConfig(c -> c.httpHeaderName("X-Client").regexValues("^mobile-")).build());

    assertThat(get("127.0.0.1", port, "/api/v2/x", Map.of("X-Client", "mobile-ios")).bodyText()).isEqualTo("blue");
    assertThat(get("127.0.0.1", port, "/api/vX/x", Map.of("X-Client", "mobile-ios")).bodyText()).isEqualTo("no rule");
    assertThat(get("127.0.0.1", port, "/api/v2/x", Map.of("X-Client", "web")).bodyText()).isEqualTo("no rule");
    var conditions = h.elb.describeRules(b -> b.ruleArns(arn)).rules().get(0).conditions();
    assertThat(conditions.get(0).pathPatternConfig().regexValues()).containsExactly("^/api/v[0-9]+/");
    assertThat(conditions.get(1).httpHeaderConfig().regexValues()).containsExactly("^mobile-");
    assertThat(conditions.get(1).httpHeaderConfig().httpHeaderName()).isEqualTo("X-Client");
  }

  @Test
  void transforms_rewriteWhatTheTargetGets_areDescribed_andResetTransformsRemovesThem() {
    String arn = h.elb.createRule(b -> b.listenerArn(listener).priority(10).conditions(path("/shop/*"))
        .actions(forward(h.tg("blue")))
        .transforms(t -> t.type("url-rewrite").urlRewriteConfig(u -> u.rewrites(r -> r.regex("^/shop/(.*)$")
            .replace("/store/$1"))),
            t -> t.type("host-header-rewrite").hostHeaderRewriteConfig(c -> c.rewrites(r -> r.regex("^www\\.")
                .replace("origin."))))).rules().get(0).ruleArn();

    assertThat(get("127.0.0.1", port, "/shop/cart?id=1", Map.of("Host", "www.example.com")).bodyText())
        .isEqualTo("blue");
    assertThat(h.blue.lastRequest().getString("uri")).isEqualTo("/store/cart?id=1");
    assertThat(h.blue.lastRequest().getJsonObject("headers").getString("host")).isEqualTo("origin.example.com:" + port);
    var described = h.elb.describeRules(b -> b.ruleArns(arn)).rules().get(0).transforms();
    assertThat(described).extracting(t -> t.typeAsString()).containsExactly("url-rewrite", "host-header-rewrite");
    assertThat(described.get(0).urlRewriteConfig().rewrites().get(0).replace()).isEqualTo("/store/$1");
    assertThat(described.get(1).hostHeaderRewriteConfig().rewrites().get(0).regex()).isEqualTo("^www\\.");

    h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(arn).transforms(t -> t.type("url-rewrite")
        .urlRewriteConfig(u -> u.rewrites(r -> r.regex("^/(?=shop)").replace("/"))))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(arn).transforms(t -> t.type("url-rewrite")
        .urlRewriteConfig(u -> u.rewrites(r -> r.regex("^/(a)").replace("/$2"))))), "ValidationError");
    h.elb.modifyRule(b -> b.ruleArn(arn).actions(forward(h.tg("green"))));
    assertThat(h.elb.describeRules(b -> b.ruleArns(arn)).rules().get(0).transforms())
        .as("a change that names none keeps them").hasSize(2);
    h.elb.modifyRule(b -> b.ruleArn(arn).resetTransforms(true));
    assertThat(get("127.0.0.1", port, "/shop/cart", Map.of("Host", "www.example.com")).bodyText()).isEqualTo("green");
    assertThat(h.green.lastRequest().getString("uri")).isEqualTo("/shop/cart");
    assertThat(h.elb.describeRules(b -> b.ruleArns(arn)).rules().get(0).transforms()).isEmpty();
  }

  @Test
  void refusedRule_changesNoRouting() {
    rule(10, "blue", path("/a"));
    h.refusedUnchanged(() -> rule(10, "green", path("/a", "/b")), "PriorityInUse");
    h.refusedUnchanged(() -> h.createRule(listener, 5, forward(h.tg("green")), path("/a"),
        RuleCondition.builder().field("source-ip").sourceIpConfig(c -> c.values("300.0.0.1/32")).build()),
        "ValidationError");

    assertThat(body("127.0.0.1", port, "/a")).isEqualTo("blue");
    assertThat(body("127.0.0.1", port, "/b")).isEqualTo("no rule");
  }
}
