package io.fulcrum.api;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;

/**
 * {@code Marker} / {@code PageSize} paging of the Describe operations: a page holds at most
 * {@code PageSize} items (1-400, 400 when not given), and {@code NextMarker} is present only when
 * more remain. A marker is opaque to clients; it holds the position of the next item.
 */
final class MarkerPaging {

  static final int MAX_PAGE_SIZE = 400;
  private static final String PREFIX = "fulcrum-page:";

  private MarkerPaging() {
  }

  record Page<T>(List<T> items, String nextMarker) {
  }

  static <T> Page<T> page(List<T> all, QueryParams params) {
    Integer size = params.integer("PageSize");
    if (size != null && (size < 1 || size > MAX_PAGE_SIZE)) {
      throw ApiError.constraint(size, "pageSize", size < 1 ? "have value greater than or equal to 1"
          : "have value less than or equal to " + MAX_PAGE_SIZE);
    }
    int pageSize = size == null ? MAX_PAGE_SIZE : size;
    int from = start(params.string("Marker"), all.size());
    int to = Math.min(all.size(), from + pageSize);
    return new Page<>(List.copyOf(all.subList(from, to)), to < all.size() ? marker(to) : null);
  }

  private static String marker(int position) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((PREFIX + position).getBytes(StandardCharsets.UTF_8));
  }

  private static int start(String marker, int size) {
    if (marker == null) {
      return 0;
    }
    try {
      String text = new String(Base64.getUrlDecoder().decode(marker), StandardCharsets.UTF_8);
      if (text.startsWith(PREFIX)) {
        int position = Integer.parseInt(text.substring(PREFIX.length()));
        if (position >= 0) {
          return Math.min(position, size);
        }
      }
    } catch (IllegalArgumentException e) {
      // Not one of ours: refused below.
    }
    throw ApiError.validation("Invalid Marker: '" + marker + "' was not returned as a NextMarker by this API");
  }
}
