package io.fulcrum.api;

import static io.fulcrum.api.LbApiHarness.fixed;
import static io.fulcrum.api.LbApiHarness.forward;
import static io.fulcrum.api.LbApiHarness.path;
import static io.fulcrum.api.LbApiHarness.refused;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.fulcrum.testing.Ports;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Action;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.ActionTypeEnum;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.DescribeRulesResponse;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.QueryStringKeyValuePair;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.Rule;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RuleCondition;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.RulePriorityPair;
import software.amazon.awssdk.services.elasticloadbalancingv2.model.TargetGroupTuple;

/** CreateRule, DescribeRules, ModifyRule, DeleteRule and SetRulePriorities through the AWS SDK. */
class RuleApiTest {

  @TempDir
  Path dir;

  private LbApiHarness h;
  private String listener;

  @AfterEach
  void stop() {
    if (h != null) {
      h.close();
    }
  }

  private void start(String extraYaml) {
    h = LbApiHarness.start(dir, extraYaml, 1);
    listener = h.createListener(h.createLoadBalancer("web"), Ports.free(), fixed(404, "no rule"));
  }

  private void start() {
    start("");
  }

  private static RuleCondition condition(String field, java.util.function.Consumer<RuleCondition.Builder> config) {
    RuleCondition.Builder b = RuleCondition.builder().field(field);
    config.accept(b);
    return b.build();
  }

  private static RulePriorityPair pair(String arn, int priority) {
    return RulePriorityPair.builder().ruleArn(arn).priority(priority).build();
  }

  private List<Rule> rules() {
    return h.elb.describeRules(b -> b.listenerArn(listener)).rules();
  }

