package io.fulcrum.model;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Collects every {@link Problem} found while validating, each with its key path. Validation never
 * stops at the first problem: a user fixing a file wants the whole list at once.
 *
 * <p>A {@code Problems} is a view at one path; {@link #at(String)} and {@link #at(int)} give views
 * one level deeper that share the same list. Not thread-safe: one validation runs on one thread.
 */
public final class Problems {

  private final List<Problem> sink;
  private final String path;

  public Problems() {
    this(new ArrayList<>(), "");
  }

  private Problems(List<Problem> sink, String path) {
    this.sink = sink;
    this.path = path;
  }

  /** A view for the key {@code key} below this one. */
  public Problems at(String key) {
    return new Problems(sink, path.isEmpty() ? key : path + "." + key);
  }

  /** A view for the list element {@code index} below this one. */
  public Problems at(int index) {
    return new Problems(sink, path + "[" + index + "]");
  }

  public String path() {
    return path;
  }

  /** Records a {@code ValidationError} at this path. */
  public void add(String message) {
    add(Problem.VALIDATION_ERROR, message);
  }

  public void add(String code, String message) {
    sink.add(new Problem(path, code, message));
  }

  public boolean isEmpty() {
    return sink.isEmpty();
  }

  public int size() {
    return sink.size();
  }

  public List<Problem> list() {
    return Collections.unmodifiableList(sink);
  }

  /**
   * Checks an integer range; records "{@code 301 is above the maximum 300}" style messages.
   *
   * @return whether the value is in range
   */
  public boolean checkRange(long value, long min, long max) {
    if (value < min) {
      add(value + " is below the minimum " + min);
      return false;
    }
    if (value > max) {
      add(value + " is above the maximum " + max);
      return false;
    }
    return true;
  }
}
