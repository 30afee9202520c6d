package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.vertx.core.http.impl.headers.HeadersMultiMap;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Header text as the direct path writes it: byte for byte what Netty's ASCII writer gives, long text or short. */
class Http1WireTest {

  @ParameterizedTest
  @ValueSource(strings = {"", "short", "caf\u00e9 \u00ff", "\u20ac and \u0100 are above Latin-1"})
  void textIsWrittenAsNettyWritesIt_shortOrLong(String text) {
    for (String s : new String[] {text, text.repeat(20), "x".repeat(47) + text, "x".repeat(48) + text}) {
      ByteBuf ours = Unpooled.buffer();
      ByteBuf netty = Unpooled.buffer();
      Http1Wire.writeText(ours, s);
      ByteBufUtil.writeAscii(netty, s);
      assertThat(ByteBufUtil.getBytes(ours)).as(s).isEqualTo(ByteBufUtil.getBytes(netty));
      ours.clear();
      Http1Wire.writeText(ours, new AsciiString(s));
      assertThat(ByteBufUtil.getBytes(ours)).as("AsciiString " + s).isEqualTo(ByteBufUtil.getBytes(netty));
    }
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void fieldsAreWrittenInOrder_andTheirLengthIsKnownBefore(boolean vertxHeaders) {
    HttpHeaders h = vertxHeaders ? HeadersMultiMap.httpHeaders() : new DefaultHttpHeaders();
    h.add("Host", "example.com").add("Cookie", "a=" + "b".repeat(3000)).add("X-Two", "1").add("X-Two", "2");
    ByteBuf buf = Unpooled.buffer();
    Http1Wire.writeFields(buf, h);
    String written = buf.toString(java.nio.charset.StandardCharsets.ISO_8859_1);
    assertThat(written).isEqualTo("Host: example.com\r\nCookie: a=" + "b".repeat(3000) + "\r\nX-Two: 1\r\nX-Two: 2\r\n");
    assertThat(Http1Wire.fieldsLength(h)).isEqualTo(written.length());
  }

  /**
   * HTTP/2 trailers (a relayed request's, a target's response's) keep what a trailer may carry and
   * lose the rest, whatever its case; clean ones (a gRPC call's status) are passed as they are.
   */
  @org.junit.jupiter.api.Test
  void http2Trailers_loseTheFieldsNoTrailerMayCarry_andCleanOnesStayTheSameObject() {
    io.netty.handler.codec.http2.Http2Headers grpc = new io.netty.handler.codec.http2.DefaultHttp2Headers()
        .add("grpc-status", "0").add("grpc-message", "ok").add("x-meta-bin", "AAE=");
    assertThat(Http1Wire.trailing(grpc)).isSameAs(grpc);

    io.netty.handler.codec.http2.Http2Headers mixed = new io.netty.handler.codec.http2.DefaultHttp2Headers(false)
        .add("x-checksum", "abc").add("host", "evil").add("Set-Cookie", "s=1").add("authorization", "x")
        .add("content-length", "9").add("x-other", "1");
    assertThat(Http1Wire.trailing(mixed).names()).extracting(CharSequence::toString)
        .containsExactlyInAnyOrder("x-checksum", "x-other");
  }
}
