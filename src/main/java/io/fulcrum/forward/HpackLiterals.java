package io.fulcrum.forward;

import java.nio.charset.StandardCharsets;

/**
 * HPACK header blocks (RFC 7541) made without the dynamic table: {@code :status} from the static
 * table where it has the code, every other field as a literal that is not indexed (§6.2.2), its name
 * from the static table where the table has it, strings without Huffman coding. Such a block changes
 * neither side's dynamic table, so it can go between the blocks of the connection's stateful encoder
 * (Netty's) without either noticing; it costs a few bytes more on the wire and no table search, no
 * Huffman pass and no header object. HAProxy's encoder never refers to the dynamic table nor
 * Huffman-codes either.
 *
 * <p>What the blocks must not skip is a dynamic table size update that the stateful encoder owes
 * the peer (§4.2): {@link HeadersFrames} sends the first block after a SETTINGS frame that changed
 * the table's size through that encoder.
 */
final class HpackLiterals {

  /** The static table's names (RFC 7541 Appendix A) from index 15 on, where the pseudo-headers end. */
  private static final String[] STATIC_NAMES = {
      "accept-charset", "accept-encoding", "accept-language", "accept-ranges", "accept",
      "access-control-allow-origin", "age", "allow", "authorization", "cache-control", "content-disposition",
      "content-encoding", "content-language", "content-length", "content-location", "content-range",
      "content-type", "cookie", "date", "etag", "expect", "expires", "from", "host", "if-match",
      "if-modified-since", "if-none-match", "if-range", "if-unmodified-since", "last-modified", "link", "location",
      "max-forwards", "proxy-authenticate", "proxy-authorization", "range", "referer", "refresh", "retry-after",
      "server", "set-cookie", "strict-transport-security", "transfer-encoding", "user-agent", "vary", "via",
      "www-authenticate"};
  private static final int FIRST_NAME_INDEX = 15;
  /** The static table's {@code :status} entry without a value of its own, for codes the table lacks. */
  private static final int STATUS_NAME_INDEX = 8;

  /** Static names by hash of their bytes, each slot the name and its index (0: empty). */
  private static final byte[][] NAMES;
  private static final int[] INDEXES;

  static {
    for (int size = 64; ; size *= 2) {
      byte[][] names = new byte[size][];
      int[] indexes = new int[size];
      boolean clash = false;
      for (int i = 0; i < STATIC_NAMES.length; i++) {
        byte[] name = STATIC_NAMES[i].getBytes(StandardCharsets.US_ASCII);
        int slot = hash(name, 0, name.length) & (size - 1);
        clash |= names[slot] != null;
        names[slot] = name;
        indexes[slot] = FIRST_NAME_INDEX + i;
      }
      if (!clash) {
        NAMES = names;
        INDEXES = indexes;
        break;
      }
    }
  }

  private HpackLiterals() {
  }

  /** The most a field takes in a block beyond its name's and value's bytes (a first byte, two integers). */
  static final int FIELD_OVERHEAD = 1 + 4 + 4;
  /** The most {@code :status} takes. */
  static final int STATUS_SIZE = 5;

  /** Writes {@code :status} for a three-digit {@code code} at {@code at}; returns where the block goes on. */
  static int status(byte[] out, int at, int code) {
    int index = switch (code) {
      case 200 -> 8;
      case 204 -> 9;
      case 206 -> 10;
      case 304 -> 11;
      case 400 -> 12;
      case 404 -> 13;
      case 500 -> 14;
      default -> 0;
    };
    if (index != 0) {
      out[at] = (byte) (0x80 | index); // indexed field (§6.1)
      return at + 1;
    }
    out[at] = STATUS_NAME_INDEX; // literal without indexing, indexed name (§6.2.2)
    out[at + 1] = 3;
    out[at + 2] = (byte) ('0' + code / 100);
    out[at + 3] = (byte) ('0' + code / 10 % 10);
    out[at + 4] = (byte) ('0' + code % 10);
    return at + 5;
  }

  /**
   * Writes a field as a literal without indexing at {@code at}: the name from {@code src}, in lower
   * case, the value as it is. {@code out} must have {@link #FIELD_OVERHEAD} bytes more than the
   * name's and value's. Returns where the block goes on.
   */
  static int field(byte[] out, int at, byte[] src, int nameStart, int nameLength, int valueStart,
      int valueLength) {
    // The name goes where a literal name would be; if the static table has it, its index takes its place.
    int name = at + 1 + integerSize(nameLength, 7);
    int hash = 0;
    for (int i = 0; i < nameLength; i++) {
      byte b = src[nameStart + i];
      if (b >= 'A' && b <= 'Z') {
        b += 'a' - 'A';
      }
      out[name + i] = b;
      hash = 31 * hash + b;
    }
    int slot = hash & (NAMES.length - 1);
    byte[] known = NAMES[slot];
    int p;
    if (known != null && known.length == nameLength && same(known, out, name)) {
      p = integer(out, at, 4, 0x00, INDEXES[slot]);
    } else {
      out[at] = 0x00; // a literal name follows
      p = integer(out, at + 1, 7, 0x00, nameLength) + nameLength;
    }
    p = integer(out, p, 7, 0x00, valueLength);
    System.arraycopy(src, valueStart, out, p, valueLength);
    return p + valueLength;
  }

  /** Writes {@code value} as an HPACK integer with an N-bit prefix (§5.1), high bits {@code flags}. */
  static int integer(byte[] out, int at, int prefixBits, int flags, int value) {
    int max = (1 << prefixBits) - 1;
    if (value < max) {
      out[at] = (byte) (flags | value);
      return at + 1;
    }
    out[at++] = (byte) (flags | max);
    value -= max;
    while (value >= 0x80) {
      out[at++] = (byte) (value & 0x7f | 0x80);
      value >>>= 7;
    }
    out[at] = (byte) value;
    return at + 1;
  }

  private static int integerSize(int value, int prefixBits) {
    int max = (1 << prefixBits) - 1;
    if (value < max) {
      return 1;
    }
    int size = 2;
    for (value -= max; value >= 0x80; value >>>= 7) {
      size++;
    }
    return size;
  }

  private static int hash(byte[] b, int from, int length) {
    int h = 0;
    for (int i = 0; i < length; i++) {
      h = 31 * h + b[from + i];
    }
    return h;
  }

  private static boolean same(byte[] known, byte[] out, int at) {
    for (int i = 0; i < known.length; i++) {
      if (known[i] != out[at + i]) {
        return false;
      }
    }
    return true;
  }
}
