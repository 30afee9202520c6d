package io.fulcrum.config;

import static io.fulcrum.config.Configs.messages;
import static io.fulcrum.config.Configs.parse;
import static io.fulcrum.config.Configs.problems;
import static io.fulcrum.config.Configs.withListener;
import static io.fulcrum.config.Configs.withRule;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Action;
import io.fulcrum.model.Cidr;
import io.fulcrum.model.Listener;
import io.fulcrum.model.LoadBalancer;
import io.fulcrum.model.LoadBalancerType;
import io.fulcrum.model.Problem;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Load balancers, listeners, rules, conditions and actions in the config file. */
class ConfigParserListenerTest {

  private static final String LB = "load-balancers[0].";
  private static final String L = LB + "listeners[0].";
  private static final String R = L + "rules[0].";

  private static Listener listener(FulcrumConfig config) {
    return config.resources().loadBalancers().get(0).listeners().get(0);
  }

  private static Rule onlyRule(String ruleYaml) {
    return listener(parse(withRule(ruleYaml))).rules().get(0);
  }

  // ---- load balancers ----

  @Test
  void loadBalancer_isReadWithItsDefaults() {
    LoadBalancer lb = parse(Configs.MINIMAL).resources().loadBalancers().get(0);
    assertThat(lb.name()).isEqualTo("demo");
    assertThat(lb.type()).isEqualTo(LoadBalancerType.APPLICATION);
    assertThat(lb.zones()).containsExactly("zone-a");
    assertThat(lb.attributes().idleTimeoutSeconds()).isEqualTo(60);
    assertThat(lb.arn()).matches("arn:aws:elasticloadbalancing:us-east-1:000000000000:loadbalancer/app/demo/[0-9a-f]{16}");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {"'-demo'", "demo-", "internal-demo", "my_lb", "abcdefghijklmnopqrstuvwxyz0123456"})
  void badLoadBalancerName_isRejected(String name) {
    assertThat(messages("load-balancers: [{name: " + name + "}]")).containsExactly(LB + "name: '" + name + "' is not a"
        + " load balancer name (expected 1-32 letters, digits and hyphens, not beginning or ending with a hyphen, not"
        + " beginning with 'internal-')");
  }

  @Test
  void missingLoadBalancerName_isRequired() {
    assertThat(messages("load-balancers: [{type: application}]")).containsExactly(LB + "name: a name is required"
        + " (expected 1-32 letters, digits and hyphens, not beginning or ending with a hyphen, not beginning with"
        + " 'internal-')");
  }

  @ParameterizedTest
  @ValueSource(strings = {"demo", "Demo"})
  void duplicateLoadBalancerName_letterCaseAside_isRejected(String second) {
    assertThat(messages("load-balancers: [{name: demo}, {name: " + second + "}]"))
        .containsExactly("load-balancers[1].name: a load balancer named '" + second + "' is already defined (letter"
            + " case aside: the DNS name is the name in lower case)");
  }

  @Test
  void unsupportedOrUnknownType_isRejectedOnce() {
    assertThat(messages("load-balancers: [{name: demo, type: network}]")).as("a network load balancer").isEmpty();
    assertThat(messages("load-balancers: [{name: demo, type: gateway, attributes: {idle_timeout.timeout_seconds: 5}}]"))
        .containsExactly(LB + "type: 'gateway' is not one of: application, network");
  }

  @Test
  void zones_mustHaveANode() {
    assertThat(messages("load-balancers: [{name: demo, zones: [zone-a, zone-c]}]"))
        .containsExactly(LB + "zones[1]: 'zone-c' has no node (expected one of: zone-a)");
    assertThat(messages("load-balancers: [{name: demo, zones: []}]"))
        .containsExactly(LB + "zones: at least one zone is required");
  }

