package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The direct path (FastLane and DirectForwarder) next to Vert.x's request path on one client
 * connection: which requests it takes, order when both paths serve pipelined requests, reuse of
 * its target connections, a graceful close that waits for its exchange, and the same answers with
 * the direct path switched off.
 */
class DirectPathTest {

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

  /** A listener forwarding to {@code targetPort}, with a fixed response on {@code /fixed}. */
  private String config(int targetPort) {
    return GatewayConfigs.forwarding(port, targetPort).replace(
        "        default-actions: [{type: forward, target-group: tg}]\n",
        """
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/fixed"]}]
                    actions: [{type: fixed-response, status-code: "200", content-type: text/plain, message-body: fixed}]
        """);
  }

  private void start(int targetPort) {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), config(targetPort));
  }

  @Test
  void pipelinedRequests_servedByBothPaths_areAnsweredInOrder() {
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.response().end("answer to " + req.uri()));
    start(backend.port());
    long before = DirectForwarder.forwarded();

    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /1 HTTP/1.1\r\nHost: example.com\r\n\r\n"
          + "HEAD /2 HTTP/1.1\r\nHost: example.com\r\n\r\n" // HEAD: Vert.x's path
          + "GET /fixed HTTP/1.1\r\nHost: example.com\r\n\r\n" // a fixed response: Vert.x's path
          + "GET /3 HTTP/1.1\r\nHost: example.com\r\n\r\n"
          + "POST /4 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhello");

      assertThat(c.read().bodyText()).isEqualTo("answer to /1");
      Response head = c.read(true);
      assertThat(head.status()).isEqualTo(200);
      assertThat(head.body()).isEmpty();
      assertThat(c.read().bodyText()).isEqualTo("fixed");
      assertThat(c.read().bodyText()).isEqualTo("answer to /3");
      assertThat(c.read().bodyText()).isEqualTo("answer to /4");
      // Only /1 went the direct way: what was read behind a request in Vert.x's hands goes to Vert.x.
      assertThat(DirectForwarder.forwarded() - before).isEqualTo(1);

      // Vert.x's responses have all ended: the connection's next request goes the direct way again.
      assertThat(c.send("GET /5 HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("answer to /5");
      assertThat(DirectForwarder.forwarded() - before).isEqualTo(2);
    }
    assertThat(backend.received()).extracting(r -> r.getString("method") + " " + r.getString("uri"))
        .containsExactly("GET /1", "HEAD /2", "GET /3", "POST /4", "GET /5");
  }

  @Test
  void pipelinedRequests_behindADirectExchange_waitAndGoTheDirectWay() {
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.body()
        .onSuccess(b -> req.response().end("answer to " + req.uri() + " " + b)));
    start(backend.port());
    long before = DirectForwarder.forwarded();

    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /1 HTTP/1.1\r\nHost: example.com\r\n\r\n"
          + "POST /2 HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n"
          + "GET /3 HTTP/1.1\r\nHost: example.com\r\n\r\n");

      assertThat(c.read().bodyText()).isEqualTo("answer to /1 ");
      assertThat(c.read().bodyText()).isEqualTo("answer to /2 hi");
      assertThat(c.read().bodyText()).isEqualTo("answer to /3 ");
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(3);
  }

  /** Notes the connection of a request that is not a health check (each check has its own, closed after it). */
  private static void noteTraffic(Set<Object> connections, io.vertx.core.http.HttpServerRequest req) {
    if (!"ELB-HealthChecker/2.0".equals(req.getHeader("User-Agent"))) {
      connections.add(req.connection());
    }
  }

  @Test
  void sequentialRequests_reuseOneTargetConnection() {
    Set<Object> connections = ConcurrentHashMap.newKeySet();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      noteTraffic(connections, req);
      req.response().end("ok");
    });
    start(backend.port());
    long before = DirectForwarder.forwarded();

    for (int i = 0; i < 5; i++) {
      try (RawConnection c = RawConnection.open(port)) {
        assertThat(c.send("GET /x HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("ok");
      }
    }

    assertThat(DirectForwarder.forwarded() - before).isEqualTo(5);
    assertThat(connections).hasSize(1);
  }

  @Test
  void http2Requests_toAnHttp11Target_shareTheDirectPathsTargetConnections() {
    Set<Object> connections = ConcurrentHashMap.newKeySet();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      noteTraffic(connections, req);
      // Answered once the body is in: a response that ends before its request has all gone leaves a
      // target connection that cannot be reused (the POST's would then be closed, and the HEAD open another).
      req.body().onSuccess(b -> req.response().end(req.method() + " " + req.uri()));
    });
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), config(backend.port()).replace("      - protocol: HTTP\n",
        "      - protocol: HTTP\n        h2c: true\n"));
    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send("GET /direct HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("GET /direct");
    }
    // Raw frames: under CPU load Vert.x's HTTP/2 client now and then never completes a response here,
    // whichever path serves it (seen in CI; about 1 in 20 repetitions with two CPU hogs, and never with
    // raw frames under the same load).
    try (H2Wire w = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
      w.serverSettings(Duration.ofSeconds(10));
      int stream = 1;
      for (String method : List.of("GET", "POST", "HEAD")) {
        boolean post = method.equals("POST");
        w.headers(stream, H2Wire.request(method, "http", "127.0.0.1:" + port, "/h2"), !post);
        if (post) {
          w.write(H2Wire.dataFrame(stream, "body".getBytes(StandardCharsets.UTF_8), true));
        }
        H2Wire.Answer a = w.answer(stream, Duration.ofSeconds(10));
        assertThat(a.status() + " " + a.text()).isEqualTo("200 " + (method.equals("HEAD") ? "" : method + " /h2"));
        stream += 2;
      }
    }

    // The HTTP/2 streams went out over the target connection the HTTP/1.1 request opened.
    assertThat(connections).hasSize(1);
    assertThat(backend.received()).extracting(r -> r.getString("method") + " " + r.getString("version"))
        .containsExactly("GET HTTP_1_1", "GET HTTP_1_1", "POST HTTP_1_1", "HEAD HTTP_1_1");
  }

  @Test
  void httpsTargetGroup_goesTheDirectWay_overTls() throws Exception {
    Path dir = Files.createTempDirectory("direct-tls-target");
    TestCertificates.Pem pem = TestCertificates.pem(dir, "target", "127.0.0.1");
    HttpServer tlsTarget = backends.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0).setSsl(true)
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(pem.certificate().toString())
            .setKeyPath(pem.privateKey().toString())));
    tlsTarget.requestHandler(req -> req.body().onSuccess(b -> req.response()
        .end((req.isSSL() ? "tls " : "clear ") + req.method() + " " + b)));
    Await.result(tlsTarget.listen());
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, tlsTarget.actualPort())
        .replace("    protocol: HTTP\n", "    protocol: HTTPS\n"));
    long before = DirectForwarder.forwarded();

    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("tls GET ");
      assertThat(c.send("POST / HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n\r\nhi").read().bodyText())
          .isEqualTo("tls POST hi");
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(2);
  }

  @Test
  void stickyGroup_goesTheDirectWay_andItsCookieKeepsTheClientOnItsTarget() {
    Backend a = Backend.start(backends, "a");
    Backend b = Backend.start(backends, "b");
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, a.port(), b.port()).replace("    port: 80\n",
        "    port: 80\n    attributes: {stickiness.enabled: \"true\", stickiness.type: lb_cookie}\n"));
    long before = DirectForwarder.forwarded();

    String cookie;
    String first;
    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();
      first = r.bodyText();
      String setCookie = r.header("Set-Cookie");
      assertThat(setCookie).startsWith("AWSALB=");
      cookie = setCookie.substring(0, setCookie.indexOf(';'));
    }
    for (int i = 0; i < 4; i++) {
      try (RawConnection c = RawConnection.open(port)) {
        Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\nCookie: " + cookie + "\r\n\r\n").read();
        assertThat(r.bodyText()).isEqualTo(first);
      }
    }

    assertThat(DirectForwarder.forwarded() - before).isEqualTo(5);
    // The load balancer's cookie is its own: the target never sees it.
    Backend chosen = first.equals("a") ? a : b;
    assertThat(chosen.lastRequest().getJsonObject("headers").fieldNames()).doesNotContain("cookie");
  }

  /**
   * A small body is copied behind its head so that both leave in one write; a head whose body is
   * not in the same read from the target still leaves at the end of that read, not with its body.
   */
  @Test
  void aHeadWhoseSmallBodyComesLater_reachesTheClientFirst() throws Exception {
    Promise<Void> sendBody = Promise.promise();
    RawTarget target = RawTarget.start(backends, (socket, head) -> {
      socket.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Part: head\r\n\r\n");
      sendBody.future().onComplete(v -> socket.write("hello"));
    });
    start(target.port());
    long before = DirectForwarder.forwarded();

    try (java.net.Socket client = new java.net.Socket("127.0.0.1", port)) {
      client.setSoTimeout(10_000);
      client.getOutputStream().write("GET /late HTTP/1.1\r\nHost: example.com\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
      java.io.InputStream in = client.getInputStream();
      StringBuilder head = new StringBuilder();
      while (!head.toString().endsWith("\r\n\r\n")) {
        int b = in.read();
        assertThat(b).as("the head before its body, got: %s", head).isNotNegative();
        head.append((char) b);
      }
      assertThat(head.toString()).startsWith("HTTP/1.1 200 OK\r\n").contains("X-Part: head\r\n");
      backends.runOnContext(v -> sendBody.complete());
      assertThat(new String(in.readNBytes(5), StandardCharsets.US_ASCII)).isEqualTo("hello");
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(1);
  }

  @Test
  void targetRefusesWhileTheBodyIsStillComing_502_andTheConnectionCloses() {
    int closedPort = Ports.free(); // nothing listens there: the connection is refused
    start(closedPort);
    long before = DirectForwarder.forwarded();

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("POST /upload HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n\r\nhello").read();
      assertThat(r.status()).isEqualTo(502);
      assertThat(r.header("Connection")).isEqualTo("close");
      c.send("world");
      assertThat(c.closedByServer()).isTrue();
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(1);
  }

  @Test
  void listenerRemovedWhileATargetAnswers_theResponseEndsBeforeTheConnectionCloses() {
    CopyOnWriteArrayList<HttpServerRequest> held = new CopyOnWriteArrayList<>();
    Promise<Void> release = Promise.promise();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      held.add(req);
      release.future().onComplete(v -> req.response().end("late answer"));
    });
    start(backend.port());
    String withoutListener = config(backend.port()).replace("    listeners:\n", "    listeners: []\n")
        .replaceAll("(?s)      - protocol: HTTP\n.*?(?=target-groups:)", "");

    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /slow HTTP/1.1\r\nHost: example.com\r\n\r\n");
      Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> !held.isEmpty());
      gateway.reload(withoutListener); // the server shuts down gracefully: the connection looks idle to Vert.x
      backends.runOnContext(v -> release.complete());

      Response r = c.read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("late answer");
      assertThat(c.closedByServer()).isTrue();
    }
  }

  @ParameterizedTest(name = "direct path {0}")
  @ValueSource(booleans = {true, false})
  void clientAsksToClose_theResponseSaysSo_theConnectionCloses_andNothingPipelinedBehindIsServed(boolean direct) {
    System.setProperty("fulcrum.directPath", Boolean.toString(direct));
    Set<Object> connections = ConcurrentHashMap.newKeySet();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      noteTraffic(connections, req);
      req.body().onSuccess(b -> req.response().end("answer to " + req.uri() + " " + b));
    });
    start(backend.port());
    long before = DirectForwarder.forwarded();

    try (RawConnection c = RawConnection.open(port)) {
      c.send("POST /1 HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi"
          + "GET /not-served HTTP/1.1\r\nHost: example.com\r\n\r\n");
      Response r = c.read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("answer to /1 hi");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServer()).isTrue();
    }
    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET /2 HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n").read();
      assertThat(r.bodyText()).isEqualTo("answer to /2 ");
      assertThat(r.header("Connection")).isEqualTo("close");
      assertThat(c.closedByServer()).isTrue();
    }

    assertThat(DirectForwarder.forwarded() - before).isEqualTo(direct ? 2 : 0);
    assertThat(backend.received()).extracting(q -> q.getString("uri")).containsExactly("/1", "/2");
    assertThat(backend.lastRequest().getJsonObject("headers").fieldNames()).doesNotContain("connection");
    assertThat(connections).hasSize(1); // the client's close is its own: the target connection stays open
  }

  @Test
  void clientThatHalfCloses_getsEveryAnswer_onBothPaths_thenTheConnectionCloses() {
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.body()
        .onSuccess(b -> req.response().end("answer to " + req.uri() + (b.length() > 0 ? " " + b : ""))));
    start(backend.port());
    long before = DirectForwarder.forwarded();

    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /1 HTTP/1.1\r\nHost: example.com\r\n\r\n"
          + "GET /fixed HTTP/1.1\r\nHost: example.com\r\n\r\n" // Vert.x's path, as is all that follows it
          + "HEAD /2 HTTP/1.1\r\nHost: example.com\r\n\r\n" // forwarded by Vert.x's path
          + "POST /5 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 2\r\n\r\nhi" // its body piped by Vert.x
          + "GET /3 HTTP/1.1\r\nHost: example.com\r\n\r\n").shutdownOutput();

      assertThat(c.read().bodyText()).isEqualTo("answer to /1");
      assertThat(c.read().bodyText()).isEqualTo("fixed");
      assertThat(c.read(true).status()).isEqualTo(200);
      assertThat(c.read().bodyText()).isEqualTo("answer to /5 hi");
      assertThat(c.read().bodyText()).isEqualTo("answer to /3");
      assertThat(c.closedByServer()).isTrue();
    }
    try (RawConnection c = RawConnection.open(port)) {
      // HTTP/1.0, as `printf 'GET / HTTP/1.0...' | nc -N` sends it: Vert.x's path.
      c.send("GET /10 HTTP/1.0\r\nHost: example.com\r\nUser-Agent: nc\r\n\r\n").shutdownOutput();
      assertThat(c.read().bodyText()).isEqualTo("answer to /10");
      assertThat(c.closedByServer()).isTrue();
    }
    try (RawConnection c = RawConnection.open(port)) {
      // A keep-alive connection that goes quiet and then half-closes: nothing is left to answer.
      assertThat(c.send("GET /4 HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("answer to /4");
      assertThat(c.shutdownOutput().closedByServer()).isTrue();
    }
    assertThat(DirectForwarder.forwarded() - before).isEqualTo(2);
    assertThat(backend.received()).extracting(r -> r.getString("method") + " " + r.getString("uri"))
        .containsExactly("GET /1", "HEAD /2", "POST /5", "GET /3", "GET /10", "GET /4");
  }

  @Test
  void clientThatHalfClosesInTheMiddleOfABody_isCutOffAtOnce() {
    List<String> wholeBodies = new CopyOnWriteArrayList<>();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.body().onSuccess(b -> {
      wholeBodies.add(b.toString());
      req.response().end("whole body " + b);
    }));
    start(backend.port());

    try (RawConnection c = RawConnection.open(port)) {
      c.send("POST /1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 10\r\n\r\nabc").shutdownOutput();

      assertThat(c.readUntilClosed()).isEmpty();
    }
    // The head may have reached the target before the client went; a body can never have come whole.
    assertThat(wholeBodies).isEmpty();
  }

  @ParameterizedTest(name = "direct path {0}")
  @ValueSource(booleans = {true, false})
  void bothPaths_sendTheTargetTheSameRequest_andTheClientTheSameResponse(boolean direct) {
    System.setProperty("fulcrum.directPath", Boolean.toString(direct));
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.body().onSuccess(body -> req.response()
        .putHeader("Connection", "keep-alive, X-Hop")
        .putHeader("X-Hop", "dropped")
        .putHeader("Keep-Alive", "timeout=30")
        .putHeader("X-Target", "kept")
        .setChunked(true)
        .end(req.uri() + " " + body)));
    start(backend.port());
    long before = DirectForwarder.forwarded();

    Response r;
    try (RawConnection c = RawConnection.open(port)) {
      r = c.send("POST http://Example.com:8080/a/b?q=1 HTTP/1.1\r\nHost: ignored\r\nConnection: keep-alive, X-Private\r\n"
          + "X-Private: secret\r\nX-Forwarded-For: 203.0.113.9\r\nTransfer-Encoding: chunked\r\n\r\n"
          + "3\r\nabc\r\n0\r\n\r\n").read();
    }

    assertThat(DirectForwarder.forwarded() - before).isEqualTo(direct ? 1 : 0);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText()).isEqualTo("/a/b?q=1 abc");
    assertThat(r.header("Transfer-Encoding")).isEqualTo("chunked");
    assertThat(r.header("X-Target")).isEqualTo("kept");
    assertThat(r.header("X-Hop")).isNull();
    assertThat(r.header("Keep-Alive")).isNull();
    var sent = backend.lastRequest();
    assertThat(sent.getString("uri")).isEqualTo("/a/b?q=1");
    var headers = sent.getJsonObject("headers");
    assertThat(headers.getString("host")).isEqualTo("example.com:8080");
    assertThat(headers.getString("x-forwarded-for")).isEqualTo("203.0.113.9, 127.0.0.1");
    assertThat(headers.getString("x-forwarded-proto")).isEqualTo("http");
    assertThat(headers.getString("x-forwarded-port")).isEqualTo(Integer.toString(port));
    assertThat(headers.getString("x-amzn-trace-id")).startsWith("Root=1-");
    assertThat(headers.getString("transfer-encoding")).isEqualTo("chunked");
    assertThat(headers.fieldNames()).doesNotContain("x-private", "connection");
  }

  @ParameterizedTest(name = "direct path {0}")
  @ValueSource(booleans = {true, false})
  void targetsOwnHead_reachesTheClient_lessHopByHop_withAFoldedValueOnOneLine_andTrailers(boolean direct) {
    System.setProperty("fulcrum.directPath", Boolean.toString(direct));
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 203 Fine By Us\r\n"
        + "X-Folded: a\r\n b\r\nConnection: X-Gone\r\nX-Gone: 1\r\nUpgrade: h2c\r\nset-cookie: c=1\r\n"
        + "Transfer-Encoding: chunked\r\nContent-Length: 99\r\nTrailer: X-Sum\r\n\r\n"
        + "5;ext\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 42\r\n\r\n"))) {
      start(target.port());
      long before = DirectForwarder.forwarded();

      try (RawConnection c = RawConnection.open(port)) {
        for (int i = 0; i < 2; i++) {
          Response r = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

          assertThat(r.statusLine()).isEqualTo("HTTP/1.1 203 Fine By Us");
          assertThat(r.header("X-Folded")).matches("a +b");
          assertThat(r.header("set-cookie")).isEqualTo("c=1");
          assertThat(r.headerNames()).doesNotContain("x-gone", "connection", "upgrade", "trailer", "content-length");
          assertThat(r.framing()).isEqualTo(RawConnection.Framing.CHUNKED);
          assertThat(r.complete()).isTrue();
          assertThat(r.bodyText()).isEqualTo("hello world");
          assertThat(r.trailer("X-Sum")).isEqualTo("42");
        }
      }
      assertThat(DirectForwarder.forwarded() - before).isEqualTo(direct ? 2 : 0);
      assertThat(target.heads()).hasSize(2);
      assertThat(target.connections()).isEqualTo(1); // kept between the two
    }
  }

  /**
   * Header names reach the target spelled as the client wrote them, whether the decoder took them
   * from its table of common names or not, on both paths.
   */
  @ParameterizedTest(name = "direct path {0}")
  @ValueSource(booleans = {true, false})
  void headerNames_reachTheTargetSpelledAsTheClientWroteThem(boolean direct) {
    System.setProperty("fulcrum.directPath", Boolean.toString(direct));
    try (RawTarget target = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))) {
      start(target.port());
      long before = DirectForwarder.forwarded();

      try (RawConnection c = RawConnection.open(port)) {
        for (int i = 0; i < 2; i++) {
          assertThat(c.send("GET / HTTP/1.1\r\nHost: example.com\r\nUser-Agent: a\r\naccept-language: en\r\n"
              + "ACCEPT-ENCODING: gzip\r\nX-Custom: c\r\nsec-fetch-mode: cors\r\nReferer: /r\r\n\r\n").read().status())
              .isEqualTo(200);
        }
      }

      assertThat(DirectForwarder.forwarded() - before).isEqualTo(direct ? 2 : 0);
      assertThat(target.heads()).hasSize(2).allSatisfy(head -> assertThat(head).contains(
          "\r\nUser-Agent: a\r\n", "\r\naccept-language: en\r\n", "\r\nACCEPT-ENCODING: gzip\r\n",
          "\r\nX-Custom: c\r\n", "\r\nsec-fetch-mode: cors\r\n", "\r\nReferer: /r\r\n"));
    }
  }

  /**
   * A body that comes after its request's head has been read reaches the target: on a listener
   * that takes h2c as well, Vert.x makes the connection only once that head is decoded, so the
   * decoder, in the middle of the request then, must stay the one that began it.
   */
  @ParameterizedTest(name = "h2c {0}")
  @ValueSource(booleans = {true, false})
  void aBodyThatComesAfterItsHead_reachesTheTarget_withOrWithoutH2c(boolean h2c) {
    Promise<Void> headArrived = Promise.promise();
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> {
      headArrived.tryComplete();
      req.body().onSuccess(body -> req.response().end(req.method() + " " + body));
    });
    port = Ports.free();
    String config = GatewayConfigs.forwarding(port, backend.port());
    gateway = Gateway.start(TestVertx.create(), h2c ? withH2c(config) : config);

    try (RawConnection c = RawConnection.open(port)) {
      c.send("POST /p HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\nContent-Length: 5\r\n\r\n");
      Await.result(headArrived.future());
      Response posted = c.send("hello").read();
      Response next = c.send("GET /next HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\n\r\n").read();

      assertThat(posted.status()).isEqualTo(200);
      assertThat(posted.bodyText()).isEqualTo("POST hello");
      assertThat(next.status()).isEqualTo(200);
      assertThat(next.bodyText()).isEqualTo("GET ");
    }
  }

  /**
   * On a listener that takes h2c as well, requests pipelined behind the connection's first (read
   * with it, before the decoder that began it hands over to Fulcrum's) are each answered, in order.
   */
  @Test
  void onAnH2cListener_requestsPipelinedBehindTheFirst_areAnsweredInOrder() {
    Backend backend = Backend.start(backends, "b", "127.0.0.1", req -> req.body()
        .onSuccess(body -> req.response().end(req.method() + " " + req.uri() + " " + body)));
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), withH2c(GatewayConfigs.forwarding(port, backend.port())));

    try (RawConnection c = RawConnection.open(port)) {
      c.send("POST /1 HTTP/1.1\r\nHost: example.com\r\nContent-Length: 5\r\n\r\nhello"
          + "GET /2 HTTP/1.1\r\nHost: example.com\r\nUser-Agent: t\r\n\r\n"
          + "POST /3 HTTP/1.1\r\nHost: example.com\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n");

      assertThat(c.read().bodyText()).isEqualTo("POST /1 hello");
      assertThat(c.read().bodyText()).isEqualTo("GET /2 ");
      assertThat(c.read().bodyText()).isEqualTo("POST /3 abc");
      assertThat(c.send("GET /4 HTTP/1.1\r\nHost: example.com\r\n\r\n").read().bodyText()).isEqualTo("GET /4 ");
    }
  }

  /** {@code config} with its listener (on {@link #port}) taking h2c as well. */
  private String withH2c(String config) {
    return config.replace("        port: " + port + "\n", "        port: " + port + "\n        h2c: true\n");
  }
}
