package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.util.ReferenceCountUtil;
import io.vertx.core.MultiMap;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The target connections' response reader, fed bytes as a connection reads them: heads, each framing of a body,
 * the head as it is written to an HTTP/1.1 client (hop-by-hop headers left out), the head as a
 * header map, responses split at every byte, and what it refuses.
 */
class ResponseReaderTest {

  private static final int MAX_HEADERS = 32 * 1024;

  private ResponseReader reader;
  private Connection channel;

  /** One response as the reader gave it. */
  private record Read(TargetResponse head, String body, LastHttpContent last) {
  }

  @BeforeEach
  void setUp() {
    reader = new ResponseReader(MAX_HEADERS);
    channel = new Connection();
  }

  @AfterEach
  void tearDown() {
    channel.finishAndReleaseAll();
  }

  @Test
  void contentLengthResponse_isOneHeadAndItsBody_withHopByHopHeadersLeftOutOfTheClientsHead() {
    send("HTTP/1.1 200 OK\r\nServer: t\r\nConnection: keep-alive, X-Hop\r\nKeep-Alive: timeout=5\r\n"
        + "X-Hop: secret\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\nTE: trailers\r\nset-cookie: b=2\r\n\r\nhello");

    Read r = next();

    assertThat(r.head().status()).isEqualTo(200);
    assertThat(r.head().contentLength()).isEqualTo(5);
    assertThat(r.head().keepAlive()).isTrue();
    assertThat(r.head().keepAliveHeader()).isEqualTo("timeout=5");
    assertThat(r.body()).isEqualTo("hello");
    assertThat(clientHead(r.head(), false)).isEqualTo(
        "HTTP/1.1 200 OK\r\nServer: t\r\nContent-Length: 5\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\n\r\n");
    MultiMap headers = r.head().headers();
    assertThat(headers.names()).containsExactlyInAnyOrder("Server", "Content-Length", "Set-Cookie");
    assertThat(headers.getAll("set-cookie")).containsExactly("a=1", "b=2");
    assertThat((Object) channel.readInbound()).isNull();
  }

  @Test
  void headForAnHttp2Client_hasLowerCaseNames_andNoHopByHopHeaders() {
    send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: X-Hop\r\nX-Hop: 1\r\nX-Mixed-Case: Value\r\n"
        + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n");
    TargetResponse head = next().head();
    Http2Headers h2 = new DefaultHttp2Headers(false);

    head.addTo(h2);

    assertThat(h2.names()).extracting(CharSequence::toString).containsExactly("content-type", "x-mixed-case");
    assertThat(h2.names().iterator().next()).as("a common name is the shared constant")
        .isSameAs(HttpHeaderNames.CONTENT_TYPE);
    assertThat(h2.get("x-mixed-case")).hasToString("Value");
  }

  /**
   * A Connection that names Content-Length does not take it from the client's head: the body goes
   * on framed by it, and without it an HTTP/1.1 client on a kept connection could not tell where the
   * body ends and the next response begins.
   */
  @Test
  void connectionNamingContentLength_keepsIt_whileTheOtherNamesGo() {
    send("HTTP/1.1 200 OK\r\nConnection: Content-Length, X-Hop\r\nX-Hop: 1\r\nContent-Length: 5\r\n\r\nhello");
    Read read = next();

    assertThat(read.head().contentLength()).isEqualTo(5);
    assertThat(clientHead(read.head(), false)).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
    assertThat(read.body()).isEqualTo("hello");
  }

