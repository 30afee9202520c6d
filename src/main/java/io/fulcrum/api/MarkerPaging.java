package io.fulcrum.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.function.Function;

/**
 * {@code Marker}/{@code PageSize} paging of the Describe operations. A page holds at most
 * {@code PageSize} items (1-400, 400 when not given) and {@code NextMarker} is given only while
 * more remain. Markers are opaque to clients: either the last key returned (lists sorted by a
 * unique key, so a page starts after that key even when resources come and go between calls) or
 * the position of the next item (lists kept in their own order, such as listeners by port).
 */
final class MarkerPaging {

  static final int MAX_PAGE_SIZE = 400;
  private static final String KEY = "v1:";
  private static final String POSITION = "fulcrum-page:";

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
      String after = decode(marker, KEY);
      while (from < sorted.size() && key.apply(sorted.get(from)).compareTo(after) <= 0) {
        from++;
      }
    }
    int size = pageSize == null ? MAX_PAGE_SIZE : pageSize;
    int to = Math.min(sorted.size(), from + size);
    String next = to < sorted.size() ? encode(KEY + key.apply(sorted.get(to - 1))) : null;
    return new Page<>(List.copyOf(sorted.subList(from, to)), next);
  }

  /** Positional paging of {@code all} by the request's {@code Marker} and {@code PageSize}. */
  static <T> Page<T> page(List<T> all, QueryParams params) {
    Integer size = params.integer("PageSize");
    if (size != null && (size < 1 || size > MAX_PAGE_SIZE)) {
      throw ApiError.constraint(size, "pageSize", size < 1 ? "have value greater than or equal to 1"
          : "have value less than or equal to " + MAX_PAGE_SIZE);
    }
    int pageSize = size == null ? MAX_PAGE_SIZE : size;
    String marker = params.string("Marker");
    int from = 0;
    if (marker != null) {
      try {
        from = Math.min(Integer.parseInt(decode(marker, POSITION)), all.size());
      } catch (NumberFormatException e) {
        throw invalid(marker);
      }
      if (from < 0) {
        throw invalid(marker);
      }
    }
    int to = Math.min(all.size(), from + pageSize);
    return new Page<>(List.copyOf(all.subList(from, to)), to < all.size() ? encode(POSITION + to) : null);
  }

  private static String encode(String text) {
    return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String decode(String marker, String prefix) {
    try {
      String text = new String(Base64.getUrlDecoder().decode(marker), StandardCharsets.UTF_8);
      if (text.startsWith(prefix)) {
        return text.substring(prefix.length());
      }
    } catch (IllegalArgumentException e) {
      // fall through: not a marker this API gave out
    }
    throw invalid(marker);
  }

  private static ApiError invalid(String marker) {
    return ApiError.validation("The marker '" + marker + "' is not valid (use the NextMarker of a previous response)");
  }
}
