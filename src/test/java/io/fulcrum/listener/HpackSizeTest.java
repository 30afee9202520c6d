package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Compressed sizes against the Huffman-coded literals of RFC 7541's examples (Appendix C.4 and C.6). */
class HpackSizeTest {

  @Test
  void literal_isTheHuffmanCodeLength_ofRfc7541Examples() {
    assertThat(HpackSize.literal("www.example.com")).isEqualTo(12);
    assertThat(HpackSize.literal("no-cache")).isEqualTo(6);
    assertThat(HpackSize.literal("custom-key")).isEqualTo(8);
    assertThat(HpackSize.literal("custom-value")).isEqualTo(9);
    assertThat(HpackSize.literal("Mon, 21 Oct 2013 20:13:21 GMT")).isEqualTo(22);
    assertThat(HpackSize.literal("https://www.example.com")).isEqualTo(17);
  }

  @Test
  void literal_isRawWhenHuffmanWouldBeLonger() {
    // '{' takes 15 bits: raw is shorter.
    assertThat(HpackSize.literal("{".repeat(100))).isEqualTo(100);
    assertThat(HpackSize.literal("a".repeat(10_000))).isEqualTo(6_250);
    assertThat(HpackSize.field("x-big", "a".repeat(10_000))).isEqualTo(4 + 6_250);
  }
}