  /**
   * A Content-Length given as a list of one length, or in several fields of one length (RFC 9110
   * §8.6 lets a recipient take it), goes on once: HTTP/2 clients (nghttp2, curl) reset a stream whose
   * content-length is {@code 5, 5}.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"Content-Length: 5, 5", "Content-Length: 5 ,5 , 5", "Content-Length: 5\r\nContent-Length: 5"})
  void contentLengthOfOneLengthGivenMoreThanOnce_goesOnOnce(String fields) {
    send("HTTP/1.1 200 OK\r\n" + fields + "\r\nX-A: 1\r\n\r\nhello");
    Read read = next();

    assertThat(clientHead(read.head(), false)).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: 1\r\n\r\n");
    Http2Headers h2 = new DefaultHttp2Headers(false);
    read.head().addTo(h2);
    assertThat(h2.getAll("content-length")).extracting(CharSequence::toString).containsExactly("5");
    assertThat(read.body()).isEqualTo("hello");
  }

  @Test
  void headAsAnHpackBlock_usesTheStaticTable_literalsWithoutIndexing_andNoHuffman() {
    send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: X-Hop\r\nX-Hop: 1\r\nX-Ab: Cd\r\n"
        + "Content-Length: 0\r\n\r\n");
    TargetResponse head = next().head();
    byte[] block = new byte[head.blockSize()];

    int length = head.writeBlock(block, 0);

    assertThat(Arrays.copyOf(block, length)).isEqualTo(new byte[] {
        (byte) 0x88, // :status 200, indexed (static 8)
        0x0f, 0x10, 10, 't', 'e', 'x', 't', '/', 'p', 'l', 'a', 'i', 'n', // name: static 31 (15 + 16)
        0x00, 4, 'x', '-', 'a', 'b', 2, 'C', 'd', // a new name, in lower case; the value as it came
        0x0f, 0x0d, 1, '0'}); // content-length: static 28
  }

  @Test
  void hpackIntegers_asRfc7541Shows() {
    byte[] out = new byte[8];
    assertThat(Arrays.copyOf(out, HpackLiterals.integer(out, 0, 5, 0, 10))).containsExactly(10); // C.1.1
    assertThat(Arrays.copyOf(out, HpackLiterals.integer(out, 0, 5, 0, 1337)))
        .containsExactly(0x1f, 0x9a, 0x0a); // C.1.2
    assertThat(Arrays.copyOf(out, HpackLiterals.integer(out, 0, 7, 0, 127))).containsExactly(0x7f, 0x00);
    assertThat(Arrays.copyOf(out, HpackLiterals.integer(out, 0, 4, 0x00, 14))).containsExactly(0x0e);
    assertThat(Arrays.copyOf(out, HpackLiterals.integer(out, 0, 4, 0x00, 15))).containsExactly(0x0f, 0x00);
  }

  /**
   * Literal blocks between a stateful encoder's blocks on one connection: the decoder's dynamic
   * table stays the encoder's, and every block decodes to the head less its hop-by-hop headers.
   */
  @Test
  void hpackBlocks_decodeWhole_betweenTheBlocksOfAStatefulEncoder() throws Exception {
    String name = "X-" + "n".repeat(140);
    String value = "v".repeat(20_000);
    send("HTTP/1.1 418 I'm a teapot\r\nServer: t\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nWWW-Authenticate: B\r\n"
        + "Keep-Alive: timeout=5\r\nX-Empty:\r\n" + name + ": " + value + "\r\nX-Obs: \u00e9\r\n"
        + "Content-Length: 0\r\n\r\n");
    TargetResponse head = next().head();
    DefaultHttp2HeadersEncoder stateful = new DefaultHttp2HeadersEncoder();
    DefaultHttp2HeadersDecoder decoder = new DefaultHttp2HeadersDecoder(true, 1 << 20); // a 4,096-byte table
    Http2Headers indexed = new DefaultHttp2Headers().status("200").add("server", "t").add("x-indexed", "1");

    for (int round = 0; round < 3; round++) {
      ByteBuf fromEncoder = Unpooled.buffer();
      stateful.encodeHeaders(1, indexed, fromEncoder);
      assertThat(decoder.decodeHeaders(1, fromEncoder)).isEqualTo(indexed);
      fromEncoder.release();

      byte[] block = new byte[head.blockSize()];
      Http2Headers literal = decoder.decodeHeaders(3, Unpooled.wrappedBuffer(block, 0, head.writeBlock(block, 0)));
      assertThat(literal.status()).hasToString("418");
      assertThat(literal.names()).extracting(CharSequence::toString).containsExactly(":status", "server",
          "set-cookie", "www-authenticate", "x-empty", name.toLowerCase(Locale.ROOT), "x-obs", "content-length");
      assertThat(literal.getAll("set-cookie")).extracting(CharSequence::toString).containsExactly("a=1", "b=2");
      assertThat(literal.get(name.toLowerCase(Locale.ROOT))).hasToString(value);
      assertThat(literal.get("x-empty")).hasToString("");
      assertThat(literal.get("x-obs")).hasToString("\u00e9");
      long listSize = 0;
      for (Map.Entry<CharSequence, CharSequence> e : literal) {
        listSize += e.getKey().length() + e.getValue().length() + 32;
      }
      assertThat(head.headerListSize()).isEqualTo(listSize);
    }
  }

