package io.fulcrum.listener;

import static io.fulcrum.testing.ElbAssertions.assertElbPage;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.forward.ElbError;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Desync mitigation (SPEC §11.4, {@code routing.http.desync_mitigation_mode}) on requests the
 * HTTP decoder lets through: defensive (the default) serves an Ambiguous request, then closes the
 * client connection (with {@code Connection: close}, and nothing pipelined behind it is served) and
 * does not reuse the target connection; strictest answers 400 to anything not Compliant and closes;
 * monitor serves all as usual. Against a raw target that counts its connections.
 */
class DesyncMitigationTest {

  private static final String OK = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

  /** Ambiguous requests, each with what follows it on the wire. */
  private static final String GET_WITH_BODY = "GET /a HTTP/1.1\r\nHost: lb\r\nContent-Length: 5\r\n\r\nhello";
  private static final String SUSPICIOUS = "POST /a HTTP/1.1\r\nHost: lb\r\nTransfer_Encoding: chunked\r\n"
      + "Content-Length: 5\r\n\r\nhello";
  private static final String CONTROL_IN_URI = "GET /a\u0001b HTTP/1.1\r\nHost: lb\r\n\r\n";
  private static final String GET_CHUNKED = "GET /a HTTP/1.1\r\nHost: lb\r\nTransfer-Encoding: chunked\r\n\r\n"
      + "5\r\nhello\r\n0\r\n\r\n";
  /** Acceptable. */
  private static final String GET_ZERO_LENGTH = "GET /a HTTP/1.1\r\nHost: lb\r\nContent-Length: 0\r\n\r\n";
  private static final String PLAIN = "GET /b HTTP/1.1\r\nHost: lb\r\n\r\n";

