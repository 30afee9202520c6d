package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.NullSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Matcher syntax and ranges (SPEC §1.4 and "Fulcrum's decisions": accept mixes, reject out-of-range codes). */
class CodeMatcherTest {

  private static final String ALB = "(expected codes 200-499 as a code, a list or a range, e.g. \"200\", \"200,201\","
      + " \"200-499\")";

  private static CodeMatcher parseAlb(String text, Problems problems) {
    return CodeMatcher.parse(text, 200, 499, problems);
  }

  private static CodeMatcher valid(String text, int min, int max) {
    Problems problems = new Problems();
    CodeMatcher m = CodeMatcher.parse(text, min, max, problems);
    assertThat(problems.list()).isEmpty();
    assertThat(m).isNotNull();
    return m;
  }

  /** Parses and returns the single problem's message; asserts that nothing was returned. */
  private static String invalid(String text, int min, int max) {
    Problems problems = new Problems();
    CodeMatcher m = CodeMatcher.parse(text, min, max, problems);
    assertThat(m).isNull();
    assertThat(problems.list()).hasSize(1);
    Problem p = problems.list().get(0);
    assertThat(p.code()).isEqualTo(Problem.VALIDATION_ERROR);
    assertThat(p.path()).isEmpty();
    return p.message();
  }

  @ParameterizedTest(name = "{0} in {1}-{2} matches {3}, not {4}")
  @CsvSource(delimiter = '|', value = {
      // text           | min | max | matching codes      | codes that do not match
      "200              | 200 | 499 | 200                 | 199 201 404",
      "200,202          | 200 | 499 | 200 202             | 201 203",
      "200-299          | 200 | 499 | 200 250 299         | 199 300",
      "200-299,302      | 200 | 499 | 200 299 302         | 300 301 303",
      "'200 , 302'      | 200 | 499 | 200 302             | 201",
      "' 200 - 204 '    | 200 | 499 | 200 204             | 205",
      "499              | 200 | 499 | 499                 | 498",
      "200-499          | 200 | 499 | 200 404 499         | 500",
      "200-599          | 200 | 599 | 200 503 599         | 199 600",
      "200-399          | 200 | 599 | 200 301 399         | 400",
      "12               | 0   | 99  | 12                  | 0 11 13",
      "0                | 0   | 99  | 0                   | 1",
      "0,1              | 0   | 99  | 0 1                 | 2",
      "0-5,12           | 0   | 99  | 0 5 12              | 6 11 13",
      "0-99             | 0   | 99  | 0 50 99             | 100 -1"})
  void validMatcher_matchesExactlyItsCodes(String text, int min, int max, String yes, String no) {
    CodeMatcher m = valid(text, min, max);
    assertThat(codes(yes)).allSatisfy(c -> assertThat(m.matches(c)).as("matches %d", c).isTrue());
    assertThat(codes(no)).allSatisfy(c -> assertThat(m.matches(c)).as("matches %d", c).isFalse());
  }

  private static List<Integer> codes(String list) {
    return Arrays.stream(list.trim().split("\\s+")).map(Integer::valueOf).toList();
  }

  @ParameterizedTest(name = "{0} in {1}-{2}")
  @CsvSource(delimiter = '|', value = {
      "500         | 200 | 499",
      "199         | 200 | 499",
      "200-500     | 200 | 499",
      "200,500     | 200 | 499",
      "600         | 200 | 599",
      "100-599     | 200 | 599",
      "100         | 0   | 99",
      "0-100       | 0   | 99"})
  void codeOutsideTheAllowedRange_isRejected(String text, int min, int max) {
    assertThat(invalid(text, min, max)).isEqualTo("'" + text + "' has a code outside " + min + "-" + max
        + " (expected codes " + min + "-" + max + " as a code, a list or a range, e.g. \"" + min + "\", \"" + min
        + "," + (min + 1) + "\", \"" + min + "-" + max + "\")");
  }

  @ParameterizedTest
  @ValueSource(strings = {"299-200", "200,404-400"})
  void reversedRange_isRejected(String text) {
    assertThat(invalid(text, 200, 499)).isEqualTo("'" + text + "' has a range whose start is above its end " + ALB);
  }

  @ParameterizedTest
  @ValueSource(strings = {"abc", "2xx", "200;302", "200,,302", "200,", ",200", "-", "200-", "-200",
      "200-300-400", "200..299", "20 0", "+200", "\u0662\u0660\u0660", "99999999999"})
  void garbage_isRejected(String text) {
    assertThat(invalid(text, 200, 499)).isEqualTo("'" + text + "' is not a valid matcher " + ALB);
  }

  @ParameterizedTest
  @NullSource
  @ValueSource(strings = {"", "   "})
  void missingMatcher_isRejected(String text) {
    assertThat(invalid(text, 200, 499)).isEqualTo("a matcher is required " + ALB);
  }

  @Test
  void problem_isRecordedAtTheGivenPath() {
    Problems problems = new Problems();
    parseAlb("600", problems.at("matcher").at("http-code"));
    assertThat(problems.list()).extracting(Problem::path).containsExactly("matcher.http-code");
  }

  @Test
  void text_isTheMatcherWithoutWhitespace() {
    assertThat(valid(" 200 , 302 ", 200, 499).text()).isEqualTo("200,302");
    assertThat(valid("200,\t302", 200, 499).text()).isEqualTo("200,302");
    assertThat(valid("200-299,302", 200, 499).toString()).isEqualTo("200-299,302");
  }

  @Test
  void matchersWithTheSameCodes_areEqual() {
    assertThat(valid("200-202", 200, 499)).isEqualTo(valid("200,201,202", 200, 499))
        .hasSameHashCodeAs(valid("202,200-201", 200, 499));
    assertThat(valid("200-202", 200, 499)).isNotEqualTo(valid("200-203", 200, 499));
  }

  @Test
  void matches_isFalseForCodesFarOutsideTheRange() {
    CodeMatcher m = valid("200-499", 200, 499);
    assertThat(m.matches(Integer.MIN_VALUE)).isFalse();
    assertThat(m.matches(100_000)).isFalse();
  }
}
