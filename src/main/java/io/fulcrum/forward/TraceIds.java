package io.fulcrum.forward;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.random.RandomGenerator;

/**
 * {@code X-Amzn-Trace-Id} handling (SPEC §11.2): create {@code Root=1-<8 hex time>-<24 hex>} when
 * none arrives; otherwise insert {@code Self=} in front of the fields, or update an existing
 * {@code Self}, keeping every other field. Called on the owning event loop with its random.
 */
public final class TraceIds {

  public static final String HEADER = "X-Amzn-Trace-Id";
  private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);
  private static final byte[] ROOT = "Root=".getBytes(StandardCharsets.ISO_8859_1);
  private static final int ID_LENGTH = 35;
  /** Over this size the header set is rewritten to a fresh Root only. */
  static final int MAX_HEADERS_BYTES = 7 * 1024;

  private TraceIds() {
  }

  /** A fresh id {@code 1-<epoch seconds, 8 hex>-<96 random bits, 24 hex>}. */
  public static String newId(long epochSeconds, RandomGenerator random) {
    byte[] c = new byte[ID_LENGTH];
    writeId(c, 0, epochSeconds, random);
    return new String(c, StandardCharsets.ISO_8859_1);
  }

  /**
   * {@code Root=} and a fresh id, built in one go (the usual header: the client sent none): the
   * bytes as written, wrapped without a copy.
   */
  static AsciiString newRoot(long epochSeconds, RandomGenerator random) {
    byte[] c = new byte[ROOT.length + ID_LENGTH];
    System.arraycopy(ROOT, 0, c, 0, ROOT.length);
    writeId(c, ROOT.length, epochSeconds, random);
    return new AsciiString(c, false);
  }

  private static void writeId(byte[] c, int at, long epochSeconds, RandomGenerator random) {
    c[at] = '1';
    c[at + 1] = '-';
    for (int i = 0; i < 8; i++) {
      c[at + 2 + i] = HEX[(int) (epochSeconds >>> (28 - 4 * i)) & 0xF];
    }
    c[at + 10] = '-';
    long a = random.nextLong();
    int b = random.nextInt();
    for (int i = 0; i < 16; i++) {
      c[at + 11 + i] = HEX[(int) (a >>> (60 - 4 * i)) & 0xF];
    }
    for (int i = 0; i < 8; i++) {
      c[at + 27 + i] = HEX[(b >>> (28 - 4 * i)) & 0xF];
    }
  }

  /**
   * The header value to forward.
   *
   * @param incoming     the value the client sent, or {@code null}
   * @param headersBytes the size of the request's headers (over 7 KB: fresh Root only)
   */
  public static CharSequence process(String incoming, long headersBytes, long epochSeconds, RandomGenerator random) {
    if (incoming == null || incoming.isBlank() || headersBytes > MAX_HEADERS_BYTES) {
      return newRoot(epochSeconds, random);
    }
    String id = newId(epochSeconds, random);
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
