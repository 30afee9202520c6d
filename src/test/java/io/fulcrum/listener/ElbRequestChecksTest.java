package io.fulcrum.listener;

import static io.fulcrum.testing.ElbAssertions.assertElbPage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fulcrum.bootstrap.NetworkTransport;
import io.fulcrum.forward.ElbError;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The answers the load balancer makes itself before any target is involved (SPEC §11.3, §8.5),
 * checked on the wire with a raw client: exact status line, ALB's HTML page, {@code Server:
 * awselb/2.0}, and that the target never saw the request.
 */
class ElbRequestChecksTest {

  private static final int KB = 1024;

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private Backend backend;
  private int port;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private void startWithBackend() {
    startWithBackend(TestVertx.create());
  }

  private void startWithBackend(Vertx gatewayVertx) {
    backend = Backend.start(backends, "b");
    port = Ports.free();
    gateway = Gateway.start(gatewayVertx, GatewayConfigs.forwarding(port, backend.port()));
  }

  /** As {@link #startWithBackend()}, the listener taking h2c as well when {@code h2c}. */
  private void startWithBackend(boolean h2c) {
    backend = Backend.start(backends, "b");
    port = Ports.free();
    String config = GatewayConfigs.forwarding(port, backend.port());
    gateway = Gateway.start(TestVertx.create(), h2c
        ? config.replace("        port: " + port + "\n", "        port: " + port + "\n        h2c: true\n") : config);
  }

