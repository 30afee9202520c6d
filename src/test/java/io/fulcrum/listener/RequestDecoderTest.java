package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderResultProvider;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.impl.VertxHttpRequestDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP/1.x request decoder: common header names are the table's constants, in the case the
 * client wrote them; every other name is decoded as Vert.x's decoder does, byte for byte. Behind
 * an h2c upgrade handler it takes over at the end of the first request.
 */
class RequestDecoderTest {

  private static final String HEAD = "GET /a HTTP/1.1\r\nHost: example.com\r\nUser-Agent: curl\r\n"
      + "accept-language: en\r\nUSER-AGENT: shouting\r\nX-Custom: c\r\nsec-fetch-mode: navigate\r\n"
      + "Cookie: a=1\r\n\r\n";
  private static final HttpServerOptions OPTIONS = new HttpServerOptions();

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

  /**
   * On a listener that takes h2c too, the connection's first request is Vert.x's decoder's to
   * finish (its body may still be coming); once it has ended the table's decoder takes over, and
   * the requests pipelined behind the first, already read, are decoded once, whole and in order.
   */
  @Test
  void behindAnH2cUpgradeHandler_theDecoderIsReplacedOnceTheFirstRequestHasEnded_andLosesNothingReadBehindIt() {
    EmbeddedChannel channel = h2cConnection();
    RequestDecoder.install(channel.pipeline(), OPTIONS);

    channel.writeInbound(ascii("POST /1 HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\n\r\nhel"));
    assertThat(channel.pipeline().get(RequestDecoder.NAME)).as("in the middle of the first request")
        .isNotInstanceOf(RequestDecoder.class);
    channel.writeInbound(ascii("lo" + "GET /2 HTTP/1.1\r\nUser-Agent: x\r\n\r\n"
        + "POST /3 HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nab"));
    assertThat(channel.pipeline().get(RequestDecoder.NAME)).isInstanceOf(RequestDecoder.class);
    assertThat(channel.pipeline().get(RequestDecoder.AfterTheFirstRequest.NAME)).isNull();
    channel.writeInbound(ascii("c\r\n0\r\n\r\n"));

    List<HttpRequest> heads = new ArrayList<>();
    assertThat(transcript(channel, heads)).isEqualTo("POST /1 [hello] | GET /2 [] | POST /3 [abc] | ");
    byte[] userAgent = "User-Agent".getBytes(StandardCharsets.US_ASCII);
    assertThat(heads.get(1).headers().iteratorCharSequence().next().getKey())
        .as("the second request's header name: the table's constant").isSameAs(
            RequestDecoder.KnownNames.find(userAgent, 0, userAgent.length));
    assertThat(channel.finishAndReleaseAll()).isFalse();
  }

