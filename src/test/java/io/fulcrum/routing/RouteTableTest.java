package io.fulcrum.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.Action;
import io.fulcrum.model.Cidr;
import io.fulcrum.model.Listener;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.Rule;
import io.fulcrum.model.RuleCondition;
import io.fulcrum.model.RuleCondition.KeyValue;
import java.util.List;
import org.junit.jupiter.api.Test;

class RouteTableTest {

  private static Action answer(String body) {
    return new Action.FixedResponse(200, "text/plain", body);
  }

  private static Rule rule(int priority, String body, RuleCondition... conditions) {
    return new Rule("arn:rule/" + priority, priority, List.of(conditions), List.of(answer(body)));
  }

  private static RouteTable table(Rule... rules) {
    return RouteTable.compile(new Listener("arn:listener", Protocol.HTTP, 80, List.of(answer("default")), List.of(rules)));
  }

  private static String route(RouteTable t, FakeRequest r) {
    return ((FixedRoute) t.match(r)).body().toString();
  }

  @Test
  void rules_areEvaluatedByPriority_notByDeclarationOrder() {
    RouteTable t = table(
        rule(20, "broad", new RuleCondition.PathPattern(List.of("/api/*"))),
        rule(10, "narrow", new RuleCondition.PathPattern(List.of("/api/admin/*"))));
    assertThat(route(t, new FakeRequest().path("/api/admin/users"))).isEqualTo("narrow");
    assertThat(route(t, new FakeRequest().path("/api/orders"))).isEqualTo("broad");
    assertThat(route(t, new FakeRequest().path("/other"))).isEqualTo("default");
  }

  @Test
  void defaultAction_hasPriorityZero_andRulesKeepTheirs() {
    RouteTable t = table(rule(7, "seven", new RuleCondition.PathPattern(List.of("/x"))));
    assertThat(t.match(new FakeRequest().path("/x")).priority()).isEqualTo(7);
    assertThat(t.match(new FakeRequest().path("/y")).priority()).isZero();
  }

