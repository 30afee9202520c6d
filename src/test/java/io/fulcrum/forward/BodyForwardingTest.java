package io.fulcrum.forward;

import static io.fulcrum.testing.ElbAssertions.assertElbPage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Framing;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bodies streamed both ways through the load balancer, byte for byte: chunked and Content-Length
 * requests, chunked and close-delimited responses, bodiless HEAD/204/304 answers, keep-alive
 * reuse of the client's connection, pipelining, and a client's {@code Connection: close}.
 */
class BodyForwardingTest {

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private int port;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private void gatewayTo(int targetPort) {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, targetPort));
  }

  /** A backend answering each request with {@code <length>:<sha-256 of the body>}. */
  private Backend digestingBackend() {
    return Backend.start(backends, "digest", "127.0.0.1",
        req -> req.body().onSuccess(b -> req.response().end(b.length() + ":" + sha256(b.getBytes()))));
  }

  @Test
  void chunkedRequestBody_arrivesIntactAtTheTarget() {
    Backend backend = digestingBackend();
    gatewayTo(backend.port());
    byte[] body = randomBytes(300_000);

    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes(ascii("POST /upload HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n"));
    int[] chunkSizes = {1, 65_536, 100_000, 134_463};
    int offset = 0;
    for (int size : chunkSizes) {
      request.writeBytes(ascii(Integer.toHexString(size) + "\r\n"));
      request.write(body, offset, size);
      request.writeBytes(ascii("\r\n"));
      offset += size;
    }
    request.writeBytes(ascii("0\r\n\r\n"));
    assertThat(offset).isEqualTo(body.length);

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(request.toByteArray()).read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo(body.length + ":" + sha256(body));
    }
    assertThat(backend.lastRequest().getJsonObject("headers").getString("transfer-encoding")).isEqualTo("chunked");
  }

  /**
   * A chunked body that breaks off malformed never reaches the target as a whole request (before,
   * the end that came with the decoder's failure went on as the body's end, and the target took
   * the five bytes for the whole body): the target connection, which has the head, goes mid-body;
   * the client gets ALB's 400 and its connection is closed. A trailer line with no name is such a break.
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"5\r\nhello\r\nZZ\r\n", "5\r\nhello\r\n-1\r\n", "5\r\nhelloXX\r\n0\r\n\r\n",
      "5\r\nhello\r\n0\r\n: x\r\n\r\n"})
  void chunkedRequestBody_thatBreaksOffMalformed_neverReachesTheTargetWhole(String chunks) {
    List<Integer> whole = new CopyOnWriteArrayList<>();
    AtomicInteger broken = new AtomicInteger();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.body().onComplete(ar -> {
      if (ar.succeeded()) {
        whole.add(ar.result().length());
        req.response().end("whole");
      } else {
        broken.incrementAndGet();
      }
    }));
    gatewayTo(backend.port());
    // A kept-alive target connection, so that the head and the first chunk are on their way to the
    // target before the malformed part is read.
    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send("POST /warm HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n\r\nok").read().bodyText())
          .isEqualTo("whole");
    }

    try (RawConnection c = RawConnection.open(port)) {
      c.send("POST /upload HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhel");
      await().atMost(Duration.ofSeconds(10)).until(() -> backend.trafficHits() == 2); // the head is at the target
      Response r = c.send(chunks.substring("5\r\nhel".length())).read();

      assertElbPage(r, ElbError.BAD_REQUEST);
      assertThat(c.closedByServer()).isTrue();
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> broken.get() == 1);
    assertThat(whole).as("bodies the target took as whole: the warm-up's only").containsExactly(2);
  }

  @Test
  void contentLengthRequestBody_arrivesIntactAtTheTarget() {
    Backend backend = digestingBackend();
    gatewayTo(backend.port());
    byte[] body = randomBytes(1_048_576);

    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes(ascii("PUT /upload HTTP/1.1\r\nHost: example.com\r\nContent-Length: " + body.length + "\r\n\r\n"));
    request.writeBytes(body);

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(request.toByteArray()).read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo(body.length + ":" + sha256(body));
    }
    assertThat(backend.lastRequest().getJsonObject("headers").getString("content-length"))
        .isEqualTo(Integer.toString(body.length));
  }

  @Test
  void chunkedResponse_arrivesIntactAtTheClient() {
    byte[] body = randomBytes(200_000);
    Backend backend = Backend.start(backends, "chunks", "127.0.0.1", req -> {
      req.response().setChunked(true);
      req.response().write(Buffer.buffer(java.util.Arrays.copyOfRange(body, 0, 1)));
      req.response().write(Buffer.buffer(java.util.Arrays.copyOfRange(body, 1, 70_000)));
      req.response().end(Buffer.buffer(java.util.Arrays.copyOfRange(body, 70_000, body.length)));
    });
    gatewayTo(backend.port());

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.framing()).isEqualTo(Framing.CHUNKED);
      assertThat(r.complete()).isTrue();
      assertThat(r.body()).isEqualTo(body);
    }
  }

  @ParameterizedTest(name = "target answers {0}")
  @ValueSource(strings = {"HTTP/1.0 200 OK", "HTTP/1.1 200 OK\r\nConnection: close"})
  void closeDelimitedResponse_arrivesIntactAtAnHttp11Client_reframedAsChunked(String head) {
    String body = "x".repeat(50_000) + "end";
    try (RawTarget target = RawTarget.start(backends, RawTarget.answerAndClose(head + "\r\n\r\n" + body))) {
      gatewayTo(target.port());

      try (RawConnection c = RawConnection.open(port)) {
        Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.framing()).isEqualTo(Framing.CHUNKED);
        assertThat(r.complete()).isTrue();
        assertThat(r.bodyText()).isEqualTo(body);
        // The client's connection stays usable.
        assertThat(c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo(body);
      }
    }
  }

  @ParameterizedTest(name = "request keep-alive: {index}")
  @ValueSource(strings = {"", "Connection: keep-alive\r\n"})
  void closeDelimitedResponse_arrivesIntactAtAnHttp10Client_delimitedByClose(String connection) {
    String body = "y".repeat(50_000) + "end";
    try (RawTarget target = RawTarget.start(backends, RawTarget.answerAndClose("HTTP/1.0 200 OK\r\n\r\n" + body))) {
      gatewayTo(target.port());

      try (RawConnection c = RawConnection.open(port)) {
        Response r = c.send("GET / HTTP/1.0\r\nHost: example.com\r\n" + connection + "\r\n").read();

        assertThat(r.status()).isEqualTo(200);
        assertThat(r.framing()).isEqualTo(Framing.CLOSE);
        assertThat(r.header("Connection")).as("a keep-alive client is told the connection ends with the body")
            .isEqualToIgnoringCase("close");
        assertThat(r.bodyText()).isEqualTo(body);
      }
    }
  }

  @Test
  void headResponse_hasNoBody_keepsTheTargetsContentLength_andTheConnectionStaysInStep() {
    // A raw target, so that the HEAD answer is exactly what a server sends: the GET's headers, no body.
    try (RawTarget target = RawTarget.start(backends, (socket, head) -> socket.write(head.startsWith("HEAD")
        ? "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\n"
        : "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"))) {
      gatewayTo(target.port());

      try (RawConnection c = RawConnection.open(port)) {
        Response head = c.send("HEAD / HTTP/1.1\r\nHost: example.com\r\n\r\n").read(true);
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.header("Content-Length")).isEqualTo("5");

        // Were any body bytes sent after the HEAD response, this would not parse as the next response.
        Response next = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
        assertThat(next.status()).isEqualTo(200);
        assertThat(next.bodyText()).isEqualTo("hello");
      }
    }
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(ints = {204, 304})
  void bodilessStatus_hasNoBody_andTheConnectionStaysInStep(int status) {
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.response().setStatusCode(status).end());
    gatewayTo(backend.port());

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET /nothing HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
      assertThat(r.status()).isEqualTo(status);
      assertThat(r.header("Transfer-Encoding")).isNull();

      Response next = c.send("GET /again HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
      assertThat(next.status()).isEqualTo(status);
    }
    assertThat(backend.trafficHits()).isEqualTo(2);
  }

  @Test
  void keepAlive_reusesTheClientConnection_andTheTargetConnection() {
    List<Integer> targetSidePorts = new CopyOnWriteArrayList<>();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", (HttpServerRequest req) -> {
      targetSidePorts.add(req.remoteAddress().port());
      req.response().end("n" + targetSidePorts.size());
    });
    gatewayTo(backend.port());

    try (RawConnection c = RawConnection.open(port)) {
      for (int i = 1; i <= 3; i++) {
        Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
        assertThat(r.status()).isEqualTo(200);
        assertThat(r.bodyText()).isEqualTo("n" + i);
        assertThat(r.header("Connection")).isNull();
      }
    }
    assertThat(targetSidePorts).hasSize(3);
    assertThat(targetSidePorts.stream().distinct()).as("one target connection, reused").hasSize(1);
  }

  @Test
  void targetConnectionClose_isNotPassedOn_andTheNextRequestGetsANewTargetConnection() {
    try (RawTarget target = RawTarget.start(backends,
        RawTarget.answerAndClose("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"))) {
      gatewayTo(target.port());

      try (RawConnection c = RawConnection.open(port)) {
        for (int i = 0; i < 2; i++) {
          Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
          assertThat(r.status()).isEqualTo(200);
          assertThat(r.bodyText()).isEqualTo("ok");
          assertThat(r.header("Connection")).isNull();
        }
      }
      assertThat(target.connections()).isEqualTo(2);
    }
  }

  @Test
  void pipelinedRequests_areAnsweredInOrder() {
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.response().end("answer to " + req.uri()));
    gatewayTo(backend.port());

    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /1 HTTP/1.1\r\nHost: example.com\r\n\r\nGET /2 HTTP/1.1\r\nHost: example.com\r\n\r\n"
          + "GET /3 HTTP/1.1\r\nHost: example.com\r\n\r\n");

      assertThat(c.read().bodyText()).isEqualTo("answer to /1");
      assertThat(c.read().bodyText()).isEqualTo("answer to /2");
      assertThat(c.read().bodyText()).isEqualTo("answer to /3");
    }
  }

  @Test
  void connectionClose_fromTheClient_isHonouredAfterTheProxiedResponse_andNotForwarded() {
    Backend backend = Backend.start(backends, "b");
    gatewayTo(backend.port());

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n").read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("b");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServer()).isTrue();
    }
    assertThat(backend.lastRequest().getJsonObject("headers").fieldNames()).doesNotContain("connection");
  }

  private static byte[] randomBytes(int n) {
    byte[] b = new byte[n];
    new Random(n).nextBytes(b);
    return b;
  }

  private static byte[] ascii(String s) {
    return s.getBytes(StandardCharsets.ISO_8859_1);
  }

  private static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
