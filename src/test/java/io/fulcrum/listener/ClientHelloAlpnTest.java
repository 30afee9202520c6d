package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The client's ALPN list as NLB's access log has it ({@code alpn_client_preference_list}), from
 * ClientHello bodies built here byte by byte (RFC 8446 §4.1.2, RFC 7301 §3.1); a real client's
 * hello is read in NetworkAccessLogTest.
 */
class ClientHelloAlpnTest {

  /** A ClientHello body: version, random, a session id, two cipher suites, null compression, then the extensions. */
  private static ByteBuf hello(byte[]... extensions) {
    ByteBuf b = Unpooled.buffer();
    b.writeShort(0x0303).writeZero(32);
    b.writeByte(32).writeZero(32);
    b.writeShort(4).writeShort(0x1301).writeShort(0x1302);
    b.writeByte(1).writeByte(0);
    int length = 0;
    for (byte[] e : extensions) {
      length += e.length;
    }
    b.writeShort(length);
    for (byte[] e : extensions) {
      b.writeBytes(e);
    }
    return b;
  }

  private static byte[] extension(int type, byte[] data) {
    ByteBuf b = Unpooled.buffer().writeShort(type).writeShort(data.length).writeBytes(data);
    return java.util.Arrays.copyOf(b.array(), b.writerIndex());
  }

  private static byte[] alpn(List<byte[]> names) {
    ByteBuf list = Unpooled.buffer();
    names.forEach(n -> list.writeByte(n.length).writeBytes(n));
    ByteBuf data = Unpooled.buffer().writeShort(list.readableBytes()).writeBytes(list);
    return extension(16, java.util.Arrays.copyOf(data.array(), data.writerIndex()));
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.US_ASCII);
  }

  @Test
  void theProtocols_inTheClientsOrder_quotedAndCommaSeparated_afterOtherExtensions() {
    byte[] sni = extension(0, ascii("\0\u000b\0\0\u0008nlb.test"));
    assertThat(ClientHelloAlpn.preferenceList(hello(sni, alpn(List.of(ascii("h2"), ascii("http/1.1"))))))
        .isEqualTo("\"h2\",\"http/1.1\"");
  }

  @Test
  void bytesOutsideAToken_areUrlEncoded() {
    assertThat(ClientHelloAlpn.preferenceList(hello(alpn(List.of(ascii("a b\"c,"), new byte[] {(byte) 0xff, 'x'})))))
        .isEqualTo("\"a%20b%22c%2C\",\"%FFx\"");
  }

  @Test
  void aLongList_isCutAt256Characters() {
    List<byte[]> names = java.util.stream.IntStream.range(0, 40).mapToObj(i -> ascii("protocol-" + i)).toList();
    String list = ClientHelloAlpn.preferenceList(hello(alpn(names)));
    assertThat(list).hasSize(ClientHelloAlpn.MAX_LENGTH).startsWith("\"protocol-0\",\"protocol-1\",");
  }

  @Test
  void noAlpnExtension_orAHelloCutShort_givesNone() {
    assertThat(ClientHelloAlpn.preferenceList(hello(extension(0, ascii("x"))))).isNull();
    assertThat(ClientHelloAlpn.preferenceList(hello())).isNull();
    ByteBuf cut = hello(alpn(List.of(ascii("h2"))));
    cut.writerIndex(cut.writerIndex() - 3);
    assertThat(ClientHelloAlpn.preferenceList(cut)).isNull();
    assertThat(ClientHelloAlpn.preferenceList(Unpooled.wrappedBuffer(new byte[10]))).isNull();
  }
}
