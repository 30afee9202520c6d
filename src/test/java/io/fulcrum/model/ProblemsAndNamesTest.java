package io.fulcrum.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Problem paths and messages, and target group names (SPEC §8.3). */
class ProblemsAndNamesTest {

  @Test
  void problems_buildKeyPathsThroughViewsThatShareOneList() {
    Problems root = new Problems();
    root.at("target-groups").at(2).at("health-check").at("interval-seconds").add("301 is above the maximum 300");
    root.at("region").add(Problem.INVALID_CONFIGURATION, "bad");
    root.add("top");
    assertThat(root.list()).containsExactly(
        new Problem("target-groups[2].health-check.interval-seconds", Problem.VALIDATION_ERROR,
            "301 is above the maximum 300"),
        new Problem("region", Problem.INVALID_CONFIGURATION, "bad"),
        new Problem("", Problem.VALIDATION_ERROR, "top"));
    assertThat(root.size()).isEqualTo(3);
    assertThat(root.at("x").size()).as("a view sees the whole list").isEqualTo(3);
    assertThat(root.at("a").at(0).at(1).path()).isEqualTo("a[0][1]");
  }

  @Test
  void problem_printsAsPathColonMessage() {
    assertThat(new Problem("target-groups[2].health-check.interval-seconds", Problem.VALIDATION_ERROR,
        "301 is above the maximum 300")).hasToString("target-groups[2].health-check.interval-seconds: 301 is above the"
            + " maximum 300");
    assertThat(new Problem("", Problem.VALIDATION_ERROR, "no path")).hasToString("no path");
  }

  @Test
  void problemList_isReadOnly() {
    Problems problems = new Problems();
    problems.add("x");
    assertThatThrownBy(() -> problems.list().clear()).isInstanceOf(UnsupportedOperationException.class);
  }

  @ParameterizedTest
  @CsvSource({
      "5, 5, 300, true, ''",
      "300, 5, 300, true, ''",
      "4, 5, 300, false, 4 is below the minimum 5",
      "301, 5, 300, false, 301 is above the maximum 300",
      "-1, 0, 10, false, -1 is below the minimum 0"})
  void checkRange_namesTheValueAndTheBound(long value, long min, long max, boolean ok, String message) {
    Problems problems = new Problems();
    assertThat(problems.at("k").checkRange(value, min, max)).isEqualTo(ok);
    assertThat(problems.list()).extracting(Problem::toString)
        .containsExactlyElementsOf(ok ? List.of() : List.of("k: " + message));
  }

  @Test
  void invalidModelException_listsEveryProblem_oneALine() {
    InvalidModelException e = new InvalidModelException(List.of(new Problem("a", "ValidationError", "one"),
        new Problem("b.c", "InvalidConfigurationRequest", "two")));
    assertThat(e).hasMessage("a: one\nb.c: two");
    assertThat(e.problems()).extracting(Problem::path).containsExactly("a", "b.c");
  }

  @ParameterizedTest
  @ValueSource(strings = {"a", "web", "my-tg-1", "WEB2", "a-b-c", "abcdefghijklmnopqrstuvwxyz012345"})
  void targetGroupName_ofLettersDigitsAndInnerHyphens_isValid(String name) {
    Problems problems = new Problems();
    assertThat(TargetGroup.checkName(name, problems)).isTrue();
    assertThat(problems.list()).isEmpty();
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', value = {
      "abcdefghijklmnopqrstuvwxyz0123456 | Target group name 'abcdefghijklmnopqrstuvwxyz0123456' cannot be longer than"
          + " '32' characters",
      "my_tg | Target group name 'my_tg' can only contain characters that are alphanumeric characters or hyphens(-)",
      "my.tg | Target group name 'my.tg' can only contain characters that are alphanumeric characters or hyphens(-)",
      "caf\u00e9 | Target group name 'caf\u00e9' can only contain characters that are alphanumeric characters or"
          + " hyphens(-)",
      "-tg | Target group name '-tg' cannot begin or end with '-'",
      "tg- | Target group name 'tg-' cannot begin or end with '-'"})
  void targetGroupName_isRejectedWithAwsMessages(String name, String message) {
    Problems problems = new Problems();
    assertThat(TargetGroup.checkName(name, problems)).isFalse();
    assertThat(problems.list()).containsExactly(new Problem("", Problem.VALIDATION_ERROR, message));
  }

  @Test
  void targetGroupName_isRequired() {
    for (String name : new String[] {null, ""}) {
      Problems problems = new Problems();
      assertThat(TargetGroup.checkName(name, problems)).isFalse();
      assertThat(problems.list()).extracting(Problem::message)
          .containsExactly("a name is required (1-32 letters, digits and hyphens)");
    }
  }
}