  @Test
  void loadBalancerAttributes_areCheckedAtTheirKeys() {
    assertThat(problems("""
        load-balancers:
          - name: demo
            attributes: {idle_timeout.timeout_seconds: 4001, idle_timeout: 5}
        """)).containsExactly(
            new Problem(LB + "attributes.idle_timeout.timeout_seconds", "ValidationError",
                "'4001' is not valid (expected 1-4000)"),
            new Problem(LB + "attributes.idle_timeout", "ValidationError",
                "Load balancer attribute key 'idle_timeout' is not recognized"));
    assertThat(parse("load-balancers: [{name: demo, attributes: {idle_timeout.timeout_seconds: 4000}}]")
        .resources().loadBalancers().get(0).attributes().idleTimeoutSeconds()).isEqualTo(4000);
  }

  // ---- listeners ----

  @Test
  void listener_missingProtocolPortAndDefaultAction_reportsEachOne() {
    assertThat(messages(withListener("- {rules: []}"))).containsExactly(
        L + "protocol: a protocol is required (expected: HTTP, HTTPS, TCP, TLS, UDP or TCP_UDP)",
        L + "port: a port is required",
        L + "default-actions: a listener needs a default action (e.g. [{type: forward, target-group: web}])");
  }

  @Test
  void listener_missingDefaultAction_isRequired() {
    assertThat(messages(withListener("- {protocol: HTTP, port: 8080}")))
        .containsExactly(L + "default-actions: a listener needs a default action (e.g. [{type: forward,"
            + " target-group: web}])");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "protocol: TCP_QUIC, port: 8443 | protocol: 'TCP_QUIC' listeners are not available yet (expected: HTTP, HTTPS,"
          + " TCP, TLS, UDP or TCP_UDP)",
      "protocol: FTP, port: 21 | protocol: 'FTP' is not one of: HTTP, HTTPS, TCP, TLS, UDP, TCP_UDP, GENEVE, QUIC,"
          + " TCP_QUIC",
      "protocol: HTTP, port: 0 | port: 0 is below the minimum 1",
      "protocol: HTTP, port: 65536 | port: 65536 is above the maximum 65535",
      // One problem for a value that is no port: not a second saying a port is required.
      "protocol: HTTP, port: 8080.5 | port: expected an integer, found 8080.5",
      "protocol: HTTP, port: 99999999999 | port: expected an integer, found 99999999999"})
  void listenerProtocolAndPort_areChecked(String keys, String message) {
    assertThat(messages(withListener("- {" + keys + ", default-actions: [{type: forward, target-group: web}]}")))
        .containsExactly(L + message);
  }

  @Test
  void twoListenersOnOnePort_areRejected() {
    assertThat(messages(withListener("""
        - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: web}]}
        - {protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: api}]}
        """))).containsExactly(LB + "listeners[1].port: another listener of this load balancer uses port 8080");
  }

  @Test
  void twoDefaultActions_areRejected() {
    assertThat(messages(withListener("""
        - protocol: HTTP
          port: 8080
          default-actions: [{type: forward, target-group: web}, {type: forward, target-group: api}]
        """))).containsExactly(L + "default-actions: 2 routing actions: exactly one forward, fixed-response or"
            + " redirect action is allowed");
  }

  // ---- rules ----

  @Test
  void rules_areSortedByPriority() {
    Listener l = listener(parse(withListener("""
        - protocol: HTTP
          port: 8080
          default-actions: [{type: forward, target-group: web}]
          rules:
            - {priority: 20, conditions: [{field: path-pattern, values: [/b]}], actions: [{type: forward, target-group: api}]}
            - {priority: 5, conditions: [{field: path-pattern, values: [/a]}], actions: [{type: forward, target-group: web}]}
        """)));
    assertThat(l.rules()).extracting(Rule::priority).containsExactly(5, 20);
  }

  @Test
  void rule_missingPriorityConditionsAndActions_reportsEachOne() {
    assertThat(messages(withRule("- {}"))).containsExactly(
        R + "priority: a priority is required (1-50000)",
        R + "conditions: a rule needs at least one condition",
        R + "actions: a rule needs an action (e.g. [{type: forward, target-group: web}])");
  }

  @ParameterizedTest
  @CsvSource({"0, 0 is below the minimum 1", "50001, 50001 is above the maximum 50000"})
  void priorityOutsideItsRange_isRejected(int priority, String message) {
    assertThat(messages(withRule("- {priority: " + priority + ", conditions: [{field: path-pattern, values: [/a]}],"
        + " actions: [{type: forward, target-group: web}]}"))).containsExactly(R + "priority: " + message);
  }

  @Test
  void duplicatePriority_isPriorityInUse() {
    assertThat(problems(withRule("""
        - {priority: 10, conditions: [{field: path-pattern, values: [/a]}], actions: [{type: forward, target-group: web}]}
        - {priority: 10, conditions: [{field: path-pattern, values: [/b]}], actions: [{type: forward, target-group: api}]}
        """))).containsExactly(new Problem(L + "rules[1].priority", "PriorityInUse",
            "another rule of this listener has priority 10"));
  }

  @Test
  void regexValues_makeARegexCondition_andAreChecked() {
    Rule rule = onlyRule("- {priority: 1, conditions: [{field: path-pattern, regex-values: ['^/api/v[0-9]+/']},"
        + " {field: http-header, http-header-name: X-Client, regex-values: ['^m']}],"
        + " actions: [{type: forward, target-group: web}]}");
    assertThat(rule.conditions()).containsExactly(
        new io.fulcrum.model.RuleCondition.Regex("path-pattern", null, List.of("^/api/v[0-9]+/")),
        new io.fulcrum.model.RuleCondition.Regex("http-header", "X-Client", List.of("^m")));
    assertThat(conditionMessages("[{field: path-pattern, values: [/a], regex-values: ['^/a']}]"))
        .containsExactly(R + "conditions[0].values: give values (with wildcards) or regex-values, not both");
    assertThat(conditionMessages("[{field: host-header, regex-values: ['(?<=a)b']}]"))
        .containsExactly(R + "conditions[0].regex-values[0]: regular expressions here do not support lookaheads and"
            + " lookbehinds");
    assertThat(conditionMessages("[{field: http-request-method, regex-values: ['^G']}]"))
        .contains(R + "conditions[0].regex-values: unknown key (expected one of: field, values)");
  }

  // ---- transforms ----

  private static List<String> transformMessages(String transforms) {
    return messages(withRule("- {priority: 1, conditions: [{field: path-pattern, values: [/a]}], transforms: "
        + transforms + ", actions: [{type: forward, target-group: web}]}"));
  }

  @Test
  void transforms_areRead() {
    Rule rule = onlyRule("- {priority: 1, conditions: [{field: path-pattern, values: [/a/*]}], transforms: ["
        + "{type: url-rewrite, regex: '^/a/(.*)$', replace: '/$1'}, {type: host-header-rewrite, regex: x, replace: ''}],"
        + " actions: [{type: forward, target-group: web}]}");
    assertThat(rule.transforms()).containsExactly(
        new io.fulcrum.model.RuleTransform(io.fulcrum.model.RuleTransform.Type.URL_REWRITE, "^/a/(.*)$", "/$1"),
        new io.fulcrum.model.RuleTransform(io.fulcrum.model.RuleTransform.Type.HOST_HEADER_REWRITE, "x", ""));
  }

  @Test
  void badTransforms_areRejectedAtTheirKeys() {
    assertThat(transformMessages("[{type: path-rewrite, regex: a, replace: b}]")).singleElement().asString()
        .startsWith(R + "transforms[0].type: 'path-rewrite' is not");
    assertThat(transformMessages("[{type: url-rewrite, replace: b}]")).containsExactly(
        R + "transforms[0].regex: a regular expression is required");
    assertThat(transformMessages("[{type: url-rewrite, regex: '(a)(?=b)', replace: '/$2'}]")).containsExactly(
        R + "transforms[0].regex: regular expressions here do not support lookaheads and lookbehinds",
        R + "transforms[0].replace: $2 names a capture group the regular expression does not have (it has 1)");
    assertThat(transformMessages("[{type: url-rewrite, regex: a, replace: b}, {type: url-rewrite, regex: c,"
        + " replace: d}]")).containsExactly(R + "transforms[1].type: a rule can have only one url-rewrite transform");
  }

  // ---- conditions ----

  private static List<String> conditionMessages(String conditions) {
    return messages(withRule("- {priority: 1, conditions: " + conditions + ", actions: [{type: forward,"
        + " target-group: web}]}"));
  }

  @Test
  void everyConditionField_isRead() {
    Rule rule = onlyRule("""
        - priority: 1
          conditions:
            - {field: path-pattern, values: ["/api/*"]}
            - {field: host-header, values: [api.example.com]}
            - {field: http-header, http-header-name: X-Env, values: [blue]}
            - {field: http-request-method, values: [GET]}
            - {field: query-string, values: [{key: v, value: "2"}]}
          actions: [{type: forward, target-group: web}]
        """);
    assertThat(rule.conditions()).containsExactly(
        new RuleCondition.PathPattern(List.of("/api/*")),
        new RuleCondition.HostHeader(List.of("api.example.com")),
        new RuleCondition.HttpHeader("X-Env", List.of("blue")),
        new RuleCondition.HttpRequestMethod(List.of("GET")),
        new RuleCondition.QueryString(List.of(new RuleCondition.KeyValue("v", "2"))));
    assertThat(onlyRule("- {priority: 1, conditions: [{field: source-ip, values: [10.0.0.0/8]}], actions: [{type:"
        + " forward, target-group: web}]}").conditions())
        .containsExactly(new RuleCondition.SourceIp(List.of(Cidr.parse("10.0.0.0/8"))));
  }

  @Test
  void badConditionValues_areRejectedAtTheValue() {
    assertThat(conditionMessages("[{field: path-pattern, values: [/ok, '/a b']}, {field: host-header, values:"
        + " [localhost]}, {field: source-ip, values: [10.0.0.0/33]}, {field: http-request-method, values: [get]}]"))
        .containsExactly(
            R + "conditions[0].values[1]: '/a b' contains ' ' (expected: A-Z, a-z, 0-9, _ - . $ / ~ \" ' @ : + & * ?)",
            R + "conditions[1].values[0]: 'localhost' must include at least one '.'",
            R + "conditions[2].values[0]: '10.0.0.0/33' has an invalid prefix length (expected 0-32)",
            R + "conditions[3].values[0]: 'get' is not a valid method (expected: A-Z, - and _, case-sensitive)");
  }

  @Test
  void moreThanFiveConditionValues_inOneRule_isRejected() {
    assertThat(problems(withRule("""
        - priority: 1
          conditions:
            - {field: path-pattern, values: [/a, /b, /c]}
            - {field: host-header, values: [a.example.com, b.example.com, c.example.com]}
          actions: [{type: forward, target-group: web}]
        """))).containsExactly(new Problem(R + "conditions", "TooManyConditionValues",
            "6 condition values is above the maximum 5 per rule (match evaluations included)"));
    assertThat(onlyRule("- {priority: 1, conditions: [{field: path-pattern, values: [/a, /b, /c, /d, /e]}],"
        + " actions: [{type: forward, target-group: web}]}").conditions()).hasSize(1);
  }

  @Test
  void moreThanFiveWildcards_inOneRule_isRejected() {
    assertThat(conditionMessages("[{field: path-pattern, values: ['/a*/*', '/b*/?']}, {field: host-header, values:"
        + " ['*.example.com', '?.example.com']}]"))
        .containsExactly(R + "conditions: 6 wildcards is above the maximum 5 per rule");
  }

  @Test
  void twoPathPatternConditions_inOneRule_areRejected() {
    assertThat(conditionMessages("[{field: path-pattern, values: [/a]}, {field: path-pattern, values: [/b]}]"))
        .containsExactly(R + "conditions[1].field: a rule can have only one path-pattern condition");
  }

  @Test
  void twoHttpHeaderConditions_inOneRule_areAllowed() {
    assertThat(onlyRule("- {priority: 1, conditions: [{field: http-header, http-header-name: A, values: [x]},"
        + " {field: http-header, http-header-name: B, values: [y]}], actions: [{type: forward, target-group: web}]}")
        .conditions()).hasSize(2);
  }

  @Test
  void unknownConditionField_isReportedOnce() {
    assertThat(conditionMessages("[{field: path-patern, values: [/a]}]")).containsExactly(R + "conditions[0].field:"
        + " 'path-patern' is not one of: path-pattern, host-header, http-header, http-request-method, query-string,"
        + " source-ip");
    assertThat(conditionMessages("[{values: [/a]}]")).containsExactly(R + "conditions[0].field: a field is required"
        + " (expected one of: path-pattern, host-header, http-header, http-request-method, query-string, source-ip)");
  }

  @Test
  void conditionWithoutValues_isRejected() {
    assertThat(conditionMessages("[{field: host-header}]"))
        .containsExactly(R + "conditions[0].values: a host-header condition needs at least one value");
    assertThat(conditionMessages("[{field: source-ip, values: []}]"))
        .containsExactly(R + "conditions[0].values: a source-ip condition needs at least one value");
  }

  @Test
  void conditionWhoseOnlyValueIsUnreadable_reportsJustThatValue() {
    assertThat(conditionMessages("[{field: path-pattern, values: [[/a]]}]"))
        .containsExactly(R + "conditions[0].values[0]: expected a string, found a list");
    assertThat(conditionMessages("[{field: source-ip, values: [10.0.0.0/33]}]"))
        .containsExactly(R + "conditions[0].values[0]: '10.0.0.0/33' has an invalid prefix length (expected 0-32)");
  }

  // ---- actions ----

  private static List<String> actionMessages(String action) {
    return messages(withRule("- {priority: 1, conditions: [{field: path-pattern, values: [/a]}], actions: ["
        + action + "]}"));
  }

  private static Action action(String action) {
    return onlyRule("- {priority: 1, conditions: [{field: path-pattern, values: [/a]}], actions: [" + action + "]}")
        .actions().get(0);
  }

  @Test
  void weightedForward_isRead() {
    Action.Forward f = (Action.Forward) action("{type: forward, target-groups: [{name: web, weight: 0},"
        + " {name: api, weight: 999}], stickiness: {enabled: true, duration-seconds: 604800}}");
    assertThat(f.targetGroups()).extracting(Action.WeightedTargetGroup::name, Action.WeightedTargetGroup::weight)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("web", 0), org.assertj.core.groups.Tuple.tuple("api", 999));
    assertThat(f.stickinessEnabled()).isTrue();
    assertThat(f.stickinessDurationSeconds()).isEqualTo(604800);
  }

  @Test
  void unknownTargetGroup_isTargetGroupNotFound() {
    assertThat(problems(withRule("- {priority: 1, conditions: [{field: path-pattern, values: [/a]}], actions:"
        + " [{type: forward, target-groups: [{name: web}, {name: nope}]}]}"))).containsExactly(new Problem(
            R + "actions[0].target-groups[1].name", "TargetGroupNotFound",
            "Target group 'nope' not found (not defined in target-groups)"));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{type: forward, target-groups: [{name: web, weight: 1000}, {name: api}]} | actions[0].target-groups[0].weight:"
          + " 1000 is above the maximum 999",
      "{type: forward, target-groups: [{name: web, weight: -1}, {name: api}]} | actions[0].target-groups[0].weight:"
          + " -1 is below the minimum 0",
      "{type: forward, target-groups: [{name: web}, {name: web}]} | actions[0].target-groups[1].name: target group"
          + " 'web' appears twice in this action",
      "{type: forward, target-groups: [{weight: 1}]} | actions[0].target-groups[0].name: a target group name is"
          + " required",
      "{type: forward, target-group: web, target-groups: [{name: api}]} | actions[0]: give either target-group or"
          + " target-groups, not both",
      "{type: forward} | actions[0]: a forward action needs target-group or target-groups",
      "{type: forward, target-group: web, stickiness: {enabled: true}} | actions[0].stickiness.duration-seconds: a"
          + " duration (1-604800 seconds) is required when target group stickiness is enabled",
      "{type: forward, target-group: web, stickiness: {enabled: true, duration-seconds: 0}} |"
          + " actions[0].stickiness.duration-seconds: 0 is below the minimum 1",
      "{type: forward, target-group: web, stickiness: {enabled: true, duration-seconds: 604801}} |"
          + " actions[0].stickiness.duration-seconds: 604801 is above the maximum 604800",
      "{target-group: web} | actions[0].type: a type is required (expected one of: forward, fixed-response,"
          + " redirect, jwt-validation, authenticate-oidc)",
      "{type: foward, target-group: web} | actions[0].type: 'foward' is not one of: forward, fixed-response,"
          + " redirect, jwt-validation, authenticate-oidc"})
  void badForwardAction_isRejectedAtItsKey(String action, String message) {
    assertThat(actionMessages(action)).containsExactly(R + message);
  }

  @Test
  void moreThanFiveTargetGroupsInOneAction_isRejected() {
    StringBuilder yaml = new StringBuilder("target-groups:\n");
    StringBuilder weighted = new StringBuilder();
    for (int i = 1; i <= 6; i++) {
      yaml.append("  - {name: g").append(i).append(", target-type: ip, protocol: HTTP, port: 80}\n");
      weighted.append(i == 1 ? "" : ", ").append("{name: g").append(i).append('}');
    }
    yaml.append("load-balancers:\n  - name: demo\n    listeners:\n      - protocol: HTTP\n        port: 8080\n")
        .append("        default-actions: [{type: forward, target-groups: [").append(weighted).append("]}]\n");
    assertThat(messages(yaml.toString()))
        .containsExactly(L + "default-actions[0].target-groups: 6 target groups is above the maximum 5 per action");
  }

  @Test
  void fixedResponse_isRead() {
    assertThat(action("{type: fixed-response, status-code: 503, content-type: application/json, message-body: '{}'}"))
        .isEqualTo(new Action.FixedResponse(503, "application/json", "{}"));
    assertThat(action("{type: fixed-response, status-code: '204'}"))
        .isEqualTo(new Action.FixedResponse(204, "text/plain", ""));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{type: fixed-response, status-code: 300} | actions[0].status-code: '300' is not valid (expected a 2XX, 4XX or"
          + " 5XX code)",
      "{type: fixed-response, status-code: 600} | actions[0].status-code: '600' is not valid (expected a 2XX, 4XX or"
          + " 5XX code)",
      "{type: fixed-response, status-code: 20} | actions[0].status-code: '20' is not valid (expected a 2XX, 4XX or"
          + " 5XX code)",
      "{type: fixed-response} | actions[0].status-code: a status code is required (expected a 2XX, 4XX or 5XX code)",
      "{type: fixed-response, status-code: 200, content-type: text/xml} | actions[0].content-type: 'text/xml' is not"
          + " one of: text/plain, text/css, text/html, application/javascript, application/json"})
  void badFixedResponse_isRejectedAtItsKey(String action, String message) {
    assertThat(actionMessages(action)).containsExactly(R + message);
  }

  @Test
  void fixedResponseBody_of1024Characters_isAccepted_and1025IsNot() {
    assertThat(((Action.FixedResponse) action("{type: fixed-response, status-code: 200, message-body: "
        + "x".repeat(1024) + "}")).messageBody()).hasSize(1024);
    assertThat(actionMessages("{type: fixed-response, status-code: 200, message-body: " + "x".repeat(1025) + "}"))
        .containsExactly(R + "actions[0].message-body: 1025 characters is above the maximum 1024");
  }

  @Test
  void redirect_isRead_withDefaultsForWhatIsNotGiven() {
    assertThat(action("{type: redirect, protocol: HTTPS, port: 443, status-code: HTTP_301}"))
        .isEqualTo(new Action.Redirect("HTTPS", "443", "#{host}", "/#{path}", "#{query}", 301));
    assertThat(((Action.Redirect) action("{type: redirect, host: example.com, status-code: HTTP_302}")).statusCode())
        .isEqualTo(302);
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "{type: redirect, status-code: HTTP_301} | actions[0]: a redirect must change at least one of protocol, port,"
          + " host, path or query, or it would redirect to itself",
      "{type: redirect, protocol: HTTPS, status-code: HTTP_307} | actions[0].status-code: 'HTTP_307' is not one of:"
          + " HTTP_301, HTTP_302",
      "{type: redirect, protocol: HTTPS} | actions[0].status-code: a status code is required (expected: HTTP_301 or"
          + " HTTP_302)",
      "{type: redirect, protocol: FTP, status-code: HTTP_301} | actions[0].protocol: 'FTP' is not one of: HTTP,"
          + " HTTPS, #{protocol}",
      "{type: redirect, port: http, status-code: HTTP_301} | actions[0].port: 'http' is not a port (expected 1-65535"
          + " or #{port})",
      "{type: redirect, port: 70000, status-code: HTTP_301} | actions[0].port: 70000 is above the maximum 65535",
      "{type: redirect, path: new, status-code: HTTP_301} | actions[0].path: 'new' is not valid (expected 1-128"
          + " characters starting with '/')",
      "{type: redirect, query: '?a=1', status-code: HTTP_301} | actions[0].query: '?a=1' is not valid (expected at"
          + " most 128 characters, without a leading '?')",
      "{type: redirect, host: '', status-code: HTTP_301} | actions[0].host: the host must be 1-128 characters long"})
  void badRedirect_isRejectedAtItsKey(String action, String message) {
    assertThat(actionMessages(action)).containsExactly(R + message);
  }

  // ---- rules across resources, through the config ----

  @Test
  void targetGroupUsedByTwoLoadBalancers_isRejected() {
    assertThat(problems("""
        nodes: [{zone: zone-a, address: 127.0.0.1}, {zone: zone-b, address: 127.0.0.2}]
        target-groups: [{name: web, target-type: ip, protocol: HTTP, port: 80}]
        load-balancers:
          - {name: a, zones: [zone-a], listeners: [{protocol: HTTP, port: 80, default-actions: [{type: forward, target-group: web}]}]}
          - {name: b, zones: [zone-b], listeners: [{protocol: HTTP, port: 80, default-actions: [{type: forward, target-group: web}]}]}
        """)).containsExactly(new Problem("load-balancers[1]", "TargetGroupAssociationLimit", "target group 'web' would"
            + " be used by load balancers 'a' and 'b'; a target group can serve only one load balancer"));
  }

  /**
   * A listener may not take a socket the process holds for something else: within one process,
   * servers on one address and port share the socket, and its connections would go to either.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "HTTP on the control port      | control: {port: 7070}                          | HTTP    | 7070 | the control port (control.port)",
      "TCP on the DNS port           | dns: {port: 7071}                              | TCP     | 7071 | the DNS responder's (dns.port)",
      "UDP on the DNS port           | dns: {port: 7072}                              | UDP     | 7072 | the DNS responder's (dns.port)",
      "a wildcard control address    | control: {address: 0.0.0.0, port: 7073}        | HTTP    | 7073 | the control port (control.port)",
      "a demo target's port          | demo: {targets: [{id: d1, address: 127.0.0.1, port: 7074}]} | HTTP | 7074 | demo target d1's",
  })
  void listenerOnASocketTheProcessHoldsForSomethingElse_isRejected(String name, String setting, String protocol,
      int port, String what) {
    String group = protocol.equals("HTTP") ? "{name: web, target-type: ip, protocol: HTTP, port: 80}"
        : "{name: web, target-type: ip, protocol: " + protocol + ", port: 80}";
    String type = protocol.equals("HTTP") ? "" : "type: network, ";
    assertThat(problems(setting + "\n" + """
        target-groups: [%s]
        load-balancers:
          - {name: a, %slisteners: [{protocol: %s, port: %d, default-actions: [{type: forward, target-group: web}]}]}
        """.formatted(group, type, protocol, port))).containsExactly(new Problem("load-balancers[0].listeners[0].port",
            "DuplicateListener", "port " + port + " on node 127.0.0.1 is " + what + "; a listener needs a port of its own"));
  }

  @Test
  void udpListener_onTheControlPort_isAccepted_theControlPortTakesTcpOnly() {
    assertThat(problems("""
        control: {port: 7075}
        target-groups: [{name: dns, target-type: ip, protocol: UDP, port: 53}]
        load-balancers:
          - {name: a, type: network, listeners: [{protocol: UDP, port: 7075, default-actions: [{type: forward, target-group: dns}]}]}
        """)).isEmpty();
  }

  @Test
  void listenerPortClashBetweenLoadBalancersOnOneNode_isRejected() {
    assertThat(problems("""
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80}
          - {name: api, target-type: ip, protocol: HTTP, port: 80}
        load-balancers:
          - {name: a, listeners: [{protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: web}]}]}
          - {name: b, listeners: [{protocol: HTTP, port: 8080, default-actions: [{type: forward, target-group: api}]}]}
        """)).containsExactly(new Problem("load-balancers[1].listeners[0].port", "DuplicateListener",
            "port 8080 on node 127.0.0.1 would be used by load balancers 'a' and 'b'; a node's port serves one"));
  }

  @Test
  void listenerAttributes_areReadAndChecked_byTheKindOfListener() {
    String yaml = """
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80}
        load-balancers:
          - name: demo
            listeners:
              - protocol: HTTP
                port: 8080
                attributes: {%s}
                default-actions: [{type: forward, target-group: web}]
        """;
    Listener l = parse(yaml.formatted("routing.http.response.x_frame_options.header_value: DENY"))
        .resources().loadBalancers().get(0).listeners().get(0);
    assertThat(l.attributes().get("routing.http.response.x_frame_options.header_value")).isEqualTo("DENY");
    assertThat(l.attributes().serverHeader()).isTrue();

    assertThat(messages(yaml.formatted("routing.http.response.x_frame_options.header_value: ALLOWALL"))).containsExactly(
        L + "attributes.routing.http.response.x_frame_options.header_value: 'ALLOWALL' is not valid"
            + " (expected DENY, SAMEORIGIN or ALLOW-FROM <origin>)");
    assertThat(messages(yaml.formatted("tcp.idle_timeout.seconds: 60"))).containsExactly(
        L + "attributes.tcp.idle_timeout.seconds: Listener attribute key 'tcp.idle_timeout.seconds' is not recognized");
  }

  @Test
  void weightedForwardWithAStickyGroup_needsTargetGroupStickiness() {
    assertThat(problems("""
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, attributes: {stickiness.enabled: true}}
          - {name: api, target-type: ip, protocol: HTTP, port: 80}
        load-balancers:
          - name: demo
            listeners:
              - protocol: HTTP
                port: 8080
                default-actions: [{type: forward, target-groups: [{name: web}, {name: api}]}]
        """)).containsExactly(new Problem(L + "default-actions[0].stickiness", "InvalidConfigurationRequest",
            "a forward action to several target groups where one has stickiness must enable target group"
                + " stickiness"));
  }
}
