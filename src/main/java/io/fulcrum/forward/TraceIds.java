package io.fulcrum.forward;

import java.util.random.RandomGenerator;

/**
 * {@code X-Amzn-Trace-Id} handling (SPEC §11.2): create {@code Root=1-<8 hex time>-<24 hex>} when
 * none arrives; otherwise insert {@code Self=} in front of the fields, or update an existing
 * {@code Self}, keeping every other field. Called on the owning event loop with its random.
 */
public final class TraceIds {

  public static final String HEADER = "X-Amzn-Trace-Id";
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  /** Over this size the header set is rewritten to a fresh Root only. */
  static final int MAX_HEADERS_BYTES = 7 * 1024;

  private TraceIds() {
  }

  /** A fresh id {@code 1-<epoch seconds, 8 hex>-<96 random bits, 24 hex>}. */
  public static String newId(long epochSeconds, RandomGenerator random) {
    char[] c = new char[35];
    c[0] = '1';
    c[1] = '-';
    for (int i = 0; i < 8; i++) {
      c[2 + i] = HEX[(int) (epochSeconds >>> (28 - 4 * i)) & 0xF];
    }
    c[10] = '-';
    long a = random.nextLong();
    int b = random.nextInt();
    for (int i = 0; i < 16; i++) {
      c[11 + i] = HEX[(int) (a >>> (60 - 4 * i)) & 0xF];
    }
    for (int i = 0; i < 8; i++) {
      c[27 + i] = HEX[(b >>> (28 - 4 * i)) & 0xF];
    }
    return new String(c);
  }

  /**
   * The header value to forward.
   *
   * @param incoming     the value the client sent, or {@code null}
   * @param headersBytes the size of the request's headers (over 7 KB: fresh Root only)
   */
  public static String process(String incoming, long headersBytes, long epochSeconds, RandomGenerator random) {
    String id = newId(epochSeconds, random);
    if (incoming == null || incoming.isBlank() || headersBytes > MAX_HEADERS_BYTES) {
      return "Root=" + id;
    }
    String[] fields = incoming.split(";");
    StringBuilder b = new StringBuilder(incoming.length() + 48);
    boolean hasSelf = false;
    for (String f : fields) {
      if (f.trim().startsWith("Self=")) {
        hasSelf = true;
        break;
      }
    }
    if (!hasSelf) {
      b.append("Self=").append(id);
      for (String f : fields) {
        if (!f.isBlank()) {
          b.append(';').append(f.trim());
        }
      }
      return b.toString();
    }
    boolean first = true;
    for (String f : fields) {
      String t = f.trim();
      if (t.isEmpty()) {
        continue;
      }
      if (!first) {
        b.append(';');
      }
      first = false;
      b.append(t.startsWith("Self=") ? "Self=" + id : t);
    }
    return b.toString();
  }
}