  /**
   * Runs {@code start}, whose listeners then take the direct path's lanes or ({@code false}) serve
   * every request through Vert.x's server: the listener verticles read the switch as they start.
   */
  private static void onPath(boolean directPath, Runnable start) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    try {
      start.run();
    } finally {
      System.clearProperty("fulcrum.directPath");
    }
  }

  private Response exchange(String request) {
    try (RawConnection c = RawConnection.open(port)) {
      return c.send(request).read();
    }
  }

  @Test
  void listener_returns503_whenTargetGroupHasNoRegisteredTargets() {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port));

    Response r = exchange("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n");

    assertElbPage(r, ElbError.NO_TARGETS);
    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 503 Service Temporarily Unavailable");
  }

  @Test
  void listener_returns405_forTrace_withoutReachingTheTarget() {
    startWithBackend();

    Response r = exchange("TRACE / HTTP/1.1\r\nHost: example.com\r\n\r\n");

    assertElbPage(r, ElbError.METHOD_NOT_ALLOWED);
    assertThat(backend.trafficHits()).isZero();
  }

  @Test
  void listener_returns463_whenXForwardedForHolds31Addresses_withoutReachingTheTarget() {
    startWithBackend();

    Response r = exchange("GET / HTTP/1.1\r\nHost: example.com\r\nX-Forwarded-For: " + addresses(31) + "\r\n\r\n");

    assertElbPage(r, ElbError.XFF_TOO_LONG);
    assertThat(backend.trafficHits()).isZero();
  }

  @Test
  void listener_returns463_whenXForwardedForHeadersTogetherHold31Addresses() {
    startWithBackend();

    Response r = exchange("GET / HTTP/1.1\r\nHost: example.com\r\nX-Forwarded-For: " + addresses(16)
        + "\r\nX-Forwarded-For: " + addresses(15) + "\r\n\r\n");

    assertElbPage(r, ElbError.XFF_TOO_LONG);
    assertThat(backend.trafficHits()).isZero();
  }

  @Test
  void listener_forwards_whenXForwardedForHolds30Addresses() {
    startWithBackend();

    Response r = exchange("GET / HTTP/1.1\r\nHost: example.com\r\nX-Forwarded-For: " + addresses(30) + "\r\n\r\n");

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText()).isEqualTo("b");
    String forwarded = backend.lastRequest().getJsonObject("headers").getString("x-forwarded-for");
    assertThat(forwarded).isEqualTo(addresses(30) + ", 127.0.0.1");
  }

  static Stream<Arguments> unsupportedTransferEncodings() {
    String smuggled = "GET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n";
    return Stream.of(
        Arguments.of("gzip", smuggled),
        Arguments.of("deflate", smuggled),
        // identity: gone from HTTP/1.1 (RFC 9112), refused as a coding that does not end in chunked.
        Arguments.of("identity", smuggled),
        Arguments.of("chunked, gzip", "5\r\nhello\r\n0\r\n\r\n" + smuggled),
        Arguments.of("chunked, chunked", "5\r\nhello\r\n0\r\n\r\n" + smuggled),
        // The decoder reads this body as chunked; what follows it must not be read either.
        Arguments.of("gzip, chunked", "5\r\nhello\r\n0\r\n\r\n" + smuggled));
  }

  @ParameterizedTest(name = "Transfer-Encoding: {0}")
  @MethodSource("unsupportedTransferEncodings")
  void listener_returns501AndCloses_forUnsupportedTransferEncoding_withoutReachingTheTarget(String coding, String body) {
    startWithBackend();

    try (RawConnection c = RawConnection.open(port)) {
      // What follows the head must never be read as a next request (a smuggled request).
      Response r = c.send("POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: " + coding + "\r\n\r\n"
          + body).read();

      assertElbPage(r, ElbError.UNSUPPORTED_TRANSFER_ENCODING);
      // The body's end is unknown, so the connection cannot be reused.
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServer()).isTrue();
    }
    assertThat(backend.trafficHits()).isZero();
  }

  /**
   * On io_uring a write completes after the event loop's turn, so the close behind a 501 comes
   * after the requests read with it have been handed on: the one pipelined behind the body must
   * still never reach a target (it did, through the direct path, before the connection was marked).
   */
  @Test
  void listener_neverServesARequestPipelinedBehindA501_onIoUring() {
    assumeTrue(NetworkTransport.ioUringAvailable(), "io_uring is not available here");
    startWithBackend(NetworkTransport.vertx(Map.of("FULCRUM_TRANSPORT", "io_uring")));

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("POST / HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
          + "5\r\nhello\r\n0\r\n\r\nGET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

      assertElbPage(r, ElbError.UNSUPPORTED_TRANSFER_ENCODING);
      assertThat(c.readUntilClosed()).as("nothing after the 501").isEmpty();
    }
    assertThat(backend.trafficHits()).isZero();
  }

  /**
   * What ALB rejects with 400. A request whose request line cannot be parsed is answered in
   * HTTP/1.0: the decoder never learnt the client's version.
   */
  static Stream<Arguments> malformedRequests() {
    return Stream.of(
        Arguments.of("a control character in the method", "HTTP/1.0", "G\u0001T / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        Arguments.of("whitespace between a header name and its colon", "HTTP/1.1",
            "GET / HTTP/1.1\r\nHost: example.com\r\nX-Bad : value\r\n\r\n"),
        Arguments.of("a request line over 16 KB", "HTTP/1.0",
            "GET /" + "a".repeat(17 * KB) + " HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        Arguments.of("one header over 16 KB", "HTTP/1.1",
            "GET / HTTP/1.1\r\nHost: example.com\r\nX-Big: " + "v".repeat(17 * KB) + "\r\n\r\n"),
        Arguments.of("all headers over 64 KB", "HTTP/1.1",
            "GET / HTTP/1.1\r\nHost: example.com\r\n" + headers(5, 15 * KB) + "\r\n"),
        // RFC 9112 §6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
        Arguments.of("Transfer-Encoding in an HTTP/1.0 request", "HTTP/1.0",
            "POST / HTTP/1.0\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("malformedRequests")
  void listener_returns400AndCloses_forMalformedOrOversizedRequest_withoutReachingTheTarget(String what, String version,
      String request) {
    startWithBackend();

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(request).read();

      assertElbPage(r, ElbError.BAD_REQUEST, version);
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServer()).isTrue();
    }
    assertThat(backend.trafficHits()).isZero();
  }

  /**
   * A request line in a version ALB does not serve, well formed (SPEC §11.3: 505), whether it is
   * the connection's first request or follows one, on a listener with and without h2c: ALB's 505
   * page, answered in HTTP/1.0 as to a request line that cannot be read, the connection closed, and
   * the request pipelined behind it never served.
   */
  @ParameterizedTest(name = "{0}, h2c {1}, after a first request {2}")
  @MethodSource("versionsNotServed")
  void listener_returns505AndCloses_forAVersionItDoesNotServe_withoutReachingTheTarget(String version, boolean h2c,
      boolean afterAFirstRequest) {
    startWithBackend(h2c);

    try (RawConnection c = RawConnection.open(port)) {
      if (afterAFirstRequest) {
        assertThat(c.send("GET /first HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("b");
      }
      Response r = c.send("POST /bad " + version + "\r\nHost: example.com\r\nContent-Length: 2\r\n\r\nab"
          + "GET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

      assertElbPage(r, ElbError.VERSION_NOT_SUPPORTED, "HTTP/1.0");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.readUntilClosed()).as("nothing after the 505").isEmpty();
    }
    assertThat(backend.trafficHits()).isEqualTo(afterAFirstRequest ? 1 : 0);
  }

  static Stream<Arguments> versionsNotServed() {
    return Stream.of("HTTP/2.0", "HTTP/1.2", "HTTP/3.0").flatMap(v -> Stream.of(
        Arguments.of(v, false, false), Arguments.of(v, true, false), Arguments.of(v, true, true)));
  }

  /** The HTTP/2 connection preface sent to a listener that does not take h2c (SPEC §7.3: 505). */
  @Test
  void listener_returns505AndCloses_forTheHttp2Preface_onAListenerWithoutH2c() {
    startWithBackend();

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n").read();

      assertElbPage(r, ElbError.VERSION_NOT_SUPPORTED, "HTTP/1.0");
      assertThat(c.closedByServer()).isTrue();
    }
    assertThat(backend.trafficHits()).isZero();
  }

  /**
   * A request target in none of the forms a load balancer serves (RFC 9112 §3.2): it would reach
   * the target as a path the rules never matched ({@code admin/x} against a rule for
   * {@code /admin/*}). ALB's 400 page, in HTTP/1.0 as to a request line that cannot be read, the
   * connection closed, nothing pipelined behind it served; with and without h2c, first or not.
   */
  @ParameterizedTest(name = "{0}, h2c {1}, after a first request {2}")
  @MethodSource("targetsNotServed")
  void listener_returns400AndCloses_forARequestTargetInNoFormItServes_withoutReachingTheTarget(String requestLine,
      boolean h2c, boolean afterAFirstRequest) {
    startWithBackend(h2c);

    try (RawConnection c = RawConnection.open(port)) {
      if (afterAFirstRequest) {
        assertThat(c.send("GET /first HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("b");
      }
      Response r = c.send(requestLine + "\r\nHost: example.com\r\n\r\n"
          + "GET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

      assertElbPage(r, ElbError.BAD_REQUEST, "HTTP/1.0");
      assertThat(c.readUntilClosed()).as("nothing after the 400").isEmpty();
    }
    assertThat(backend.trafficHits()).isEqualTo(afterAFirstRequest ? 1 : 0);
  }

  static Stream<Arguments> targetsNotServed() {
    return Stream.of("GET admin/x HTTP/1.1", "GET ../../etc/passwd HTTP/1.1", "GET version/2 HTTP/1.1", "GET * HTTP/1.1",
        "CONNECT example.com:443 HTTP/1.1", "GET 1http://example.com/ HTTP/1.1", "GET http:/example.com/ HTTP/1.1",
        // A fragment is no part of a request target (RFC 9112 §3.2): a rule for *.png would route /private#.png.
        "GET /private.html#.png HTTP/1.1", "GET /a?b=c#d HTTP/1.1", "GET http://example.com/a#b HTTP/1.1",
        // A path that climbs above the root names no resource under it; a target serving files could leave its tree.
        "GET /../etc/passwd HTTP/1.1", "GET /static/../../etc/passwd HTTP/1.1", "GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1",
        "GET http://example.com/../x HTTP/1.1")
        .flatMap(line -> Stream.of(Arguments.of(line, false, false), Arguments.of(line, true, false),
            Arguments.of(line, true, true)));
  }

  /**
   * A header line with no name before its colon (RFC 9110 §5.1: a field name is a token, one
   * character at least; the guardian's {@code EmptyHeader}): refused as a name that is no token is,
   * 400 and the close, whether Vert.x's decoder reads it (a listener's first request with h2c) or
   * Fulcrum's, on both paths. Passed on, {@code : chunked} is a line each target reads its own way.
   */
  @ParameterizedTest(name = "{0}, h2c {1}, after a first request {2}, direct path {3}")
  @MethodSource("namelessHeaderLines")
  void listener_returns400AndCloses_forAHeaderLineWithoutAName(String line, boolean h2c, boolean afterAFirstRequest,
      boolean directPath) {
    onPath(directPath, () -> startWithBackend(h2c));

    try (RawConnection c = RawConnection.open(port)) {
      if (afterAFirstRequest) {
        assertThat(c.send("GET /first HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("b");
      }
      Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n" + line + "\r\n\r\n"
          + "GET /smuggled HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

      assertElbPage(r, ElbError.BAD_REQUEST);
      assertThat(c.readUntilClosed()).as("nothing after the 400").isEmpty();
    }
    assertThat(backend.trafficHits()).isEqualTo(afterAFirstRequest ? 1 : 0);
  }

  static Stream<Arguments> namelessHeaderLines() {
    return Stream.of(": chunked", ":x: y", ":")
        .flatMap(line -> Stream.of(false, true).flatMap(direct -> Stream.of(
            Arguments.of(line, false, false, direct), Arguments.of(line, true, false, direct),
            Arguments.of(line, true, true, direct))));
  }

  /** The three forms served: origin, absolute (its path goes on) and, for OPTIONS, asterisk. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"GET /a/b?c=d HTTP/1.1", "GET http://example.com/a/b?c=d HTTP/1.1",
      "GET h2+x.y-z://example.com/a/b?c=d HTTP/1.1", "OPTIONS * HTTP/1.1", "GET /a/x/../b?c=d HTTP/1.1"})
  void listener_forwards_originAbsoluteAndAsteriskForms(String requestLine) {
    startWithBackend();

    Response r = exchange(requestLine + "\r\nHost: example.com\r\n\r\n");

    assertThat(r.status()).isEqualTo(200);
    assertThat(backend.lastRequest().getString("uri")).isEqualTo(requestLine.startsWith("OPTIONS") ? "*"
        : requestLine.contains("..") ? "/a/x/../b?c=d" : "/a/b?c=d");
  }

  /** An absolute-form target with no path: its query goes on after {@code /}, and a {@code /} in it starts no path. */
  @Test
  void listener_forwardsAnAbsoluteFormTargetWithoutPath_withItsQueryWhole() {
    startWithBackend();

    Response r = exchange("GET http://example.com?next=/a/../../b HTTP/1.1\r\nHost: example.com\r\n\r\n");

    assertThat(r.status()).isEqualTo(200);
    assertThat(backend.lastRequest().getString("uri")).isEqualTo("/?next=/a/../../b");
  }

  /**
   * A Host value that is no host (RFC 9112 §3.2): 400 and the close, on the direct path and on
   * Vert.x's, and it never reaches the target (which could build a URL from it).
   */
  @ParameterizedTest(name = "Host: {0}, direct path {1}")
  @MethodSource("hostsRefused")
  void listener_returns400AndCloses_forAHostThatIsNoHost(String host, boolean directPath) {
    onPath(directPath, this::startWithBackend);

    assertRefusedWith400AndClosed("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n");
  }

  /**
   * Sends {@code request} with another behind it: the first gets ALB's 400 page, nothing after it
   * is served, the connection closes, and the target sees neither.
   */
  private void assertRefusedWith400AndClosed(String request) {
    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(request + "GET /smuggled HTTP/1.1\r\nHost: a\r\n\r\n").read();

      assertElbPage(r, ElbError.BAD_REQUEST);
      assertThat(c.readUntilClosed()).as("nothing after the 400").isEmpty();
    }
    assertThat(backend.trafficHits()).isZero();
  }

  static Stream<Arguments> hostsRefused() {
    return Stream.of("a b", "evil.example/path", "user@example.com", "example.com?x", "ex\"ample", "<x>", "a\\b",
        "[::1", "::1]", "a[::1]", "[::1]x", "[]", "[::1]]")
        .flatMap(h -> Stream.of(Arguments.of(h, true), Arguments.of(h, false)));
  }

  /**
   * An HTTP/1.1 request without Host (RFC 9112 §3.2: a server MUST answer 400; NGINX does): 400 and
   * the close, on both paths, absolute form included. HTTP/1.0 needs none, and an empty Host (a
   * target with no authority) is one: both get the load balancer's name (SPEC §11.1).
   */
  @ParameterizedTest(name = "{0}, direct path {1}")
  @CsvSource({"GET / HTTP/1.1, true", "GET / HTTP/1.1, false", "GET http://example.com/ HTTP/1.1, true",
      "POST / HTTP/1.1, false"})
  void listener_returns400AndCloses_forAnHttp11RequestWithoutHost(String requestLine, boolean directPath) {
    onPath(directPath, this::startWithBackend);

    assertRefusedWith400AndClosed(requestLine + "\r\nContent-Length: 0\r\n\r\n");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"GET / HTTP/1.0\r\n\r\n", "GET / HTTP/1.1\r\nHost:\r\n\r\n"})
  void listener_forwards_withTheLoadBalancersName_http10WithoutHost_andAnEmptyHost(String request) {
    startWithBackend();

    assertThat(exchange(request).status()).isEqualTo(200);
    assertThat(backend.lastRequest().getJsonObject("headers").getString("host")).startsWith("lb.");
  }

  @ParameterizedTest(name = "Host: {0}")
  @ValueSource(strings = {"example.com", "example.com:8080", "EXAMPLE.com", "127.0.0.1:80", "[::1]:8080", "[::1]",
      "xn--bcher-kva.example",
      "my_host.internal"})
  void listener_forwards_hostsThatAreHosts(String host) {
    startWithBackend();

    assertThat(exchange("GET / HTTP/1.1\r\nHost: " + host + "\r\n\r\n").status()).isEqualTo(200);
  }

  /**
   * Over HTTP/2 a :path must be origin form, or {@code *} for OPTIONS, and holds no fragment (RFC
   * 9113 §8.3.1): 400 on the stream, from the direct path's lane as from Vert.x's.
   */
  @Test
  void listener_returns400OnTheStream_forAnHttp2PathInNoFormItServes_andTheConnectionGoesOn() {
    startWithBackend(true);

    try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
      wire.serverSettings(Duration.ofSeconds(10));
      String authority = "127.0.0.1:" + port;
      wire.headers(1, H2Wire.request("GET", "http", authority, "admin/x"), true);
      wire.headers(3, H2Wire.request("GET", "http", authority, "*"), true);
      wire.headers(5, H2Wire.request("OPTIONS", "http", authority, "*"), true);
      wire.headers(7, H2Wire.request("GET", "http", authority, "/fine"), true);
      wire.headers(9, H2Wire.request("GET", "http", authority, "/private.html#.png"), true);
      wire.headers(11, H2Wire.request("POST", "http", authority, "/a?b#c"), true);
      wire.headers(13, H2Wire.request("GET", "http", authority, "/static/../../etc/passwd"), true);

      assertThat(wire.answer(9, Duration.ofSeconds(10)).status()).isEqualTo("400");
      assertThat(wire.answer(11, Duration.ofSeconds(10)).status()).isEqualTo("400");
      assertThat(wire.answer(13, Duration.ofSeconds(10)).status()).isEqualTo("400");
      assertThat(wire.answer(1, Duration.ofSeconds(10)).status()).isEqualTo("400");
      assertThat(wire.answer(3, Duration.ofSeconds(10)).status()).isEqualTo("400");
      assertThat(wire.answer(5, Duration.ofSeconds(10)).status()).isEqualTo("200");
      assertThat(wire.answer(7, Duration.ofSeconds(10)).status()).isEqualTo("200");
    }
    assertThat(backend.trafficHits()).isEqualTo(2);
  }

  /**
   * An HTTP/2 request that HTTP/1.1 cannot carry: a {@code :path} with a space or a tab, which the
   * target's request line would split at (the tab went on as it was), or a {@code :method} that is
   * no token. The stream is reset (PROTOCOL_ERROR, RFC 9113 §8.1.1, as the codec resets other
   * malformed requests), never forwarded; the connection and its other streams go on. The space and
   * the method closed the whole connection. On the direct path and on Vert.x's alike.
   */
  @ParameterizedTest(name = "direct path {0}")
  @ValueSource(booleans = {true, false})
  void listener_resetsAnHttp2RequestThatHttp11CannotCarry_andTheConnectionGoesOn(boolean directPath) {
    onPath(directPath, () -> startWithBackend(true));

    try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
      wire.serverSettings(Duration.ofSeconds(10));
      String authority = "127.0.0.1:" + port;
      wire.headers(1, H2Wire.request("GET", "http", authority, "/a b"), true);
      wire.headers(3, H2Wire.request("GET", "http", authority, "/a\tb HTTP/1.1\tx"), true);
      wire.headers(5, H2Wire.request("G T", "http", authority, "/p"), true);
      wire.headers(7, H2Wire.request("GET", "http", authority, "/fine"), true);
      wire.headers(9, H2Wire.request("GET(", "http", authority, "/p"), false);
      wire.write(H2Wire.dataFrame(9, "body".getBytes(java.nio.charset.StandardCharsets.US_ASCII), true));
      wire.headers(11, H2Wire.request("GET", "http", authority, "/fine"), true);

      assertThat(wire.answer(7, Duration.ofSeconds(10)).status()).isEqualTo("200");
      assertThat(wire.answer(11, Duration.ofSeconds(10)).status()).isEqualTo("200");
      for (int stream : new int[] {1, 3, 5, 9}) {
        // The first reset (a DATA frame after it, as on stream 9, may draw a second, STREAM_CLOSED).
        H2Wire.Frame reset = wire.await(f -> f.streamId() == stream && f.type() == H2Wire.RST_STREAM, Duration.ofSeconds(10));
        assertThat(reset.errorCode()).as("stream %d", stream).isEqualTo(1L); // PROTOCOL_ERROR
        assertThat(wire.answer(stream, Duration.ofSeconds(10)).head()).as("stream %d", stream).isNull();
      }
    }
    assertThat(backend.trafficHits()).isEqualTo(2);
  }

  /**
   * The bytes of a request target outside ASCII (a client's raw UTF-8, which RFC 3986 would have
   * percent-encoded) reach the target as they came, as HAProxy and NGINX pass them; they were
   * encoded again (C3 A9, an é, went on as C3 83 C2 A9).
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"HTTP/1.1 direct path", "HTTP/1.1 Vert.x path", "HTTP/1.0", "HTTP/2"})
  void listener_forwardsTheBytesOfARequestTargetAsTheyCame(String how) {
    String uri = "/caf\u00c3\u00a9?q=\u00c3\u00a9"; // the UTF-8 bytes of café, one char each
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))) {
      port = Ports.free();
      String config = GatewayConfigs.forwarding(port, target.port());
      onPath(!how.endsWith("Vert.x path"), () -> gateway = Gateway.start(TestVertx.create(),
          config.replace("        port: " + port + "\n", "        port: " + port + "\n        h2c: true\n")));

      if (how.equals("HTTP/2")) {
        try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
          wire.serverSettings(Duration.ofSeconds(10));
          wire.headers(1, H2Wire.request("GET", "http", "127.0.0.1:" + port, uri), true);
          assertThat(wire.answer(1, Duration.ofSeconds(10)).status()).isEqualTo("200");
        }
      } else {
        String version = how.startsWith("HTTP/1.0") ? "HTTP/1.0" : "HTTP/1.1";
        assertThat(exchange("GET " + uri + " " + version + "\r\nHost: example.com\r\n\r\n").status()).isEqualTo(200);
      }
      assertThat(target.heads()).hasSize(1);
      assertThat(target.heads().get(0)).startsWith("GET " + uri + " HTTP/1.1\r\n");
    }
  }

  static Stream<Arguments> requestsJustUnderTheLimits() {
    return Stream.of(
        Arguments.of("a request line just under 16 KB",
            "GET /" + "a".repeat(16 * KB - 32) + " HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        Arguments.of("one header just under 16 KB",
            "GET / HTTP/1.1\r\nHost: example.com\r\nX-Big: " + "v".repeat(16 * KB - 16) + "\r\n\r\n"),
        Arguments.of("headers just under 64 KB", "GET / HTTP/1.1\r\nHost: example.com\r\n" + headers(4, 15 * KB) + "\r\n"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("requestsJustUnderTheLimits")
  void listener_forwards_requestsJustUnderTheHeaderLimits(String what, String request) {
    port = Ports.free();
    // A raw target: it reads heads of any size (a Vert.x backend stops at 8 KB).
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"))) {
      gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, target.port()));

      Response r = exchange(request);

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("ok");
      assertThat(target.heads()).hasSize(1);
      assertThat(target.heads().get(0).length()).isGreaterThan(15 * KB);
    }
  }

  private static String addresses(int n) {
    return IntStream.rangeClosed(1, n).mapToObj(i -> "10.0.0." + i).collect(Collectors.joining(", "));
  }

  /** {@code n} headers {@code X-Fill-i} with values of {@code size} bytes. */
  private static String headers(int n, int size) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < n; i++) {
      b.append("X-Fill-").append(i).append(": ").append("f".repeat(size)).append("\r\n");
    }
    return b.toString();
  }
}
