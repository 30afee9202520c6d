package io.fulcrum.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

/**
 * {@code Marker}/{@code PageSize} paging over a list sorted by a unique key. A marker is opaque to
 * clients (base64 of the last key returned), so a page starts after that key even when resources
 * were added or deleted between calls; {@code NextMarker} is given only while more remain.
 */
final class MarkerPaging {

  static final int MAX_PAGE_SIZE = 400;

  private MarkerPaging() {
  }

  /** One page and the marker of the next, or {@code null} when this is the last. */
  record Page<T>(List<T> items, String nextMarker) {
  }

  /**
   * @param sorted   every item, sorted by {@code key} (unique)
   * @param marker   the request's {@code Marker}, or null for the first page
   * @param pageSize the request's {@code PageSize} (already checked 1-400), or null for the maximum
   */
  static <T> Page<T> page(List<T> sorted, Function<T, String> key, String marker, Integer pageSize) {
    int from = 0;
    if (marker != null) {
      String after = decode(marker);
      while (from < sorted.size() && key.apply(sorted.get(from)).compareTo(after) <= 0) {
        from++;
      }
    }
    int size = pageSize == null ? MAX_PAGE_SIZE : pageSize;
    int to = Math.min(sorted.size(), from + size);
    List<T> items = List.copyOf(sorted.subList(from, to));
    String next = to < sorted.size() ? encode(key.apply(sorted.get(to - 1))) : null;
    return new Page<>(items, next);
  }

  static String encode(String key) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(("v1:" + key).getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String marker) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(marker), StandardCharsets.UTF_8);
      if (text.startsWith("v1:")) {
        return text.substring(3);
      }
    } catch (IllegalArgumentException e) {
      // fall through: not a marker this API gave out
    }
    throw ApiError.validation("The marker '" + marker + "' is not valid (use the NextMarker of a previous response)");
  }
}