  /**
   * A well-formed version other than HTTP/1.1 and HTTP/1.0 fails to decode, the HTTP/2 preface's
   * request line among them, and nothing read behind it is decoded.
   */
  @ParameterizedTest
  @ValueSource(strings = {"GET / HTTP/2.0\r\nHost: a\r\n\r\n", "GET / HTTP/1.2\r\nHost: a\r\n\r\n",
      "GET / HTTP/0.9\r\nHost: a\r\n\r\n", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"})
  void aVersionNotServed_failsToDecode_andNothingBehindItIsDecoded(String head) {
    EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(OPTIONS));

    channel.writeInbound(ascii(head + "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n"));

    assertUnsupportedVersion(channel.readInbound());
    assertThat((Object) channel.readInbound()).as("nothing decoded after it").isNull();
    channel.finishAndReleaseAll();
  }

  @Test
  void http11AndHttp10_areServed() {
    EmbeddedChannel channel = new EmbeddedChannel(new RequestDecoder(OPTIONS));

    channel.writeInbound(ascii("GET /1 HTTP/1.1\r\nHost: a\r\n\r\nGET /2 HTTP/1.0\r\n\r\n"));

    assertThat(transcript(channel, new ArrayList<>())).isEqualTo("GET /1 [] | GET /2 [] | ");
    assertThat(channel.finishAndReleaseAll()).isFalse();
  }

  /**
   * Behind an h2c upgrade handler the first request is Vert.x's decoder's: a version not served
   * is passed on as a request that failed to decode, and that decoder stays.
   */
  @Test
  void behindAnH2cUpgradeHandler_aFirstRequestInAVersionNotServed_isPassedOnAsFailed() {
    EmbeddedChannel channel = h2cConnection();
    RequestDecoder.install(channel.pipeline(), OPTIONS);

    channel.writeInbound(ascii("POST / HTTP/2.0\r\nHost: a\r\nContent-Length: 2\r\n\r\nab"));

    assertUnsupportedVersion(channel.readInbound());
    assertThat(channel.pipeline().get(RequestDecoder.NAME)).isNotInstanceOf(RequestDecoder.class);
    assertThat(channel.pipeline().get(RequestDecoder.AfterTheFirstRequest.NAME)).isNull();
    channel.finishAndReleaseAll();
  }

  /**
   * A header line with nothing before its colon fails to decode in its request's own version
   * (Netty's parser would pass the head on with a field of an empty name), whichever decoder reads
   * it: Fulcrum's, or Vert.x's for the first request behind an h2c upgrade handler. Among trailers,
   * Netty's decoder refuses it itself.
   */
  @ParameterizedTest(name = "{0}, behind an h2c upgrade handler {1}")
  @CsvSource(delimiter = '|', value = {
      "GET / HTTP/1.1\\r\\nHost: a\\r\\n: chunked\\r\\n\\r\\n | false",
      "GET / HTTP/1.1\\r\\nHost: a\\r\\n: chunked\\r\\n\\r\\n | true",
      "GET / HTTP/1.1\\r\\nHost: a\\r\\n:x: y\\r\\n\\r\\n | false",
      "GET / HTTP/1.1\\r\\nHost: a\\r\\n:x: y\\r\\n\\r\\n | true",
      "POST / HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2\\r\\nab\\r\\n0\\r\\n: x\\r\\n\\r\\n | false",
      "POST / HTTP/1.1\\r\\nHost: a\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n2\\r\\nab\\r\\n0\\r\\n: x\\r\\n\\r\\n | true"})
  void aHeaderLineWithoutAName_failsToDecode(String request, boolean h2c) {
    EmbeddedChannel channel = h2c ? h2cConnection() : new EmbeddedChannel(new RequestDecoder(OPTIONS));
    if (h2c) {
      RequestDecoder.install(channel.pipeline(), OPTIONS);
    }

    channel.writeInbound(ascii(request.replace("\\r\\n", "\r\n")));

    List<Object> decoded = new ArrayList<>();
    for (Object msg = channel.readInbound(); msg != null; msg = channel.readInbound()) {
      decoded.add(msg);
    }
    HttpRequest head = (HttpRequest) decoded.get(0);
    Object failed = decoded.stream().filter(m -> ((DecoderResultProvider) m).decoderResult().isFailure())
        .findFirst().orElseThrow();
    boolean inTrailers = request.endsWith(": x\\r\\n\\r\\n");
    if (inTrailers) {
      assertThat(failed).isInstanceOf(LastHttpContent.class);
      assertThat(((LastHttpContent) failed).trailingHeaders().isEmpty()).as("no trailer passed on").isTrue();
    } else {
      assertThat(failed).as("the head").isSameAs(head);
      assertThat(head.decoderResult().cause()).hasMessage("a header line without a name");
      assertThat(head.protocolVersion()).as("its own version").isEqualTo(HttpVersion.HTTP_1_1);
    }
    decoded.forEach(ReferenceCountUtil::release);
    channel.finishAndReleaseAll();
  }

  private static void assertUnsupportedVersion(Object msg) {
    assertThat(msg).isInstanceOf(HttpRequest.class);
    HttpRequest bad = (HttpRequest) msg;
    assertThat(bad.decoderResult().cause()).isInstanceOf(RequestDecoder.UnsupportedVersion.class);
    assertThat(bad.protocolVersion()).as("answered in HTTP/1.0, as a request line that cannot be read")
        .isEqualTo(HttpVersion.HTTP_1_0);
    ReferenceCountUtil.release(bad);
  }

  /** A first request that fails to decode leaves Vert.x's decoder in place, discarding what follows. */
  @Test
  void behindAnH2cUpgradeHandler_aFirstRequestThatFailsToDecode_keepsVertxsDecoder_andNothingBehindItIsDecoded() {
    EmbeddedChannel channel = h2cConnection();
    RequestDecoder.install(channel.pipeline(), OPTIONS);

    channel.writeInbound(ascii("POST /1 HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab"
        + "GET /2 HTTP/1.1\r\nHost: a\r\n\r\n"));

    HttpRequest bad = channel.readInbound();
    assertThat(bad.decoderResult().isFailure()).isTrue();
    ReferenceCountUtil.release(bad);
    assertThat((Object) channel.readInbound()).as("nothing decoded after it").isNull();
    assertThat(channel.pipeline().get(RequestDecoder.NAME)).isNotInstanceOf(RequestDecoder.class);
    assertThat(channel.pipeline().get(RequestDecoder.AfterTheFirstRequest.NAME)).isNull();
    channel.finishAndReleaseAll();
  }

  /**
   * A connection as Vert.x sets one up on an h2c listener: its decoder, then its h2c upgrade
   * handler, which passes the first request's head on and leaves (an h2c upgrade aside), then the
   * connection's handler (here one that passes everything on, to be read from the channel).
   */
  private static EmbeddedChannel h2cConnection() {
    EmbeddedChannel channel = new EmbeddedChannel();
    channel.pipeline().addLast(RequestDecoder.NAME, new VertxHttpRequestDecoder(OPTIONS));
    channel.pipeline().addLast("h2c", new ChannelInboundHandlerAdapter() {
      @Override
      public void channelRead(ChannelHandlerContext ctx, Object msg) {
        ctx.fireChannelRead(msg);
        ctx.pipeline().remove(this);
      }
    });
    channel.pipeline().addLast(RequestDecoder.CONNECTION_HANDLER, new ChannelInboundHandlerAdapter());
    return channel;
  }

  private static ByteBuf ascii(String s) {
    return Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1);
  }

  /** What the channel decoded: each request as {@code METHOD /uri [body] | }; its heads added to {@code heads}. */
  private static String transcript(EmbeddedChannel channel, List<HttpRequest> heads) {
    StringBuilder out = new StringBuilder();
    for (Object msg = channel.readInbound(); msg != null; msg = channel.readInbound()) {
      if (msg instanceof HttpRequest request) {
        assertThat(request.decoderResult().isSuccess()).isTrue();
        heads.add(request);
        out.append(request.method()).append(' ').append(request.uri()).append(" [");
      }
      if (msg instanceof HttpContent content) {
        assertThat(content.decoderResult().isSuccess()).isTrue();
        out.append(content.content().toString(StandardCharsets.ISO_8859_1));
        if (content instanceof LastHttpContent) {
          out.append("] | ");
        }
      }
      ReferenceCountUtil.release(msg);
    }
    return out.toString();
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