  private final Vertx targets = TestVertx.create();
  private Gateway gateway;
  private RawTarget target;
  private int port;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    if (target != null) {
      target.close();
    }
    targets.close();
    System.clearProperty("fulcrum.directPath");
  }

  private void start(String mode) {
    target = RawTarget.start(targets, RawTarget.answer(OK));
    port = Ports.free();
    Map<String, String> attributes = mode == null ? Map.of()
        : Map.of("routing.http.desync_mitigation_mode", mode);
    gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, attributes, target.port()));
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  @ParameterizedTest(name = "{0}, direct path {1}")
  @CsvSource({"get-with-body, true", "get-with-body, false", "suspicious-header, true", "control-in-uri, true",
      "get-chunked, true"})
  void defensive_servesAnAmbiguousRequest_thenClosesBothConnections_andServesNothingPipelinedBehindIt(String kind,
      boolean directPath) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    start(null);
    String ambiguous = switch (kind) {
      case "get-with-body" -> GET_WITH_BODY;
      case "suspicious-header" -> SUSPICIOUS;
      case "control-in-uri" -> CONTROL_IN_URI;
      default -> GET_CHUNKED;
    };

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(bytes(ambiguous + "GET /smuggled HTTP/1.1\r\nHost: lb\r\n\r\n")).read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("ok");
      assertThat(r.header("Connection")).isEqualToIgnoringCase("close");
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
    // (The raw target reads a chunked body's last chunk as a head too: only request lines count.)
    assertThat(target.heads()).filteredOn(h -> h.matches("(?s)[A-Z]+ /.*")).hasSize(1)
        .noneMatch(h -> h.contains("/smuggled"));

    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send(PLAIN).read().status()).isEqualTo(200);
    }
    assertThat(target.connections()).as("the ambiguous request's target connection was not reused").isEqualTo(2);
  }

  @Test
  void defensive_servesAnAcceptableRequest_asAnyOther() {
    start("defensive");

    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send(GET_ZERO_LENGTH).read().status()).isEqualTo(200);
      assertThat(c.send(PLAIN).read().status()).isEqualTo(200);
    }
    assertThat(target.connections()).isEqualTo(1);
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"zero-length", "get-with-body", "suspicious-header"})
  void strictest_answers400AndCloses_toAnythingNotCompliant_withoutReachingTheTarget(String kind) {
    start("strictest");
    String request = switch (kind) {
      case "zero-length" -> GET_ZERO_LENGTH;
      case "get-with-body" -> GET_WITH_BODY;
      default -> SUSPICIOUS;
    };

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(bytes(request)).read();

      assertElbPage(r, ElbError.BAD_REQUEST);
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
    assertThat(target.heads()).isEmpty();
  }

  /**
   * Compliant requests are served in strictest mode, header values with bytes past ASCII among them:
   * RFC 9110's obs-text, which the guardian takes as Compliant (a UTF-8 {@code café}, a filename).
   */
  @Test
  void strictest_servesCompliantRequests() {
    start("strictest");

    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send(PLAIN).read().status()).isEqualTo(200);
      assertThat(c.send("POST /p HTTP/1.1\r\nHost: lb\r\nContent-Length: 2\r\n\r\nhi").read().status()).isEqualTo(200);
      String utf8 = new String("caf\u00e9 \u00a0\u0085".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
      assertThat(c.send(bytes("GET /a HTTP/1.1\r\nHost: lb\r\nX-Name: " + utf8 + "\r\n\r\n")).read().status())
          .isEqualTo(200);
    }
    assertThat(target.heads()).hasSize(3);
  }

  /**
   * A control character or DEL in a header value (the guardian's NonCompliantHeader, Acceptable
   * there) is refused by the decoder first, whatever the mode: 400, and it never reaches the target.
   */
  @ParameterizedTest(name = "character {0}")
  @ValueSource(ints = {0x7f, 0x01, 0x1b})
  void aControlCharacterInAHeaderValue_is400_evenInMonitorMode(int control) {
    start("monitor");

    try (RawConnection c = RawConnection.open(port)) {
      assertElbPage(c.send(bytes("GET /a HTTP/1.1\r\nHost: lb\r\nX-Name: a" + (char) control + "b\r\n\r\n")).read(),
          ElbError.BAD_REQUEST);
    }
    assertThat(target.heads()).isEmpty();
  }

  @Test
  void monitor_servesAnAmbiguousRequest_andKeepsTheConnection() {
    start("monitor");

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(GET_WITH_BODY).read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("Connection")).isNull();
      assertThat(c.send(PLAIN).read().status()).isEqualTo(200);
    }
    assertThat(target.connections()).isEqualTo(1);
  }

  @Test
  void classification_ofWhatTheDecoderLetsThrough() {
    var headers = io.vertx.core.http.impl.headers.HeadersMultiMap.httpHeaders();
    assertThat(Desync.verdict("GET", "/", headers)).isEqualTo(Desync.Verdict.COMPLIANT);
    assertThat(Desync.verdict("GET", "/a\u0000", headers).reason()).isEqualTo("BadUri");
    assertThat(Desync.verdict("GET", "/a\u007f", headers).reason()).isEqualTo("AmbiguousUri");
    headers.add("X-Name", "\tcaf\u00c3\u00a9;`\u0085\u0093\u00a0");
    assertThat(Desync.verdict("GET", "/", headers)).as("obs-text and a tab").isEqualTo(Desync.Verdict.COMPLIANT);
    headers.remove("X-Name");
    headers.add("Content-Length", "0");
    assertThat(Desync.verdict("HEAD", "/", headers).reason()).isEqualTo("GetHeadZeroContentLength");
    assertThat(Desync.verdict("POST", "/", headers)).isEqualTo(Desync.Verdict.COMPLIANT);
    for (String name : new String[] {"Content_Length", "content.length", "ContentLength", "TRANSFER_ENCODING",
        "Transfer-Encoding-"}) {
      assertThat(Desync.suspicious(name)).as(name).isTrue();
    }
    for (String name : new String[] {"Content-Length", "transfer-encoding", "Content-Type", "Content-Location",
        "X-Content-Length"}) {
      assertThat(Desync.suspicious(name)).as(name).isFalse();
    }
  }
}
