package io.fulcrum.forward;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.AsciiString;
import java.util.Iterator;
import java.util.Locale;
import java.util.Map;

/** Header names as HTTP/2 writes them: in lower case, the common ones as shared constants. */
final class H2Names {

  /** Names most requests and responses carry, in lower case, by their case-insensitive hash. */
  private static final AsciiString[] COMMON = table(HttpHeaderNames.CONTENT_TYPE, HttpHeaderNames.CONTENT_LENGTH,
      HttpHeaderNames.DATE, HttpHeaderNames.SERVER, HttpHeaderNames.LAST_MODIFIED, HttpHeaderNames.ETAG,
      HttpHeaderNames.ACCEPT_RANGES, HttpHeaderNames.CACHE_CONTROL, HttpHeaderNames.SET_COOKIE,
      HttpHeaderNames.LOCATION, HttpHeaderNames.VARY, HttpHeaderNames.EXPIRES, HttpHeaderNames.CONTENT_ENCODING,
      AsciiString.cached("x-forwarded-for"), AsciiString.cached("x-forwarded-proto"),
      AsciiString.cached("x-forwarded-port"), AsciiString.cached("x-amzn-trace-id"));

  private H2Names() {
  }

  /** {@code name} in lower case: a shared constant for a common name, else itself when already lower case. */
  static CharSequence lowerCase(CharSequence name) {
    AsciiString common = COMMON[AsciiString.hashCode(name) & (COMMON.length - 1)];
    if (common != null && common.contentEqualsIgnoreCase(name)) {
      return common; // no copy, and the same instance for HPACK's table every time
    }
    if (name instanceof AsciiString a) {
      return a.toLowerCase();
    }
    return name.toString().toLowerCase(Locale.ROOT);
  }

  /** HTTP/1.1 headers as HTTP/2 has them: names in lower case (hop-by-hop headers are already gone). */
  static void copy(HttpHeaders from, Http2Headers to) {
    Iterator<Map.Entry<CharSequence, CharSequence>> it = from.iteratorCharSequence();
    while (it.hasNext()) {
      Map.Entry<CharSequence, CharSequence> e = it.next();
      to.add(lowerCase(e.getKey()), e.getValue());
    }
  }

  private static AsciiString[] table(AsciiString... names) {
    for (int size = 64; ; size *= 2) {
      AsciiString[] t = new AsciiString[size];
      boolean clash = false;
      for (AsciiString n : names) {
        int slot = AsciiString.hashCode(n) & (size - 1);
        clash |= t[slot] != null;
        t[slot] = n;
      }
      if (!clash) {
        return t;
      }
    }
  }
}
