package io.fulcrum.listener;

/**
 * The size of a header field as HPACK sends it (RFC 7541): a string literal is Huffman-coded when
 * that is shorter (encoders choose so), raw otherwise. ALB counts this compressed size for its
 * 8 KB limit per header (SPEC §7.3); only fields longer than the limit raw need the count.
 */
final class HpackSize {

  /** Bits per symbol of HPACK's Huffman code, RFC 7541 Appendix B (symbols 0-255). */
  private static final byte[] HUFFMAN_BITS = {
      13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28,
      28, 28, 28, 28, 6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, 5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6,
      12, 10, 13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, 15, 5,
      6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, 6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, 20, 22, 20, 20, 22,
      22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, 24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, 22, 21,
      20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, 21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22,
      23, 26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, 19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26,
      28, 27, 27, 27, 20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, 26, 27, 26, 26, 27, 27, 27, 27, 27,
      28, 27, 27, 27, 27, 27, 26};

  private HpackSize() {
  }

  /** The bytes of {@code s} as an HPACK string literal, without its length prefix. */
  static int literal(CharSequence s) {
    long bits = 0;
    int bytes = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      // Header values reach us decoded as ISO-8859-1 (one byte per char); anything wider counts as UTF-8.
      if (c < 0x100) {
        bits += HUFFMAN_BITS[c];
        bytes++;
      } else {
        int utf8 = c < 0x800 ? 2 : 3;
        bytes += utf8;
        bits += 26L * utf8;
      }
    }
    return (int) Math.min(bytes, (bits + 7) / 8);
  }

  /** The compressed size of a header field: name and value literals. */
  static int field(CharSequence name, CharSequence value) {
    return literal(name) + literal(value);
  }
}
