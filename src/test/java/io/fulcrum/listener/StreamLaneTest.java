package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.H2Wire.Answer;
import io.fulcrum.testing.H2Wire.Frame;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestVertx;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The direct path for HTTP/2 clients (StreamLane and StreamExchange) next to Vert.x's, on raw
 * HTTP/2 connections (h2c, prior knowledge): which streams it takes, what the target receives,
 * flow control toward a slow client, trailers, and every ending (a target cut mid-response, an
 * unreachable target with a body still coming, a client reset, a connection error while the lane
 * has streams under way), and the same answers with the direct path switched off.
 */
class StreamLaneTest {

  private static final int SETTINGS_INITIAL_WINDOW_SIZE = 0x4;
  private static final long NO_ERROR = 0x0;
  private static final long PROTOCOL_ERROR = 0x1;
  private static final long INTERNAL_ERROR = 0x2;
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private int port;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    System.clearProperty("fulcrum.directPath");
    backends.close();
  }

  private void start(int targetPort) {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/fixed"]}]
                    actions: [{type: fixed-response, status-code: "200", content-type: text/plain, message-body: fixed}]
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(port, targetPort));
  }

  private H2Wire connect(Map<Integer, Long> settings) {
    H2Wire wire = H2Wire.connect("127.0.0.1", port, null, settings);
    wire.serverSettings(WAIT);
    return wire;
  }

  private static Http2Headers request(String method, String path) {
    return H2Wire.request(method, "http", "example.com", path);
  }

  private static long dataReceived(H2Wire wire, int stream) {
    return wire.frames().stream().filter(f -> f.streamId() == stream && f.type() == H2Wire.DATA)
        .mapToLong(f -> f.payload().length).sum();
  }

  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void commonStreams_goTheDirectWay_othersToVertx_withTheSameAnswersEitherWay(boolean directPath) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.body().onSuccess(b ->
        req.response().putHeader("X-Answer-For", req.uri()).end("answer to " + req.uri() + " " + b)));
    start(backend.port());
    long before = DirectForwarder.forwarded();

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("GET", "/a?q=1").add("cookie", "a=1").add("cookie", "b=2").add("x-custom", "v"), true);
      wire.headers(3, request("GET", "/fixed"), true);
      wire.headers(5, request("POST", "/b"), false);
      wire.write(H2Wire.dataFrame(5, "hel".getBytes(StandardCharsets.UTF_8), false));
      wire.write(H2Wire.dataFrame(5, "lo".getBytes(StandardCharsets.UTF_8), true));
      wire.headers(7, request("HEAD", "/c"), true);

      Answer a = wire.answer(1, WAIT);
      assertThat(a.status()).isEqualTo("200");
      assertThat(a.text()).isEqualTo("answer to /a?q=1 ");
      assertThat(a.head().get("x-answer-for")).hasToString("/a?q=1");
      assertThat(a.head().contains("connection")).isFalse();
      assertThat(wire.answer(3, WAIT).text()).isEqualTo("fixed");
      assertThat(wire.answer(5, WAIT).text()).isEqualTo("answer to /b hello");
      Answer head = wire.answer(7, WAIT);
      assertThat(head.status()).isEqualTo("200");
      assertThat(head.body()).isEmpty();
      assertThat(head.reset()).isNull();
    }

    assertThat(DirectForwarder.forwarded() - before).as("streams forwarded the direct way")
        .isEqualTo(directPath ? 3 : 0);
    List<JsonObject> traffic = backend.received().stream().filter(r -> !Backend.isHealthCheck(r)).toList();
    assertThat(traffic).extracting(r -> r.getString("method") + " " + r.getString("uri"))
        .containsExactlyInAnyOrder("GET /a?q=1", "POST /b", "HEAD /c");
    JsonObject get = traffic.stream().filter(r -> r.getString("method").equals("GET")).findFirst().orElseThrow();
    JsonObject h = get.getJsonObject("headers");
    assertThat(get.getString("version")).isEqualTo("HTTP_1_1");
    assertThat(h.getString("host")).as("the listener port added, as ALB does").isEqualTo("example.com:" + port);
    assertThat(h.getString("cookie")).as("HTTP/2's cookie fields joined for HTTP/1.1").isEqualTo("a=1; b=2");
    assertThat(h.getString("x-custom")).isEqualTo("v");
    assertThat(h.getString("x-forwarded-proto")).isEqualTo("http");
    assertThat(h.getString("x-forwarded-port")).isEqualTo(Integer.toString(port));
    assertThat(h.getString("x-forwarded-for")).isEqualTo("127.0.0.1");
    assertThat(h.getString("x-amzn-trace-id")).startsWith("Root=1-");
    JsonObject post = traffic.stream().filter(r -> r.getString("method").equals("POST")).findFirst().orElseThrow();
    assertThat(post.getJsonObject("headers").getString("transfer-encoding")).isEqualTo("chunked");
  }

  @Test
  void aResponseLargerThanTheStreamWindow_waitsForTheClient_andTheTargetIsNotReadMeanwhile() {
    int size = 16 * 1024 * 1024;
    AtomicBoolean targetHeldBack = new AtomicBoolean();
    AtomicBoolean targetDone = new AtomicBoolean();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      if (!req.path().equals("/big")) {
        req.response().end("ok");
        return;
      }
      HttpServerResponse r = req.response().putHeader("Content-Length", Integer.toString(size));
      Buffer chunk = Buffer.buffer(new byte[64 * 1024]);
      int[] left = {size / chunk.length()};
      Runnable[] pump = new Runnable[1];
      pump[0] = () -> {
        while (left[0] > 0 && !r.writeQueueFull()) {
          r.write(chunk);
          left[0]--;
        }
        if (left[0] == 0) {
          targetDone.set(true);
          r.end();
        } else {
          targetHeldBack.set(true); // the proxy stopped reading: its socket buffers filled up
          r.drainHandler(v -> pump[0].run());
        }
      };
      pump[0].run();
    });
    start(backend.port());

    try (H2Wire wire = connect(Map.of(SETTINGS_INITIAL_WINDOW_SIZE, 16_384L))) {
      wire.holdWindow(true);
      wire.headers(1, request("GET", "/big"), true);

      await().atMost(WAIT).until(() -> dataReceived(wire, 1) == 16_384);
      await().atMost(WAIT).untilTrue(targetHeldBack);
      // The proxy no longer reads the target: were it reading on, the 16 MB would all be out of the
      // target within milliseconds, queued in the proxy's memory.
      await().during(Duration.ofMillis(300)).atMost(WAIT).untilFalse(targetDone);
      assertThat(dataReceived(wire, 1)).as("no more than the stream's window").isEqualTo(16_384);

      wire.windowUpdate(1, size);
      Answer a = wire.answer(1, WAIT);
      assertThat(a.reset()).isNull();
      assertThat(a.body()).hasSize(size);
    }
  }

  /**
   * The connection's window bounds every stream together: with the client's default 65,535 bytes
   * and streams allowed a megabyte each, two 256 KB responses get 65,535 bytes in all until the
   * client grows the connection window (DATA frames written at once, past Netty's queue, are
   * charged to it as the queued ones are).
   */
  @Test
  void responses_stopAtTheConnectionWindow_andEndWholeOnceItGrows() {
    int size = 256 * 1024;
    Backend backend = Backend.start(backends, "b", "127.0.0.1",
        req -> req.response().end(Buffer.buffer(new byte[size])));
    start(backend.port());

    try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of(SETTINGS_INITIAL_WINDOW_SIZE, 1L << 20), 0)) {
      wire.serverSettings(WAIT);
      wire.holdWindow(true);
      wire.headers(1, request("GET", "/a"), true);
      wire.headers(3, request("GET", "/b"), true);

      await().atMost(WAIT).until(() -> dataReceived(wire, 1) + dataReceived(wire, 3) == 65_535);
      await().during(Duration.ofMillis(300)).atMost(WAIT)
          .until(() -> dataReceived(wire, 1) + dataReceived(wire, 3) == 65_535);

      wire.windowUpdate(0, 2L * size);
      assertThat(wire.answer(1, WAIT).body()).hasSize(size);
      assertThat(wire.answer(3, WAIT).body()).hasSize(size);
    }
  }

  /** A small body that the connection window cannot take leaves its head and waits, as a large one does. */
  @Test
  void aSmallBodyBehindAClosedConnectionWindow_letsItsHeadGo_andFollowsOnceTheWindowGrows() {
    int big = 70_000;
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.response()
        .end(req.path().equals("/big") ? Buffer.buffer(new byte[big]) : Buffer.buffer("hello")));
    start(backend.port());

    try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of(SETTINGS_INITIAL_WINDOW_SIZE, 1L << 20), 0)) {
      wire.serverSettings(WAIT);
      wire.holdWindow(true);
      wire.headers(1, request("GET", "/first"), true); // the connection's first head goes through Netty's encoder
      assertThat(wire.answer(1, WAIT).text()).isEqualTo("hello");
      wire.headers(3, request("GET", "/big"), true);
      await().atMost(WAIT).until(() -> dataReceived(wire, 1) + dataReceived(wire, 3) == 65_535);

      wire.headers(5, request("GET", "/small"), true);
      Frame head = wire.await(f -> f.streamId() == 5 && f.type() == H2Wire.HEADERS, WAIT);
      assertThat(head.status()).isEqualTo("200");
      await().during(Duration.ofMillis(200)).atMost(WAIT).until(() -> dataReceived(wire, 5) == 0);

      wire.windowUpdate(0, 2L * big);
      assertThat(wire.answer(5, WAIT).text()).isEqualTo("hello");
      assertThat(wire.answer(3, WAIT).body()).hasSize(big);
    }
  }

  @Test
  void aRequestBodyFasterThanTheTargetReads_holdsTheClientBack_thenReachesTheTargetWhole() throws Exception {
    Promise<Void> letRead = Promise.promise();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      req.pause(); // the target reads nothing of the body until the test says so
      letRead.future().onComplete(v -> req.resume());
      req.body().onSuccess(b -> req.response().end("got " + b.length()));
    });
    start(backend.port());
    long before = DirectForwarder.forwarded();
    int size = 32 * 1024 * 1024; // more than the socket buffers between the proxy and the target hold
    byte[] part = new byte[16_384];

    try (H2Wire wire = connect(Map.of())) {
      long window = wire.serverSettings(WAIT).getOrDefault(SETTINGS_INITIAL_WINDOW_SIZE, 65_535L);
      wire.headers(1, request("POST", "/upload").add("content-length", Integer.toString(size)), false);
      int sent = 0;
      boolean heldBack = false;
      while (sent < size) {
        // DATA may go only as far as both windows allow: the stream's and the connection's (65,535 at first).
        int next = sent + part.length;
        Callable<Boolean> room = () -> window + windowGranted(wire, 1) >= next
            && 65_535 + windowGranted(wire, 0) >= next;
        if (!heldBack && !room.call()) {
          try {
            await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(2)).until(room);
          } catch (ConditionTimeoutException stalled) {
            // The proxy stopped giving the window back while the target did not read: let the target read.
            heldBack = true;
            assertThat(sent).isLessThan(size);
            backends.runOnContext(v -> letRead.complete());
          }
        }
        if (!room.call()) {
          await().pollInterval(Duration.ofMillis(1)).atMost(WAIT).until(room);
        }
        sent = next;
        wire.write(H2Wire.dataFrame(1, part, sent == size));
      }
      assertThat(heldBack).as("the client was held back while the target read nothing").isTrue();
      Answer a = wire.answer(1, WAIT);
      assertThat(a.text()).isEqualTo("got " + size);
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(1);
  }

  /**
   * H2.CL request smuggling: a body longer or shorter than the stream's own content-length is a
   * malformed request (RFC 9113 §8.1.1). It is reset, and nothing of it is taken by the HTTP/1.1
   * target for a request of its own (a body of {@code GET /smuggled ...} behind {@code
   * content-length: 0}), nor does a short body leave the target connection waiting for bytes the
   * next request would fill: the next stream's answer is its own. Either path.
   */
  @ParameterizedTest(name = "content-length {0}, direct path {1}")
  @CsvSource({"0, true", "5, true", "100, true", "0, false", "100, false"})
  void aBodyThatDisagreesWithItsContentLength_isReset_andNeverReadByTheTargetAsAnotherRequest(int contentLength,
      boolean directPath) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    List<String> seen = new CopyOnWriteArrayList<>();
    startWithTargetNoting(seen);
    byte[] smuggled = "GET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    try (H2Wire wire = connect(Map.of())) {
      // Headers and body in one write, so the body is read before any answer can come: with content-length 0 the
      // request may go on at its headers, and an answer that came first would end the stream (RST_STREAM NO_ERROR,
      // the smuggled bytes then read by no one) rather than the body being found malformed.
      byte[] headers = H2Wire.headersFrame(1, wire.encode(request("POST", "/outer")
          .add("content-length", Integer.toString(contentLength))), false);
      byte[] body = H2Wire.dataFrame(1, smuggled, true);
      byte[] both = new byte[headers.length + body.length];
      System.arraycopy(headers, 0, both, 0, headers.length);
      System.arraycopy(body, 0, both, headers.length, body.length);
      wire.write(both);

      Frame reset = wire.await(f -> f.streamId() == 1 && f.type() == H2Wire.RST_STREAM, WAIT);
      assertThat(reset.errorCode()).isEqualTo(PROTOCOL_ERROR);
      wire.headers(3, request("GET", "/next"), true);
      assertThat(wire.answer(3, WAIT).text()).isEqualTo("answer to /next ");
    }
    assertThat(seen).doesNotContain("GET /smuggled").contains("GET /next");
  }

  /**
   * H2.TE request smuggling: connection-specific header fields (transfer-encoding, connection,
   * keep-alive, upgrade) make an HTTP/2 request malformed (RFC 9113 §8.2.2). It is reset before
   * a target is chosen (the DATA behind it, for a stream that never opened, then ends the
   * connection), so a chunked body's early end ({@code 0\r\n\r\n}) never lets a target read
   * what follows as a request of its own. Either path.
   */
  @ParameterizedTest(name = "{0}, direct path {1}")
  @CsvSource({"transfer-encoding, true", "transfer-encoding, false", "connection, true", "keep-alive, true",
      "upgrade, true"})
  void aConnectionSpecificHeader_makesTheRequestMalformed_andNothingOfItReachesTheTarget(String name,
      boolean directPath) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    List<String> seen = new CopyOnWriteArrayList<>();
    startWithTargetNoting(seen);
    byte[] body = "0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("POST", "/outer").add(name, "chunked"), false);
      wire.write(H2Wire.dataFrame(1, body, true));

      Frame reset = wire.await(f -> f.streamId() == 1 && f.type() == H2Wire.RST_STREAM, WAIT);
      assertThat(reset.errorCode()).isEqualTo(PROTOCOL_ERROR);
      // The DATA that followed was for a stream that never opened: Netty ends the connection too.
      assertThat(wire.await(f -> f.type() == H2Wire.GOAWAY, WAIT).errorCode()).isEqualTo(PROTOCOL_ERROR);
    }
    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("GET", "/next"), true);
      assertThat(wire.answer(1, WAIT).text()).isEqualTo("answer to /next ");
    }
    assertThat(seen).containsExactly("GET /next");
  }

  /**
   * A request that names its host in a Host field and not in :authority (RFC 9113 §8.3.1 lets a
   * client do so) is routed and forwarded by that host, either path.
   */
  @ParameterizedTest(name = "direct path {0}")
  @ValueSource(booleans = {true, false})
  void aRequestWithHostInsteadOfAuthority_isForwardedWithThatHost(boolean directPath) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.response().end("host " + req.headers().get("host")));
    start(backend.port());

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, new DefaultHttp2Headers().method("GET").scheme("http").path("/h").add("host", "example.com"), true);

      assertThat(wire.answer(1, WAIT).text()).isEqualTo("host example.com:" + port);
    }
  }

  /** Starts the gateway before a target that notes each request's method and path in {@code seen}. */
  private void startWithTargetNoting(List<String> seen) {
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      seen.add(req.method() + " " + req.uri());
      req.body().onSuccess(b -> req.response().end("answer to " + req.uri() + " " + b));
    });
    start(backend.port());
  }

  private static long windowGranted(H2Wire wire, int stream) {
    return wire.frames().stream().filter(f -> f.type() == H2Wire.WINDOW_UPDATE && f.streamId() == stream)
        .mapToLong(f -> ((f.payload()[0] & 0x7fL) << 24) | ((f.payload()[1] & 0xffL) << 16)
            | ((f.payload()[2] & 0xffL) << 8) | (f.payload()[3] & 0xffL)).sum();
  }

  @Test
  void targetTrailers_reachTheClientAsAnHttp2TrailersFrame() {
    RawTarget target = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
        + "Trailer: x-checksum\r\n\r\n5\r\nhello\r\n0\r\nX-Checksum: abc\r\n\r\n"));
    start(target.port());

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("GET", "/t"), true);
      Answer a = wire.answer(1, WAIT);
      assertThat(a.status()).isEqualTo("200");
      assertThat(a.text()).isEqualTo("hello");
      assertThat(a.head().contains("transfer-encoding")).isFalse();
      assertThat(a.head().contains("trailer")).isFalse();
      assertThat(a.trailers()).isNotNull();
      assertThat(a.trailers().get("x-checksum")).hasToString("abc");
    }
  }

  /**
   * Heads from an HTTP/1.1 target leave as literal header blocks that leave HPACK's dynamic table
   * alone, between the blocks of Netty's encoder, which owns that table: the client decodes every
   * head whole, and each shrinking of its table (the first SETTINGS and a later one) reaches it as
   * a size update at the start of the next block, as its decoder insists.
   */
  @Test
  void targetHeads_decodeWhole_withTheClientsTableShrunkAtTheStartAndLater() {
    String longName = "X-Long-" + "n".repeat(130);
    String longValue = "v".repeat(300);
    RawTarget target = RawTarget.start(backends, (socket, head) -> {
      String status = head.startsWith("GET /moved ") ? "302 Found" : "200 OK";
      RawTarget.answer("HTTP/1.1 " + status + "\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\n"
          + "SET-COOKIE: b=2\r\nWWW-Authenticate: Basic realm=\"x\"\r\nX-Mixed-Case: \u00e9t\u00e9\r\n"
          + "X-Empty:\r\n" + longName + ": " + longValue + "\r\nKeep-Alive: timeout=5\r\n"
          + "Content-Length: 2\r\n\r\nok").onRequest(socket, head);
    });
    start(target.port());
    long before = DirectForwarder.forwarded();

    try (H2Wire wire = connect(Map.of(H2Wire.SETTINGS_HEADER_TABLE_SIZE, 256L))) {
      int stream = 1;
      for (long tableSize : new long[] {256, 64, 0}) {
        if (tableSize != 256) {
          wire.settings(Map.of(H2Wire.SETTINGS_HEADER_TABLE_SIZE, tableSize));
        }
        for (String path : List.of("/a", "/moved", "/b")) {
          wire.headers(stream, request("GET", path), true);
          Answer a = wire.answer(stream, WAIT);
          assertThat(a.status()).as("%s with a table of %d", path, tableSize)
              .isEqualTo(path.equals("/moved") ? "302" : "200");
          assertThat(a.text()).isEqualTo("ok");
          Http2Headers h = a.head();
          assertThat(h.getAll("set-cookie")).map(CharSequence::toString).containsExactly("a=1", "b=2");
          assertThat(h.get("content-type")).hasToString("text/plain");
          assertThat(h.get("content-length")).hasToString("2");
          assertThat(h.get("www-authenticate")).hasToString("Basic realm=\"x\"");
          assertThat(h.get("x-mixed-case")).hasToString("\u00e9t\u00e9"); // obs-text, byte for byte
          assertThat(h.get("x-empty")).hasToString("");
          assertThat(h.get(longName.toLowerCase(Locale.ROOT))).hasToString(longValue);
          assertThat(h.contains("keep-alive")).isFalse();
          assertThat(h.names()).allMatch(n -> n.toString().equals(n.toString().toLowerCase(Locale.ROOT)));
          stream += 2;
        }
      }
      assertThat(wire.closedByServer()).isFalse();
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(9);
  }

  /**
   * A head whose block could be larger than the client's frame size goes through Netty's encoder,
   * which splits it into CONTINUATION frames: on the direct path as on Vert.x's. (The client's
   * SETTINGS_MAX_HEADER_LIST_SIZE is advisory, RFC 9113 §6.5.2: Netty's server side, as of 4.2.18,
   * does not enforce it, and a head over it goes as it is.)
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void headsTooLargeForALiteralBlock_goThroughNettysEncoder(boolean directPath) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    String big = "b".repeat(20_000);
    RawTarget target = RawTarget.start(backends, (socket, head) -> RawTarget.answer("HTTP/1.1 200 OK\r\n"
        + (head.startsWith("GET /big ") ? "X-Big: " + big + "\r\n" : "") + "Content-Length: 2\r\n\r\nok")
        .onRequest(socket, head));
    start(target.port());
    long before = DirectForwarder.forwarded();

    try (H2Wire wire = connect(Map.of(H2Wire.SETTINGS_MAX_HEADER_LIST_SIZE, 30_000L))) {
      wire.headers(1, request("GET", "/small"), true); // the connection's first head, through Netty's encoder anyway
      assertThat(wire.answer(1, WAIT).text()).isEqualTo("ok");
      wire.headers(3, request("GET", "/big"), true);
      Answer a = wire.answer(3, WAIT);
      assertThat(a.status()).isEqualTo("200");
      assertThat(a.head().get("x-big")).hasToString(big);
      assertThat(a.text()).isEqualTo("ok");
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(directPath ? 2 : 0);
  }

  /**
   * A small body goes in one buffer with its HEADERS frame; a head whose body is not in the same
   * read from the target still leaves at the end of that read, not with its body.
   */
  @Test
  void aHeadWhoseSmallBodyComesLater_reachesTheClientFirst() {
    Promise<Void> sendBody = Promise.promise();
    RawTarget target = RawTarget.start(backends, (socket, head) -> {
      if (head.startsWith("GET /first ")) {
        socket.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst");
        return;
      }
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Part: head\r\n\r\n");
      sendBody.future().onComplete(v -> socket.write("hello"));
    });
    start(target.port());

    try (H2Wire wire = connect(Map.of())) {
      // The connection's first head goes through Netty's encoder (HeadersFrames); the second is held.
      wire.headers(1, request("GET", "/first"), true);
      assertThat(wire.answer(1, WAIT).text()).isEqualTo("first");
      wire.headers(3, request("GET", "/late"), true);
      Frame head = wire.await(f -> f.streamId() == 3 && f.type() == H2Wire.HEADERS, WAIT);
      assertThat(head.headers().get("x-part")).hasToString("head");
      assertThat(dataReceived(wire, 3)).isZero();
      backends.runOnContext(v -> sendBody.complete());
      Answer a = wire.answer(3, WAIT);
      assertThat(a.status()).isEqualTo("200");
      assertThat(a.text()).isEqualTo("hello");
    }
  }

  @Test
  void aTargetCutMidResponse_resetsTheStream_andTheConnectionCarriesOn() {
    RawTarget target = RawTarget.start(backends, (socket, head) -> {
      if (head.startsWith("GET /cut ")) {
        RawTarget.answerAndClose("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly ten..").onRequest(socket, head);
      } else {
        RawTarget.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").onRequest(socket, head);
      }
    });
    start(target.port());

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("GET", "/cut"), true);
      Answer cut = wire.answer(1, WAIT);
      assertThat(cut.status()).isEqualTo("200");
      assertThat(cut.reset()).isNotNull();
      assertThat(cut.reset().errorCode()).isEqualTo(INTERNAL_ERROR);

      wire.headers(3, request("GET", "/next"), true);
      assertThat(wire.answer(3, WAIT).text()).isEqualTo("ok");
    }
  }

  @Test
  void aRefusedTarget_gets502OnTheStream_andABodyStillComingIsStoppedWithNoError() {
    start(Ports.free()); // nothing listens there

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("GET", "/x"), true);
      Answer get = wire.answer(1, WAIT);
      assertThat(get.status()).isEqualTo("502");
      assertThat(get.head().get("server")).hasToString("awselb/2.0");
      assertThat(get.text()).contains("502 Bad Gateway");
      assertThat(get.reset()).isNull();

      wire.headers(3, request("POST", "/x"), false); // the body never comes
      Answer post = wire.answer(3, WAIT);
      assertThat(post.status()).isEqualTo("502");
      await().atMost(WAIT).until(() -> wire.answer(3, WAIT).reset() != null);
      assertThat(wire.answer(3, WAIT).reset().errorCode()).isEqualTo(NO_ERROR);
    }
  }

  @Test
  void aClientReset_closesTheTargetConnection() {
    Promise<Void> targetClosed = Promise.promise();
    Promise<Void> received = Promise.promise();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      if (req.path().equals("/hang")) {
        req.connection().closeHandler(v -> targetClosed.tryComplete());
        received.tryComplete();
      } else {
        req.response().end("ok");
      }
    });
    start(backend.port());

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("GET", "/hang"), true);
      await().atMost(WAIT).until(() -> received.future().isComplete());
      wire.write(H2Wire.rstFrame(1, H2Wire.CANCEL));
      await().atMost(WAIT).until(() -> targetClosed.future().isComplete());

      wire.headers(3, request("GET", "/next"), true);
      assertThat(wire.answer(3, WAIT).text()).isEqualTo("ok");
    }
  }

  @Test
  void aConnectionError_whileTheLaneHasAStreamUnderWay_endsInGoAway() {
    Promise<Void> received = Promise.promise();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      if (req.path().equals("/hang")) {
        received.tryComplete();
      } else {
        req.response().end("ok");
      }
    });
    start(backend.port());
    long before = DirectForwarder.forwarded();

    try (H2Wire wire = connect(Map.of())) {
      wire.headers(1, request("GET", "/hang"), true);
      await().atMost(WAIT).until(() -> received.future().isComplete());
      assertThat(DirectForwarder.forwarded() - before).isEqualTo(1);

      wire.write(H2Wire.dataFrame(0, new byte[] {1}, false)); // DATA on stream 0: a connection error

      Frame goAway = wire.await(f -> f.type() == H2Wire.GOAWAY, WAIT);
      assertThat(goAway.errorCode()).isEqualTo(PROTOCOL_ERROR);
      await().atMost(WAIT).until(wire::closedByServer);
    }
  }
}