  @Test
  void responseSplitAtEveryByte_readsTheSameAsInOnePiece() {
    String wire = "\r\nHTTP/1.1 201 Created\r\nX-A:  spaced value \t\r\nContent-Length: 11\r\n\r\nhello world"
        + "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\nX-T: 1\r\n\r\n";
    for (byte b : wire.getBytes(StandardCharsets.ISO_8859_1)) {
      channel.writeInbound(Unpooled.wrappedBuffer(new byte[] {b}));
    }

    Read first = next();
    assertThat(first.head().status()).isEqualTo(201);
    assertThat(first.body()).isEqualTo("hello world");
    assertThat(clientHead(first.head(), false))
        .isEqualTo("HTTP/1.1 201 Created\r\nX-A:  spaced value\r\nContent-Length: 11\r\n\r\n");
    Read second = next();
    assertThat(second.head().chunked()).isTrue();
    assertThat(second.body()).isEqualTo("hello world");
    assertThat(second.last().trailingHeaders().get("X-T")).isEqualTo("1");
    assertThat((Object) channel.readInbound()).isNull();
  }

  @Test
  void chunkedResponse_dropsItsContentLength_andEndsWithItsTrailers() {
    send("HTTP/1.1 200 OK\r\nContent-Length: 99\r\nTransfer-Encoding: , Chunked ,\r\n\r\n"
        + "3\r\nabc\r\n0\r\nGrpc-Status: 0\r\nContent-Length: 3\r\n\r\n");

    Read r = next();

    assertThat(r.head().contentLength()).isEqualTo(-1);
    assertThat(r.head().keepAlive()).isTrue();
    assertThat(r.body()).isEqualTo("abc");
    assertThat(r.last().trailingHeaders().names()).containsExactly("Grpc-Status");
    assertThat(clientHead(r.head(), true)).isEqualTo("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
    assertThat(r.head().headers().isEmpty()).isTrue();
  }

  @Test
  void responseWithoutLength_endsWithTheConnection_andDoesNotKeepIt() {
    send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nsome ");
    send("more");

    TargetResponse head = channel.readInbound();
    assertThat(head.keepAlive()).isFalse();
    assertThat(head.contentLength()).isEqualTo(-1);
    assertThat(content(channel.readInbound())).isEqualTo("some ");
    assertThat(content(channel.readInbound())).isEqualTo("more");
    assertThat((Object) channel.readInbound()).isNull();

    channel.close();

    assertThat((Object) channel.readInbound()).isInstanceOf(LastHttpContent.class);
  }

  @Test
  void answerToHead_hasNoBody_whateverItsHeadSays() {
    reader.headRequest(true);
    send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
    Read head = next();
    send("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n");
    Read noLength = next();
    reader.headRequest(false);
    send("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");

    assertThat(head.body()).isEmpty();
    assertThat(head.head().keepAlive()).isTrue();
    assertThat(noLength.body()).isEmpty();
    assertThat(noLength.head().keepAlive()).as("no length, but no body either").isTrue();
    assertThat(next().body()).isEqualTo("ok");
  }

  @Test
  void informationalNoContentAndNotModified_haveNoBody() {
    send("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"
        + "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\n\r\nHTTP/1.1 304 Not Modified\r\n\r\n"
        + "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx");

    assertThat(next().head().status()).isEqualTo(100);
    assertThat(next().head().status()).isEqualTo(103);
    Read noContent = next();
    assertThat(noContent.head().status()).isEqualTo(204);
    assertThat(noContent.body()).isEmpty();
    assertThat(next().head().status()).isEqualTo(304);
    assertThat(next().body()).isEqualTo("x");
  }

  @Test
  void contentLengthOfA204OrAn1xx_isNotPassedOn_butA304Keeps_itsRepresentationsLength() {
    send("HTTP/1.1 103 Early Hints\r\nContent-Length: 0\r\nLink: </a>\r\n\r\n"
        + "HTTP/1.1 204 No Content\r\nContent-Length: 3\r\nX-A: 1\r\n\r\n"
        + "HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n");

    TargetResponse early = next().head();
    assertThat(clientHead(early, false)).isEqualTo("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n");
    TargetResponse noContent = next().head();
    assertThat(clientHead(noContent, false)).isEqualTo("HTTP/1.1 204 No Content\r\nX-A: 1\r\n\r\n");
    Http2Headers h2 = new DefaultHttp2Headers(false);
    noContent.addTo(h2);
    assertThat(h2.names()).extracting(CharSequence::toString).containsExactly("x-a");
    assertThat(noContent.keepAlive()).isTrue();
    TargetResponse notModified = next().head();
    assertThat(clientHead(notModified, false)).isEqualTo("HTTP/1.1 304 Not Modified\r\nContent-Length: 50\r\n\r\n");
  }

  @Test
  void switchingProtocols_toAnUpgradeRequest_leavesHttp_andEverythingAfterComesAsItIsUntilTheClose() {
    reader.upgradeRequest(true);
    send("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n\u0081\u0002hi");
    send("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"); // not HTTP any more: bytes of the other protocol

    TargetResponse head = channel.readInbound();
    assertThat(head.status()).isEqualTo(101);
    assertThat(head.upgrade()).isEqualTo("websocket");
    assertThat(head.headers().names()).as("hop-by-hop headers, Upgrade among them").isEmpty();
    assertThat(content(channel.readInbound())).isEqualTo("\u0081\u0002hi");
    assertThat(content(channel.readInbound())).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
    assertThat((Object) channel.readInbound()).isNull();

    channel.close();

    assertThat((Object) channel.readInbound()).isInstanceOf(LastHttpContent.class);
  }

  /**
   * A 101 to a request that asked for no upgrade is malformed (RFC 9110 §15.2.2: a server switches
   * only to a protocol the client asked for): what follows it is another protocol's, and no final
   * response comes. Read as an interim response, the client waited for the idle timeout and got a 504.
   */
  @Test
  void switchingProtocols_toAnOrdinaryRequest_isMalformed_andNothingAfterItIsRead() {
    send("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");

    LastHttpContent failure = channel.readInbound();
    assertThat(failure.decoderResult().isFailure()).isTrue();
    assertThat(failure.decoderResult().cause()).isInstanceOf(TargetResponse.MalformedException.class);
    assertThat((Object) channel.readInbound()).isNull();
  }

  @Test
  void closeAndHttp10_doNotKeepTheConnection() {
    send("HTTP/1.1 200 OK\r\nConnection: Close\r\nContent-Length: 0\r\n\r\n");
    assertThat(next().head().keepAlive()).isFalse();

    send("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n");
    TargetResponse http10 = next().head();
    assertThat(http10.keepAlive()).isFalse();
    assertThat(clientHead(http10, false)).isEqualTo("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");
  }

  @Test
  void foldedHeader_isJoinedWithSpaces_onOneLine() {
    send("HTTP/1.1 200 OK\r\nX-Folded: one\r\n  two\r\n\tthree\r\nX-Empty:\r\n next\r\nContent-Length: 0\r\n\r\n");

    TargetResponse head = next().head();

    assertThat(head.headers().get("X-Folded")).isEqualTo("one    two   three");
    assertThat(head.headers().get("X-Empty")).isEqualTo("next");
    assertThat(clientHead(head, false)).isEqualTo(
        "HTTP/1.1 200 OK\r\nX-Folded: one    two   three\r\nX-Empty:   next\r\nContent-Length: 0\r\n\r\n");
  }

  @Test
  void longValues_withTabsAndObsText_pass() {
    String value = "tab\there and there\t, latin-1 \u00e9\u00ff, long enough for several words";
    send("HTTP/1.1 200 OK\r\nX-Text: " + value + "\r\nContent-Length: 0\r\n\r\n");

    assertThat(next().head().headers().get("X-Text")).isEqualTo(value);
  }

  @Test
  void statusLine_withoutReasonPhrase_getsItsSpace() {
    send("HTTP/1.1 299\r\nContent-Length: 0\r\n\r\n");

    TargetResponse head = next().head();

    assertThat(head.reason()).isEmpty();
    assertThat(clientHead(head, false)).isEqualTo("HTTP/1.1 299 \r\nContent-Length: 0\r\n\r\n");
  }

  @Test
  void sameContentLengthTwice_isOneLength() {
    send("HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\nContent-Length: 2\r\n\r\nok");

    assertThat(next().body()).isEqualTo("ok");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "HTTP/1.1 abc Broken\r\nContent-Length: 0\r\n\r\n",
      "this is not http\r\n\r\n",
      "HTTP/2.0 200 OK\r\n\r\n",
      "HTTP/1.1 2000 OK\r\n\r\n",
      "HTTP/1.1 200 OK\r\nContent-Length: banana\r\n\r\nok",
      "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nok",
      "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nok",
      "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nName : x\r\n\r\n",
      "HTTP/1.1 200 OK\r\n: x\r\n\r\n",
      "HTTP/1.1 200 OK\r\nNo-Colon\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-Split: a\rSet-Cookie: injected\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-Nul: a\0b\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-Long: 0123456789abcdef\u007fmore text\r\n\r\n",
      "HTTP/1.1 200 OK\r\nX-Long: 0123456789abcdefghijklmn\u0001\r\n\r\n",
      "HTTP/1.1 200 OK\r\n continued\r\n\r\n",
      // Any coding but chunked: Fulcrum frames the body anew, and a client would take gzip bytes for it.
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\nabc",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 3\r\n\r\nabc",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: identity\r\nContent-Length: 3\r\n\r\nabc",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: xchunked\r\n\r\nabc",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, chunked\r\n\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: \r\nContent-Length: 3\r\n\r\nabc",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3 x\r\nabc\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n0\r\n\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n",
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nBad Trailer\r\n\r\n"})
  void unreadableResponse_endsInAFailure_andNothingMoreIsRead(String response) {
    send(response + "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n");

    Object msg;
    LastHttpContent failure = null;
    while ((msg = channel.readInbound()) != null) {
      if (msg instanceof LastHttpContent last && last.decoderResult().isFailure()) {
        failure = last;
      } else {
        release(msg);
      }
    }
    assertThat(failure).as("a failure").isNotNull();
    assertThat(failure.decoderResult().cause()).isInstanceOf(TargetResponse.MalformedException.class);
  }

  @Test
  void headersOverTheLimit_areRefusedBeforeTheyEnd() {
    send("HTTP/1.1 200 OK\r\nX-Big: " + "h".repeat(MAX_HEADERS + 10));

    LastHttpContent failure = channel.readInbound();

    assertThat(failure.decoderResult().isFailure()).isTrue();
  }

  @Test
  void statusLineOverTheLimit_isRefused() {
    send("HTTP/1.1 200 " + "O".repeat(ResponseReader.MAX_STATUS_LINE + 10));

    LastHttpContent failure = channel.readInbound();

    assertThat(failure.decoderResult().isFailure()).isTrue();
  }

  @Test
  void headersJustUnderTheLimit_pass() {
    String value = "h".repeat(MAX_HEADERS - 100);
    send("HTTP/1.1 200 OK\r\nX-Big: " + value + "\r\nContent-Length: 0\r\n\r\n");

    assertThat(next().head().headers().get("X-Big")).isEqualTo(value);
  }

  @Test
  void closeMidBody_endsNothing() {
    send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc");
    channel.readInbound(); // the head
    release(channel.readInbound());

    channel.close();

    assertThat((Object) channel.readInbound()).isNull();
  }

  /**
   * The reader's one head, read again by each response: nothing of a head with more or longer
   * headers stays in the next, a head over the kept size is read all the same, and what
   * {@link TargetResponse#addTo} gave an HTTP/2 block (which its encoder may keep in its
   * dynamic table) stays as it was.
   */
  @Test
  void everyHeadOfAConnection_isReadIntoTheSameOne_withNothingLeftOfTheOneBefore() {
    List<TargetResponse> heads = new ArrayList<>();
    List<String> clientHeads = new ArrayList<>();
    Http2Headers firstAsH2 = new DefaultHttp2Headers(false);
    StringBuilder many = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      many.append("X-H").append(i).append(": value ").append(i).append("\r\n");
    }
    String big = "b".repeat(TargetResponse.KEPT_BYTES);
    String[] responses = {
        "HTTP/1.1 200 OK\r\n" + many + "Content-Length: 0\r\n\r\n",
        "HTTP/1.1 404 Not Found\r\nX-Big: " + big + "\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 201 Created\r\nX-A: 1\r\nConnection: close\r\nContent-Length: 0\r\n\r\n",
        "HTTP/1.1 204 No Content\r\n\r\n"};
    for (String response : responses) {
      ByteBuf in = Unpooled.copiedBuffer(response, StandardCharsets.ISO_8859_1);
      reader.read(in, part -> {
        if (part instanceof TargetResponse head) {
          heads.add(head);
          clientHeads.add(clientHead(head, false) + head.keepAlive());
          if (heads.size() == 1) {
            head.addTo(firstAsH2);
          }
        } else {
          release(part);
        }
      });
      in.release();
    }

    assertThat(heads).hasSize(4).allSatisfy(head -> assertThat(head).isSameAs(heads.get(0)));
    assertThat(clientHeads).containsExactly(
        "HTTP/1.1 200 OK\r\n" + many + "Content-Length: 0\r\n\r\ntrue",
        "HTTP/1.1 404 Not Found\r\nX-Big: " + big + "\r\nContent-Length: 0\r\n\r\ntrue",
        "HTTP/1.1 201 Created\r\nX-A: 1\r\nContent-Length: 0\r\n\r\nfalse",
        "HTTP/1.1 204 No Content\r\n\r\ntrue");
    assertThat(heads.get(0).headers().isEmpty()).as("the last head, which has no headers").isTrue();
    assertThat(firstAsH2.size()).isEqualTo(41);
    assertThat(firstAsH2.get("x-h0")).hasToString("value 0");
    assertThat(firstAsH2.get("x-h39")).hasToString("value 39");
  }

  // ---- helpers ----

  /**
   * The reader's use by a target connection: bytes kept from one read to the next (copied when
   * slices of them went out, as TargetConnection does), the parts it hands out queued in order,
   * each head as a copy (the reader reads the next head into the one it handed out).
   */
  private final class Connection {
    private final ArrayDeque<Object> inbound = new ArrayDeque<>();
    private ByteBuf pending;

    void writeInbound(ByteBuf bytes) {
      ByteBuf in = Unpooled.buffer();
      if (pending != null) {
        in.writeBytes(pending);
        pending.release();
        pending = null;
      }
      in.writeBytes(bytes);
      bytes.release();
      reader.read(in, part -> inbound.add(part instanceof TargetResponse head ? head.copy() : part));
      if (in.isReadable()) {
        pending = in;
      } else {
        in.release();
      }
    }

    @SuppressWarnings("unchecked")
    <T> T readInbound() {
      return (T) inbound.poll();
    }

    void close() {
      reader.closed(inbound::add);
    }

    void finishAndReleaseAll() {
      inbound.forEach(ReferenceCountUtil::release);
      inbound.clear();
      if (pending != null) {
        pending.release();
      }
    }
  }

  private void send(String s) {
    channel.writeInbound(Unpooled.copiedBuffer(s, StandardCharsets.ISO_8859_1));
  }

  /** Reads one response: its head, its body's parts, its end. */
  private Read next() {
    Object msg = channel.readInbound();
    assertThat(msg).as("a head").isInstanceOf(TargetResponse.class);
    TargetResponse head = (TargetResponse) msg;
    StringBuilder body = new StringBuilder();
    for (;;) {
      Object part = channel.readInbound();
      assertThat(part).as("a body part").isInstanceOf(HttpContent.class);
      assertThat(((HttpContent) part).decoderResult().isSuccess()).isTrue();
      body.append(content(part));
      if (part instanceof LastHttpContent last) {
        return new Read(head, body.toString(), last);
      }
    }
  }

  private static String content(Object part) {
    ByteBuf content = ((HttpContent) part).content();
    String s = content.toString(StandardCharsets.ISO_8859_1);
    ((HttpContent) part).release();
    return s;
  }

  private static void release(Object msg) {
    if (msg instanceof HttpContent c) {
      c.release();
    }
  }

  private static String clientHead(TargetResponse head, boolean chunked) {
    ByteBuf out = Unpooled.buffer();
    head.writeTo(out, chunked);
    String s = out.toString(StandardCharsets.ISO_8859_1);
    out.release();
    return s;
  }
}
