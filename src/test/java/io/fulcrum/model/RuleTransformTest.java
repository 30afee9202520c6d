package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class RuleTransformTest {

  private static List<String> problems(RuleTransform... transforms) {
    Problems p = new Problems();
    RuleTransform.validate(List.of(transforms), p.at("transforms"));
    return p.list().stream().map(x -> x.path() + ": " + x.message()).toList();
  }

  private static RuleTransform url(String regex, String replace) {
    return new RuleTransform(RuleTransform.Type.URL_REWRITE, regex, replace);
  }

  @Test
  void aTransformWithinAwssDialect_isValid() {
    assertThat(problems(url("^/api/(.+)$", "/$1"),
        new RuleTransform(RuleTransform.Type.HOST_HEADER_REWRITE, "^(?<app>[a-z]+)\\.example\\.com$", "${1}.internal")))
        .isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "^/a(?=b) | lookaheads and lookbehinds",
      "(?<!x)/a | lookaheads and lookbehinds",
      "(?>ab)c | atomic groups",
      "(a)\\1 | backreferences",
      "a++ | possessive quantifiers",
      "\\p{L}+ | Unicode character classes"})
  void whatAwssRegularExpressionsLeaveOut_isRefused(String regex, String feature) {
    assertThat(problems(url(regex, "/"))).contains("transforms[0].regex: regular expressions here do not support "
        + feature);
  }

  @Test
  void aReplacementNamingAGroupTheExpressionLacks_orTwoOfAType_orABadExpression_isRefused() {
    assertThat(problems(url("^/(a)/(b)$", "/$3"))).containsExactly(
        "transforms[0].replace: $3 names a capture group the regular expression does not have (it has 2)");
    assertThat(problems(url("^/a", "/b"), url("^/c", "/d"))).containsExactly(
        "transforms[1].type: a rule can have only one url-rewrite transform");
    assertThat(problems(url("^/(a", "/"))).singleElement().asString().startsWith("transforms[0].regex: not a regular"
        + " expression: Unclosed group");
    assertThat(problems(url("", "/"))).containsExactly(
        "transforms[0].regex: a regular expression of 1 to 1024 characters is required");
    assertThat(problems(url("^/a", "/caf\u00e9 x"))).containsExactly(
        "transforms[0].replace: a replacement holds visible ASCII characters only (percent-encode others)");
  }

}