  @Test
  void conditions_ofOneRule_mustAllMatch() {
    RouteTable t = table(rule(1, "both",
        new RuleCondition.PathPattern(List.of("/api/*")),
        new RuleCondition.HttpRequestMethod(List.of("POST"))));
    assertThat(route(t, new FakeRequest().path("/api/x").method("POST"))).isEqualTo("both");
    assertThat(route(t, new FakeRequest().path("/api/x").method("GET"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().path("/web").method("POST"))).isEqualTo("default");
  }

  @Test
  void pathPattern_isCaseSensitive_andValuesAreAlternatives() {
    RouteTable t = table(rule(1, "img", new RuleCondition.PathPattern(List.of("*.png", "/img/?"))));
    assertThat(route(t, new FakeRequest().path("/a/b.png"))).isEqualTo("img");
    assertThat(route(t, new FakeRequest().path("/img/x"))).isEqualTo("img");
    assertThat(route(t, new FakeRequest().path("/a/b.PNG"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().path("/img/xy"))).isEqualTo("default");
  }

  @Test
  void hostHeader_isCaseInsensitive_withWildcards() {
    RouteTable t = table(rule(1, "api", new RuleCondition.HostHeader(List.of("*.api.example.com"))));
    assertThat(route(t, new FakeRequest().host("EU.Api.Example.com"))).isEqualTo("api");
    assertThat(route(t, new FakeRequest().host("api.example.com"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().host(null))).isEqualTo("default");
  }

  @Test
  void hostHeader_takesAFullyQualifiedNameWithItsTrailingDot_forTheSameHost() {
    RouteTable t = table(rule(1, "admin", new RuleCondition.HostHeader(List.of("admin.example.com"))));
    assertThat(route(t, new FakeRequest().host("admin.example.com."))).isEqualTo("admin");
    assertThat(route(t, new FakeRequest().host("ADMIN.example.com."))).isEqualTo("admin");
    assertThat(route(t, new FakeRequest().host("admin.example.com.."))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().host("."))).isEqualTo("default");
  }

  @Test
  void httpHeader_matchesAnyValueOfTheHeader_caseInsensitively() {
    RouteTable t = table(rule(1, "canary", new RuleCondition.HttpHeader("X-Env", List.of("canary*"))));
    assertThat(route(t, new FakeRequest().header("x-env", "prod").header("X-ENV", "CANARY-2"))).isEqualTo("canary");
    assertThat(route(t, new FakeRequest().header("X-Env", "prod"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest())).isEqualTo("default");
  }

  @Test
  void httpRequestMethod_isExactAndCaseSensitive() {
    RouteTable t = table(rule(1, "write", new RuleCondition.HttpRequestMethod(List.of("PUT", "PATCH"))));
    assertThat(route(t, new FakeRequest().method("PATCH"))).isEqualTo("write");
    assertThat(route(t, new FakeRequest().method("patch"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().method("GET"))).isEqualTo("default");
  }

  @Test
  void queryString_matchesKeyAndValue_orAnyKeyWhenNoneGiven() {
    RouteTable t = table(
        rule(1, "v2", new RuleCondition.QueryString(List.of(new KeyValue("version", "v2*")))),
        rule(2, "debug", new RuleCondition.QueryString(List.of(new KeyValue(null, "debug")))));
    assertThat(route(t, new FakeRequest().query("a", "1").query("VERSION", "V2.1"))).isEqualTo("v2");
    assertThat(route(t, new FakeRequest().query("version", "v1"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().query("mode", "DEBUG"))).isEqualTo("debug");
    assertThat(route(t, new FakeRequest())).isEqualTo("default");
  }

  /** AWS: "To search for a literal '*' or '?' character in a query string, you must escape these characters". */
  @Test
  void queryString_escapedWildcards_matchTheCharacters() {
    RouteTable t = table(
        rule(1, "star", new RuleCondition.QueryString(List.of(new KeyValue("k", "a\\*b")))),
        rule(2, "question", new RuleCondition.QueryString(List.of(new KeyValue("q\\?", "why\\?")))));
    assertThat(route(t, new FakeRequest().query("k", "a*b"))).isEqualTo("star");
    assertThat(route(t, new FakeRequest().query("k", "aXYb"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().query("k", "a\\b"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().query("q?", "why?"))).isEqualTo("question");
    assertThat(route(t, new FakeRequest().query("qX", "why?"))).isEqualTo("default");
  }

  @Test
  void sourceIp_matchesTheClientAddress_inV4AndV6Blocks() {
    RouteTable t = table(rule(1, "internal", new RuleCondition.SourceIp(List.of(
        Cidr.parse("10.0.0.0/8"), Cidr.parse("2001:db8::/32")))));
    assertThat(route(t, new FakeRequest().source("10.200.3.4"))).isEqualTo("internal");
    assertThat(route(t, new FakeRequest().source("2001:db8:1::5"))).isEqualTo("internal");
    assertThat(route(t, new FakeRequest().source("11.0.0.1"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().source("2001:db9::1"))).isEqualTo("default");
  }

  @Test
  void actions_listsEveryActionWithTheDefaultLast() {
    RouteTable t = table(rule(1, "one", new RuleCondition.PathPattern(List.of("/1"))),
        rule(2, "two", new RuleCondition.PathPattern(List.of("/2"))));
    assertThat(t.actions()).hasSize(3);
    assertThat(t.actions().get(2).priority()).isZero();
  }

  @Test
  void pathPatterns_withAndWithoutALiteralStart_matchAsTheirGlobsSay() {
    RouteTable t = table(
        rule(1, "images", new RuleCondition.PathPattern(List.of("*.jpg", "/img/*"))),
        rule(2, "one-char", new RuleCondition.PathPattern(List.of("?api/v?/*"))),
        rule(3, "two-services", new RuleCondition.PathPattern(List.of("/orders/*", "/v2/orders/*/items"))),
        rule(4, "case", new RuleCondition.PathPattern(List.of("/Admin*"))));

    assertThat(route(t, new FakeRequest().path("/photos/cat.jpg"))).isEqualTo("images");
    assertThat(route(t, new FakeRequest().path("/img/logo.png"))).isEqualTo("images");
    assertThat(route(t, new FakeRequest().path("/api/v1/x"))).isEqualTo("one-char");
    assertThat(route(t, new FakeRequest().path("/v2/orders/7/items"))).isEqualTo("two-services");
    assertThat(route(t, new FakeRequest().path("/v2/orders/7"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().path("/Admin/x"))).isEqualTo("case");
    assertThat(route(t, new FakeRequest().path("/admin/x"))).as("path patterns are case-sensitive").isEqualTo("default");
  }

  @Test
  void pathPatterns_compareThePathATargetReads_soAnEncodedOrDottedSpellingDoesNotWalkPastARule() {
    RouteTable t = table(
        rule(1, "denied", new RuleCondition.PathPattern(List.of("/admin/*"))),
        rule(2, "api", new RuleCondition.PathPattern(List.of("/api//v1/*"))),
        rule(3, "png", new RuleCondition.PathPattern(List.of("*.png"))));

    for (String path : List.of("/admin/x", "//admin/x", "/public/../admin/x", "/%61dmin/x", "/admin%2Fx",
        "/./admin/x", "/public/%2e%2e/admin/x")) {
      assertThat(route(t, new FakeRequest().path(path))).as(path).isEqualTo("denied");
    }
    assertThat(route(t, new FakeRequest().path("/api/v1/orders"))).as("the pattern's // is merged too").isEqualTo("api");
    assertThat(route(t, new FakeRequest().path("/api//v1/orders"))).isEqualTo("api");
    assertThat(route(t, new FakeRequest().path("/logo%2Epng"))).isEqualTo("png");
    assertThat(route(t, new FakeRequest().path("/administrator"))).isEqualTo("default");
  }

  @Test
  void regexConditions_matchWhereTheExpressionIsFound_onThePathHostOrHeader() {
    RouteTable t = table(
        rule(1, "versioned", new RuleCondition.Regex("path-pattern", null, List.of("^/api/v[0-9]+/"))),
        rule(2, "host", new RuleCondition.Regex("host-header", null, List.of("^(eu|us)\\.shop\\."))),
        rule(3, "header", new RuleCondition.Regex("http-header", "X-Client", List.of("^mobile-[0-9.]+$"))));

    assertThat(route(t, new FakeRequest().path("/api/v12/orders"))).isEqualTo("versioned");
    assertThat(route(t, new FakeRequest().path("//api/v2/x"))).as("on the path rules compare").isEqualTo("versioned");
    assertThat(route(t, new FakeRequest().path("/api/vX/orders"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().host("EU.Shop.example.com"))).as("hosts case-insensitively").isEqualTo("host");
    assertThat(route(t, new FakeRequest().host("asia.shop.example.com"))).isEqualTo("default");
    assertThat(route(t, new FakeRequest().header("X-Client", "mobile-2.1"))).isEqualTo("header");
    assertThat(route(t, new FakeRequest().header("X-Client", "mobile-2.1 beta"))).isEqualTo("default");
  }

  @Test
  void literalStarts_stopAtTheFirstWildcard_andAPatternStartingWithOneDisablesTheShortcut() {
    assertThat(RouteTable.literalStarts(List.of("/svc1/*", "/v2/svc1/*/items"))).containsExactly("/svc1/", "/v2/svc1/");
    assertThat(RouteTable.literalStarts(List.of("/exact"))).containsExactly("/exact");
    assertThat(RouteTable.literalStarts(List.of("/a?c", "/b"))).containsExactly("/a", "/b");
    assertThat(RouteTable.literalStarts(List.of("/api/*", "*.jpg"))).isNull();
  }
}
