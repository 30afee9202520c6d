package io.fulcrum.model;

import java.util.List;
import java.util.stream.Collectors;

/** Thrown when validation found problems; carries all of them. */
public final class InvalidModelException extends RuntimeException {

  private final transient List<Problem> problems;

  public InvalidModelException(List<Problem> problems) {
    super(problems.stream().map(Problem::toString).collect(Collectors.joining("\n")));
    this.problems = List.copyOf(problems);
  }

  public List<Problem> problems() {
    return problems;
  }
}