  @Test
  void createRule_isDescribedWithItsConditionsInBothForms_andTheDefaultRuleComesLast() {
    start();
    Rule first = h.elb.createRule(b -> b.listenerArn(listener).priority(20).actions(forward(h.tg("blue"))).conditions(
        path("/api/*"),
        RuleCondition.builder().field("host-header").values("api.example.com").build(),
        condition("http-header", c -> c.httpHeaderConfig(x -> x.httpHeaderName("X-Env").values("prod"))),
        condition("http-request-method", c -> c.httpRequestMethodConfig(x -> x.values("GET"))),
        condition("query-string", c -> c.queryStringConfig(x -> x.values(QueryStringKeyValuePair.builder()
            .key("v").value("2").build()))))).rules().get(0);
    String second = h.createRule(listener, 10, fixed(200, "ok"),
        condition("source-ip", c -> c.sourceIpConfig(x -> x.values("10.0.0.0/8", "192.168.1.1/32"))));

    List<Rule> rules = rules();
    assertThat(rules).extracting(Rule::ruleArn, Rule::priority, Rule::isDefault).containsExactly(
        tuple(second, "10", false), tuple(first.ruleArn(), "20", false),
        tuple(LbResources.defaultRuleArn(h.gateway.fulcrum().registry().environment(),
            h.resources().loadBalancers().get(0), h.resources().loadBalancers().get(0).listeners().get(0)), "default",
            true));
    assertThat(first.ruleArn()).matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:listener-rule/app/web/"
        + "[0-9a-f]{16}/[0-9a-f]{16}/[0-9a-f]{16}");
    assertThat(rules.get(1)).isEqualTo(first);
    List<RuleCondition> c = first.conditions();
    assertThat(c.get(0).values()).containsExactly("/api/*");
    assertThat(c.get(0).pathPatternConfig().values()).containsExactly("/api/*");
    assertThat(c.get(1).hostHeaderConfig().values()).containsExactly("api.example.com");
    assertThat(c.get(2).httpHeaderConfig().httpHeaderName()).isEqualTo("X-Env");
    assertThat(c.get(2).httpHeaderConfig().values()).containsExactly("prod");
    assertThat(c.get(3).httpRequestMethodConfig().values()).containsExactly("GET");
    assertThat(c.get(4).queryStringConfig().values()).containsExactly(QueryStringKeyValuePair.builder()
        .key("v").value("2").build());
    assertThat(rules.get(0).conditions().get(0).sourceIpConfig().values()).containsExactly("10.0.0.0/8",
        "192.168.1.1/32");
    Rule defaultRule = rules.get(2);
    assertThat(defaultRule.conditions()).isEmpty();
    assertThat(defaultRule.actions().get(0).fixedResponseConfig().statusCode()).isEqualTo("404");
  }

  @Test
  void createRule_atATakenPriorityOrOutOfRange_isRefused_andChangesNothing() {
    start();
    h.createRule(listener, 10, forward(h.tg("blue")), path("/a"));

    assertThat(h.refusedUnchanged(() -> h.createRule(listener, 10, forward(h.tg("green")), path("/b")),
        "PriorityInUse")).hasMessageContaining("Priority '10' is currently in use");
    h.refusedUnchanged(() -> h.createRule(listener, 0, forward(h.tg("green")), path("/b")), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 50001, forward(h.tg("green")), path("/b")), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(listener).conditions(path("/b"))
        .actions(forward(h.tg("green")))), "ValidationError");
    assertThat(h.createRule(listener, 50000, forward(h.tg("green")), path("/b"))).isNotBlank();
    assertThat(h.createRule(listener, 1, forward(h.tg("green")), path("/c"))).isNotBlank();
  }

  @Test
  void createRule_withMoreThanFiveConditionValues_isTooManyConditionValues() {
    start();
    h.refusedUnchanged(() -> h.createRule(listener, 1, forward(h.tg("blue")), path("/1", "/2", "/3", "/4", "/5", "/6")),
        "TooManyConditionValues");
    h.refusedUnchanged(() -> h.createRule(listener, 1, forward(h.tg("blue")), path("/1", "/2", "/3"),
        condition("http-request-method", c -> c.httpRequestMethodConfig(x -> x.values("GET", "HEAD", "PUT")))),
        "TooManyConditionValues");
    assertThat(h.createRule(listener, 1, forward(h.tg("blue")), path("/1", "/2", "/3", "/4", "/5"))).isNotBlank();
  }

  @Test
  void createRule_withBadConditions_isValidationError_namingTheParameter() {
    start();
    Action blue = forward(h.tg("blue"));
    assertThat(h.refusedUnchanged(() -> h.createRule(listener, 1, blue, path("/a b")), "ValidationError"))
        .hasMessageContaining("Conditions.member.1.Values.member.1");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, path("/*/*/*"), path("/a")), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, path("/*?*", "/**?*")), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("host-header",
        c -> c.hostHeaderConfig(x -> x.values("localhost")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("http-header",
        c -> c.values("x").httpHeaderConfig(x -> x.httpHeaderName("X-A").values("x")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("http-header",
        c -> c.httpHeaderConfig(x -> x.httpHeaderName("bad header").values("x")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("http-request-method",
        c -> c.httpRequestMethodConfig(x -> x.values("get")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("source-ip",
        c -> c.sourceIpConfig(x -> x.values("10.0.0.0/33")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("path-pattern",
        c -> c.hostHeaderConfig(x -> x.values("a.example.com")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("path-pattern",
        c -> c.pathPatternConfig(x -> x.regexValues("^/a(?=b)")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("path-pattern",
        c -> c.pathPatternConfig(x -> x.values("/a").regexValues("^/a$")))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("http-request-method",
        c -> c.regexValues("^G"))), "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue, condition("cookie", c -> c.values("a"))),
        "ValidationError");
    h.refusedUnchanged(() -> h.createRule(listener, 1, blue), "ValidationError");
    h.refusedUnchanged(() -> h.elb.createRule(b -> b.listenerArn(listener).priority(1).conditions(path("/a"))
        .actions(blue).transforms(t -> t.type("url-rewrite"))), "ValidationError");
  }

  @Test
  void createRule_withSixTargetGroupsInItsForward_isTooManyTargetGroups() {
    StringBuilder more = new StringBuilder();
    IntStream.rangeClosed(1, 4).forEach(i -> more.append("  - {name: g").append(i)
        .append(", target-type: ip, protocol: HTTP, port: 80}\n"));
    start(more.toString());
    List<TargetGroupTuple> six = List.of("blue", "green", "g1", "g2", "g3", "g4").stream()
        .map(n -> TargetGroupTuple.builder().targetGroupArn(h.tg(n)).weight(1).build()).toList();

    h.refusedUnchanged(() -> h.createRule(listener, 1, Action.builder().type(ActionTypeEnum.FORWARD)
        .forwardConfig(f -> f.targetGroups(six)).build(), path("/a")), "TooManyTargetGroups");
  }

  @Test
  void createRule_beyondAHundredRulesOnALoadBalancer_isTooManyRules() {
    StringBuilder seed = new StringBuilder("load-balancers:\n  - name: full\n    listeners:\n      - protocol: HTTP\n"
        + "        port: " + Ports.free() + "\n        default-actions: [{type: fixed-response, status-code: 404}]\n"
        + "        rules:\n");
    IntStream.rangeClosed(1, 100).forEach(i -> seed.append("          - {priority: ").append(i)
        .append(", conditions: [{field: path-pattern, values: [/").append(i)
        .append("]}], actions: [{type: fixed-response, status-code: 200}]}\n"));
    h = LbApiHarness.start(dir, seed.toString(), 1);
    String full = h.elb.describeListeners(b -> b.loadBalancerArn(h.elb.describeLoadBalancers().loadBalancers().get(0)
        .loadBalancerArn())).listeners().get(0).listenerArn();

    h.refusedUnchanged(() -> h.createRule(full, 101, fixed(200, "x"), path("/101")), "TooManyRules");
  }

  @Test
  void createRule_onAMissingListenerOrToAMissingTargetGroup_isNotFound() {
    start();
    h.refusedUnchanged(() -> h.createRule(listener + "0", 1, forward(h.tg("blue")), path("/a")), "ListenerNotFound");
    h.refusedUnchanged(() -> h.createRule(listener, 1, forward(h.tg("blue") + "0"), path("/a")), "TargetGroupNotFound");
  }

  @Test
  void createRule_withTags_keepsThem_andDeleteRuleDropsThem() {
    start();
    String arn = h.elb.createRule(b -> b.listenerArn(listener).priority(1).conditions(path("/a"))
        .actions(forward(h.tg("blue"))).tags(t -> t.key("owner").value("team-a"))).rules().get(0).ruleArn();
    assertThat(h.resources().tagsOf(arn)).isEqualTo(Map.of("owner", "team-a"));

    h.elb.deleteRule(b -> b.ruleArn(arn));
    assertThat(h.resources().tagsOf(arn)).isEmpty();
  }

  @Test
  void describeRules_byArns_theDefaultRuleIncluded_withPagingAndWhatIsMissing() {
    start();
    String a = h.createRule(listener, 1, forward(h.tg("blue")), path("/a"));
    String b = h.createRule(listener, 2, forward(h.tg("green")), path("/b"));
    String defaultArn = rules().get(2).ruleArn();

    assertThat(h.elb.describeRules(r -> r.ruleArns(defaultArn, b)).rules()).extracting(Rule::ruleArn, Rule::isDefault)
        .containsExactly(tuple(defaultArn, true), tuple(b, false));
    DescribeRulesResponse first = h.elb.describeRules(r -> r.listenerArn(listener).pageSize(2));
    assertThat(first.rules()).extracting(Rule::ruleArn).containsExactly(a, b);
    DescribeRulesResponse last = h.elb.describeRules(r -> r.listenerArn(listener).pageSize(2).marker(first.nextMarker()));
    assertThat(last.rules()).extracting(Rule::ruleArn).containsExactly(defaultArn);
    assertThat(last.nextMarker()).isNull();
    refused(() -> h.elb.describeRules(r -> r.ruleArns(a, a + "0")), "RuleNotFound");
    refused(() -> h.elb.describeRules(r -> r.listenerArn(listener + "0")), "ListenerNotFound");
    refused(() -> h.elb.describeRules(r -> r.listenerArn(listener).ruleArns(a)), "ValidationError");
    refused(() -> h.elb.describeRules(r -> { }), "ValidationError");
  }

  @Test
  void modifyRule_replacesConditionsOrActions_keepingItsArnAndPriority() {
    start();
    String arn = h.createRule(listener, 7, forward(h.tg("blue")), path("/a"));

    Rule modified = h.elb.modifyRule(b -> b.ruleArn(arn).conditions(path("/b", "/c"))).rules().get(0);
    assertThat(modified.ruleArn()).isEqualTo(arn);
    assertThat(modified.priority()).isEqualTo("7");
    assertThat(modified.conditions().get(0).values()).containsExactly("/b", "/c");
    assertThat(modified.actions().get(0).targetGroupArn()).isEqualTo(h.tg("blue"));

    Rule again = h.elb.modifyRule(b -> b.ruleArn(arn).actions(forward(h.tg("green")))).rules().get(0);
    assertThat(again.conditions()).isEqualTo(modified.conditions());
    assertThat(again.actions().get(0).targetGroupArn()).isEqualTo(h.tg("green"));
    assertThat(h.elb.describeRules(b -> b.ruleArns(arn)).rules()).containsExactly(again);

    h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(arn).actions(forward(h.tg("green") + "0"))),
        "TargetGroupNotFound");
    h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(arn).conditions(path("/1", "/2", "/3", "/4", "/5", "/6"))),
        "TooManyConditionValues");
    h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(arn + "0").conditions(path("/x"))), "RuleNotFound");
  }

  @Test
  void modifyRule_onTheDefaultRule_changesTheListenersDefaultActions_butNotItsConditions() {
    start();
    String defaultArn = rules().get(0).ruleArn();

    Rule modified = h.elb.modifyRule(b -> b.ruleArn(defaultArn).actions(forward(h.tg("green")))).rules().get(0);
    assertThat(modified.isDefault()).isTrue();
    assertThat(modified.priority()).isEqualTo("default");
    assertThat(h.elb.describeListeners(b -> b.listenerArns(listener)).listeners().get(0).defaultActions().get(0)
        .targetGroupArn()).isEqualTo(h.tg("green"));
    h.refusedUnchanged(() -> h.elb.modifyRule(b -> b.ruleArn(defaultArn).conditions(path("/a"))),
        "OperationNotPermitted");
  }

  @Test
  void deleteRule_removesIt_butTheDefaultRuleIsOperationNotPermitted() {
    start();
    String arn = h.createRule(listener, 1, forward(h.tg("blue")), path("/a"));
    String defaultArn = rules().get(1).ruleArn();

    h.elb.deleteRule(b -> b.ruleArn(arn));
    assertThat(rules()).extracting(Rule::ruleArn).containsExactly(defaultArn);
    h.refusedUnchanged(() -> h.elb.deleteRule(b -> b.ruleArn(arn)), "RuleNotFound");
    h.refusedUnchanged(() -> h.elb.deleteRule(b -> b.ruleArn(defaultArn)), "OperationNotPermitted");
  }

  @Test
  void setRulePriorities_swapsPrioritiesAtOnce_andEachRuleKeepsItsArn() {
    start();
    String a = h.createRule(listener, 1, forward(h.tg("blue")), path("/a"));
    String b = h.createRule(listener, 2, forward(h.tg("green")), path("/b"));
    String c = h.createRule(listener, 3, fixed(200, "c"), path("/c"));

    List<Rule> answer = h.elb.setRulePriorities(r -> r.rulePriorities(pair(a, 2), pair(b, 1))).rules();

    assertThat(answer).extracting(Rule::ruleArn, Rule::priority).containsExactly(tuple(a, "2"), tuple(b, "1"));
    assertThat(rules()).extracting(Rule::ruleArn, Rule::priority).containsExactly(tuple(b, "1"), tuple(a, "2"),
        tuple(c, "3"), tuple(rules().get(3).ruleArn(), "default"));
  }

  @Test
  void setRulePriorities_thatWouldCollide_orTouchTheDefaultRule_isRefused_andNoRuleMoves() {
    start();
    String a = h.createRule(listener, 1, forward(h.tg("blue")), path("/a"));
    String b = h.createRule(listener, 2, forward(h.tg("green")), path("/b"));
    String defaultArn = rules().get(2).ruleArn();

    h.refusedUnchanged(() -> h.elb.setRulePriorities(r -> r.rulePriorities(pair(a, 2))), "PriorityInUse");
    h.refusedUnchanged(() -> h.elb.setRulePriorities(r -> r.rulePriorities(pair(a, 5), pair(b, 5))), "PriorityInUse");
    h.refusedUnchanged(() -> h.elb.setRulePriorities(r -> r.rulePriorities(pair(a, 3), pair(defaultArn, 4))),
        "OperationNotPermitted");
    h.refusedUnchanged(() -> h.elb.setRulePriorities(r -> r.rulePriorities(pair(a, 3), pair(b + "0", 4))),
        "RuleNotFound");
    h.refusedUnchanged(() -> h.elb.setRulePriorities(r -> r.rulePriorities(pair(a, 50001))), "ValidationError");
    h.refusedUnchanged(() -> h.elb.setRulePriorities(r -> r.rulePriorities(pair(a, 3), pair(a, 4))), "ValidationError");
    assertThat(rules()).extracting(Rule::ruleArn, Rule::priority).containsExactly(tuple(a, "1"), tuple(b, "2"),
        tuple(defaultArn, "default"));
  }
}
