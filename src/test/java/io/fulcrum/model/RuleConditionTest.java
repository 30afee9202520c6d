package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.BiPredicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Per-value rules of listener rule conditions, and how conditions count toward the per-rule limits. */
class RuleConditionTest {

  /** Runs a validator; returns null when valid, else the one message recorded. */
  private static String check(BiPredicate<String, Problems> validator, String value) {
    Problems problems = new Problems();
    boolean ok = validator.test(value, problems);
    assertThat(ok).isEqualTo(problems.isEmpty());
    assertThat(problems.size()).isLessThanOrEqualTo(1);
    return ok ? null : problems.list().get(0).message();
  }

  @ParameterizedTest
  @ValueSource(strings = {"/", "/api/*", "/img/?.png", "*", "/a-b_c.d$~'@:+&", "/\"quoted\"", "/v1/users/*/orders"})
  void pathPattern_withAllowedCharacters_isValid(String value) {
    assertThat(check(RuleCondition::checkPathPattern, value)).isNull();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "'/a b' | ' '",
      "/a%20b | %",
      "/a#b | #",
      "/a=b | =",
      "/caf\u00e9 | \u00e9",
      "/a\\b | \\"})
  void pathPattern_withOtherCharacters_isRejectedNamingTheCharacter(String value, String c) {
    assertThat(check(RuleCondition::checkPathPattern, value)).isEqualTo("'" + value + "' contains '" + c
        + "' (expected: A-Z, a-z, 0-9, _ - . $ / ~ \" ' @ : + & * ?)");
  }

  @Test
  void value_mustBe1To128Characters() {
    assertThat(check(RuleCondition::checkPathPattern, "/" + "a".repeat(127))).isNull();
    assertThat(check(RuleCondition::checkPathPattern, "/" + "a".repeat(128)))
        .isEqualTo("a value of 1-128 characters is required");
    assertThat(check(RuleCondition::checkPathPattern, "")).isEqualTo("a value of 1-128 characters is required");
    assertThat(check(RuleCondition::checkHostPattern, null)).isEqualTo("a value of 1-128 characters is required");
  }

  @ParameterizedTest
  @ValueSource(strings = {"example.com", "*.example.com", "api-1.example.co?", "EXAMPLE.COM", "a.b", "*.*"})
  void hostPattern_withADotAndLettersAfterIt_isValid(String value) {
    assertThat(check(RuleCondition::checkHostPattern, value)).isNull();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "localhost | 'localhost' must include at least one '.'",
      "* | '*' must include at least one '.'",
      "example.c0m | 'example.c0m' may only have letters after its final '.'",
      "10.0.0.1 | '10.0.0.1' may only have letters after its final '.'",
      "ex_ample.com | 'ex_ample.com' contains '_' (expected: A-Z, a-z, 0-9, - . * ?)",
      "example.com:8080 | 'example.com:8080' contains ':' (expected: A-Z, a-z, 0-9, - . * ?)"})
  void hostPattern_isRejectedSayingWhy(String value, String message) {
    assertThat(check(RuleCondition::checkHostPattern, value)).isEqualTo(message);
  }

  @Test
  void headerName_isAToken_of1To40Characters() {
    assertThat(check(RuleCondition::checkHeaderName, "X-Forwarded-For")).isNull();
    assertThat(check(RuleCondition::checkHeaderName, "x".repeat(40))).isNull();
    assertThat(check(RuleCondition::checkHeaderName, "x".repeat(41))).isEqualTo("a header name of 1-40 characters is required");
    assertThat(check(RuleCondition::checkHeaderName, "")).isEqualTo("a header name of 1-40 characters is required");
    assertThat(check(RuleCondition::checkHeaderName, "X Custom")).isEqualTo("'X Custom' is not a valid header name");
    assertThat(check(RuleCondition::checkHeaderName, "X:Custom")).isEqualTo("'X:Custom' is not a valid header name");
  }

  @Test
  void method_isUpperCaseLettersHyphensAndUnderscores() {
    assertThat(check(RuleCondition::checkMethod, "GET")).isNull();
    assertThat(check(RuleCondition::checkMethod, "CUSTOM-METHOD_X")).isNull();
    assertThat(check(RuleCondition::checkMethod, "get"))
        .isEqualTo("'get' is not a valid method (expected: A-Z, - and _, case-sensitive)");
    assertThat(check(RuleCondition::checkMethod, "GET1"))
        .isEqualTo("'GET1' is not a valid method (expected: A-Z, - and _, case-sensitive)");
    assertThat(check(RuleCondition::checkMethod, "")).isEqualTo("a method of 1-40 characters is required");
  }

  @Test
  void validate_recordsEachBadValueAtItsIndex() {
    Problems problems = new Problems();
    RuleCondition.validate(new RuleCondition.PathPattern(List.of("/ok", "/not ok", "")), problems.at("conditions").at(0));
    assertThat(problems.list()).extracting(Problem::toString).containsExactly(
        "conditions[0].values[1]: '/not ok' contains ' ' (expected: A-Z, a-z, 0-9, _ - . $ / ~ \" ' @ : + & * ?)",
        "conditions[0].values[2]: a value of 1-128 characters is required");
  }

  @Test
  void validate_needsAtLeastOneValue() {
    Problems problems = new Problems();
    RuleCondition.validate(new RuleCondition.HostHeader(List.of()), problems);
    assertThat(problems.list()).extracting(Problem::toString)
        .containsExactly("values: a host-header condition needs at least one value");
  }

  @Test
  void validate_checksHeaderNameAndQueryStringKeys() {
    Problems problems = new Problems();
    RuleCondition.validate(new RuleCondition.HttpHeader("bad name", List.of("v")), problems.at("a"));
    RuleCondition.validate(new RuleCondition.QueryString(List.of(new RuleCondition.KeyValue("", "v"),
        new RuleCondition.KeyValue(null, null))), problems.at("b"));
    RuleCondition.validate(new RuleCondition.HttpRequestMethod(List.of("post")), problems.at("c"));
    assertThat(problems.list()).extracting(Problem::toString).containsExactly(
        "a.http-header-name: 'bad name' is not a valid header name",
        "b.values[0].key: a key of 1-128 characters is required when given",
        "b.values[1].value: a value of 1-128 characters is required",
        "c.values[0]: 'post' is not a valid method (expected: A-Z, - and _, case-sensitive)");
  }

  @Test
  void conditions_countTheirValuesAndWildcards() {
    RuleCondition path = new RuleCondition.PathPattern(List.of("/a/*", "/b?c*"));
    assertThat(path.field()).isEqualTo("path-pattern");
    assertThat(path.valueCount()).isEqualTo(2);
    assertThat(path.wildcardCount()).isEqualTo(3);

    RuleCondition query = new RuleCondition.QueryString(List.of(new RuleCondition.KeyValue("k*", "v?"),
        new RuleCondition.KeyValue(null, "*")));
    assertThat(query.valueCount()).isEqualTo(2);
    assertThat(query.wildcardCount()).isEqualTo(3);
    RuleCondition escaped = new RuleCondition.QueryString(List.of(new RuleCondition.KeyValue("k\\*", "a\\?b*")));
    assertThat(escaped.wildcardCount()).as("an escaped * or ? is no wildcard").isEqualTo(1);

    RuleCondition header = new RuleCondition.HttpHeader("User-Agent", List.of("*Mobile*"));
    assertThat(header.wildcardCount()).isEqualTo(2);
    assertThat(new RuleCondition.HttpRequestMethod(List.of("GET", "HEAD")).wildcardCount()).isZero();
    assertThat(new RuleCondition.SourceIp(List.of(Cidr.parse("10.0.0.0/8"))).valueCount()).isEqualTo(1);
  }
}
