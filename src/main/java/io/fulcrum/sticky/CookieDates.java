package io.fulcrum.sticky;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * {@code Expires} dates as cookies carry them (RFC 1123 in GMT, two-digit day:
 * {@code Thu, 08 Jan 2026 10:00:00 GMT}), formatted at most once per second. One per event loop.
 */
final class CookieDates {

  /** The date of a cookie that the client is to drop at once. */
  static final String EPOCH = "Thu, 01 Jan 1970 00:00:00 GMT";

  private static final DateTimeFormatter FORMAT =
      DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

  private long second = Long.MIN_VALUE;
  private String text;

  String format(long epochMillis) {
    long s = Math.floorDiv(epochMillis, 1000);
    if (s != second) {
      text = FORMAT.format(Instant.ofEpochSecond(s));
      second = s;
    }
    return text;
  }
}
