package io.fulcrum.model;

import java.util.Arrays;
import java.util.Optional;
import java.util.stream.Collectors;

/** An enum with the exact spelling AWS uses on the wire ({@code application}, {@code HTTP1}, ...). */
public interface WireEnum {

  String wire();

  /** Looks up a constant by its wire name, exactly as AWS spells it. */
  static <E extends Enum<E> & WireEnum> Optional<E> parse(Class<E> type, String text) {
    for (E e : type.getEnumConstants()) {
      if (e.wire().equals(text)) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  /** Parses or records "'x' is not one of: a, b, c". */
  static <E extends Enum<E> & WireEnum> E parse(Class<E> type, String text, Problems problems) {
    Optional<E> e = parse(type, text);
    if (e.isEmpty()) {
      problems.add("'" + text + "' is not one of: " + expected(type));
      return null;
    }
    return e.get();
  }

  static <E extends Enum<E> & WireEnum> String expected(Class<E> type) {
    return Arrays.stream(type.getEnumConstants()).map(WireEnum::wire).collect(Collectors.joining(", "));
  }
}
