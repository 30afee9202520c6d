package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.vertx.core.http.HttpServerOptions;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP/1.x request decoder: common header names are the table's constants, in the case the
 * client wrote them; every other name is decoded as Vert.x's decoder does, byte for byte.
 */
class RequestDecoderTest {

  private static final String HEAD = "GET /a HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl\r\n"
      + "accept-language: en\r\nUSER-AGENT: shouting\r\nX-Custom: c\r\nsec-fetch-mode: navigate\r\n"
      + "Cookie: a=1\r\n\r\n";

  @Test
  void commonNames_areSharedConstants_inTheCaseTheyCame_andTheOthersAreDecodedAsTheyCame() {
    EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(new HttpServerOptions()));

    channel.writeInbound(Unpooled.copiedBuffer(HEAD + HEAD, StandardCharsets.ISO_8859_1));
    List<CharSequence> first = names(channel);
    List<CharSequence> second = names(channel);

    assertThat(first).extracting(CharSequence::toString).containsExactly(
        "Host", "User-Agent", "accept-language", "USER-AGENT", "X-Custom", "sec-fetch-mode", "Cookie");
    assertThat(second).extracting(CharSequence::toString)
        .containsExactlyElementsOf(first.stream().map(CharSequence::toString).toList());
    for (int i : new int[] {0, 1, 2, 5, 6}) {
      assertThat(second.get(i)).as(first.get(i) + ", the same constant in both requests").isSameAs(first.get(i));
    }
    for (int i : new int[] {3, 4}) {
      assertThat(second.get(i)).as(first.get(i) + ", decoded anew").isNotSameAs(first.get(i));
    }
    assertThat(channel.finishAndReleaseAll()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"User-Agent", "user-agent", "Sec-WebSocket-Key", "sec-websocket-key", "TE", "te", "DNT",
      "X-Forwarded-For", "x-forwarded-for"})
  void knownName_isFound_inItsUsualSpellingAndInLowerCase(String name) {
    byte[] line = ("  " + name + ": value").getBytes(StandardCharsets.US_ASCII);

    AsciiString found = RequestDecoder.KnownNames.find(line, 2, name.length());

    assertThat((Object) found).hasToString(name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"User-agent", "USER-AGENT", "User-Agent2", "User-Agen", "X-Custom", "x", ""})
  void otherSpellingsAndNames_areNotFound(String name) {
    byte[] line = ("  " + name + ": value").getBytes(StandardCharsets.US_ASCII);

    assertThat((Object) RequestDecoder.KnownNames.find(line, 2, name.length())).isNull();
  }

  /** The header names of the next request the channel decoded, in order. */
  private static List<CharSequence> names(EmbeddedChannel channel) {
    HttpRequest request = channel.readInbound();
    assertThat(request.decoderResult().isSuccess()).isTrue();
    LastHttpContent end = channel.readInbound();
    end.release();
    List<CharSequence> names = new ArrayList<>();
    request.headers().iteratorCharSequence().forEachRemaining(e -> names.add(e.getKey()));
    return names;
  }
}
