package io.fulcrum.http2;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.H2Wire.Frame;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Headers;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.GoAway;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The HTTP/2 front end of SPEC §7.3: SETTINGS with at most 128 concurrent streams (the 129th is
 * refused, not queued forever), GOAWAY after 10,000 requests on a connection (the next request
 * goes through on a new one), no server push. Raw frames where a real client would refuse to
 * misbehave; Vert.x's HTTP/2 client where counting is enough.
 */
class Http2FrontEndTest {

  private static final Vertx VERTX = TestVertx.create();
  private static final Queue<Held> HELD = new ConcurrentLinkedQueue<>();
  private static Backend held;
  private static HttpServer pusher;
  private static final AtomicInteger PUSHES_TRIED = new AtomicInteger();
  private static Gateway gateway;
  private static TestCertificates.Pem cert;
  private static int h2cPort;
  private static int httpsPort;
  private static int plainHttpPort;

  private record Held(Context context, HttpServerRequest request) {
  }

  @BeforeAll
  static void start() throws Exception {
    cert = TestCertificates.pem(Files.createTempDirectory("h2-front"), "lb", "127.0.0.1");
    held = Backend.start(VERTX, "held", "127.0.0.1", req -> HELD.add(new Held(Vertx.currentContext(), req)));
    // An HTTP/2 target that tries to push a resource before answering.
    pusher = VERTX.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0));
    pusher.requestHandler(req -> {
      PUSHES_TRIED.incrementAndGet();
      req.response().push(io.vertx.core.http.HttpMethod.GET, "/pushed.css")
          .onSuccess(p -> p.end("body { }"));
      req.response().end("page");
    });
    Await.result(pusher.listen());
    h2cPort = Ports.free();
    httpsPort = Ports.free();
    plainHttpPort = Ports.free();
    String rules = """
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/held*"]}], actions: [{type: forward, target-group: held}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/push*"]}], actions: [{type: forward, target-group: pusher}]}
        """;
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: fixed-response, status-code: 200, content-type: text/plain, message-body: fixed}]
                rules:
        %s
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: fixed-response, status-code: 200, content-type: text/plain, message-body: fixed}]
                rules:
        %2$s
              - {protocol: HTTP, port: %d, default-actions: [{type: fixed-response, status-code: 200, content-type: text/plain, message-body: fixed}]}
        target-groups:
          - {name: held, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: pusher, target-type: ip, protocol: HTTP, port: 80, protocol-version: HTTP2, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(h2cPort, rules, httpsPort, cert.certificate(), cert.privateKey(), plainHttpPort, held.port(),
        pusher.actualPort()));
  }

  @AfterAll
  static void stop() {
    gateway.close();
    VERTX.close();
  }

  private static void releaseHeld() {
    Held h;
    while ((h = HELD.poll()) != null) {
      HttpServerRequest req = h.request();
      h.context().runOnContext(v -> req.response().end("released"));
    }
  }

  @Test
  void settings_allow128ConcurrentStreams_andA64KiBHeaderList() {
    try (H2Wire wire = H2Wire.connect("127.0.0.1", h2cPort, null, Map.of())) {
      Map<Integer, Long> settings = wire.serverSettings(Duration.ofSeconds(10));

      assertThat(settings).containsEntry(H2Wire.SETTINGS_MAX_CONCURRENT_STREAMS, 128L)
          .containsEntry(H2Wire.SETTINGS_MAX_HEADER_LIST_SIZE, 65_536L);
    }
  }

  @Test
  void stream129_onOneConnection_isRefused_whileThe128OthersComplete_overH2c() {
    stream129IsRefused(h2cPort, null, "http");
  }

  @Test
  void stream129_onOneConnection_isRefused_whileThe128OthersComplete_overTls() {
    stream129IsRefused(httpsPort, TestCertificates.trustingAnything(), "https");
  }

  private void stream129IsRefused(int port, javax.net.ssl.SSLContext tls, String scheme) {
    HELD.clear();
    try (H2Wire wire = H2Wire.connect("127.0.0.1", port, tls, Map.of())) {
      wire.serverSettings(Duration.ofSeconds(10));
      byte[] block = wire.encode(H2Wire.request("GET", scheme, "127.0.0.1:" + port, "/held"));
      for (int i = 0; i < 128; i++) {
        wire.write(H2Wire.headersFrame(1 + 2 * i, block, true));
      }
      // All 128 reached the target and wait there: the connection is at its limit.
      await().atMost(Duration.ofSeconds(30)).until(() -> HELD.size() == 128);

      wire.write(H2Wire.headersFrame(257, block, true));
      H2Wire.Frame refused = wire.await(f -> f.streamId() == 257, Duration.ofSeconds(10));

      assertThat(refused.type()).as("the 129th stream is reset").isEqualTo(H2Wire.RST_STREAM);
      assertThat(refused.errorCode()).isEqualTo(H2Wire.REFUSED_STREAM);
      assertThat(HELD).as("the refused stream never reached the target").hasSize(128);
      releaseHeld();
      await().atMost(Duration.ofSeconds(30)).until(() -> wire.frames().stream()
          .filter(f -> f.type() == H2Wire.HEADERS && "200".equals(f.status())).count() == 128);
      assertThat(wire.closedByServer()).as("the connection stays open").isFalse();

      // With streams free again, a new stream on the same connection is served.
      wire.write(H2Wire.headersFrame(259, wire.encode(H2Wire.request("GET", scheme, "127.0.0.1:" + port, "/")), true));
      assertThat(wire.await(f -> f.streamId() == 259 && f.type() == H2Wire.HEADERS, Duration.ofSeconds(10)).status())
          .isEqualTo("200");
    }
  }

  @Test
  void h2cUpgrade_fromTheJdkClient_switchesToHttp2_onlyWhereH2cIsOn() throws Exception {
    HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
        .build();
    HttpResponse<String> upgraded = jdk.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + h2cPort + "/")).build(), HttpResponse.BodyHandlers.ofString());
    HttpResponse<String> plain = jdk.send(HttpRequest.newBuilder(
        URI.create("http://127.0.0.1:" + plainHttpPort + "/")).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(upgraded.body()).isEqualTo("fixed");
    assertThat(upgraded.version()).as("Upgrade: h2c accepted").isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(plain.body()).isEqualTo("fixed");
    assertThat(plain.version()).as("h2c off: the upgrade is ignored").isEqualTo(HttpClient.Version.HTTP_1_1);
  }

  /**
   * An {@code Upgrade: h2c} that cannot be taken (no {@code Connection: Upgrade, HTTP2-Settings}, or
   * settings that do not read) is ignored, as a server may (RFC 9110 §7.8): the request is served
   * over HTTP/1.1 and the connection goes on. (Vert.x answered a bare 400 and left the client
   * waiting for its body.)
   */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {
      "Upgrade: h2c\r\n",
      "Connection: Upgrade\r\nUpgrade: h2c\r\n",
      "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\n",
      "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: not*base64\r\n",
      "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAIAAAAC\r\n", // ENABLE_PUSH 2
      "Connection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAA\r\n", // a setting cut short
  })
  void h2cUpgrade_thatCannotBeTaken_isIgnored_andTheRequestServedOverHttp11(String upgrade) {
    try (RawConnection c = RawConnection.open(h2cPort).readTimeout(10_000)) {
      RawConnection.Response first = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n" + upgrade + "\r\n").read();
      RawConnection.Response second = c.send("GET / HTTP/1.1\r\nHost: example.com\r\n\r\n").read();

      assertThat(first.statusLine()).startsWith("HTTP/1.1 200");
      assertThat(first.bodyText()).isEqualTo("fixed");
      assertThat(first.header("Upgrade")).isNull();
      assertThat(second.status()).as("the connection goes on in HTTP/1.1").isEqualTo(200);
      assertThat(second.bodyText()).isEqualTo("fixed");
    }
  }

  @Test
  void targetsPush_neverReachesTheClient_evenOneThatAllowsPush() {
    try (H2Wire wire = H2Wire.connect("127.0.0.1", h2cPort, null, Map.of(H2Wire.SETTINGS_ENABLE_PUSH, 1L))) {
      Http2Headers req = H2Wire.request("GET", "http", "127.0.0.1:" + h2cPort, "/push");
      int tries = PUSHES_TRIED.get();
      wire.headers(1, req, true);

      wire.await(f -> f.streamId() == 1 && f.type() == H2Wire.DATA && (f.flags() & H2Wire.END_STREAM) != 0,
          Duration.ofSeconds(10));
      assertThat(PUSHES_TRIED.get()).as("the target tried to push").isEqualTo(tries + 1);
      // A ping round trip: anything the server sent before its PING ACK is in.
      wire.write(new byte[] {0, 0, 8, H2Wire.PING, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
      wire.await(f -> f.type() == H2Wire.PING, Duration.ofSeconds(10));
      assertThat(wire.frames()).noneMatch(f -> f.type() == H2Wire.PUSH_PROMISE);
      assertThat(wire.frames()).noneMatch(f -> f.streamId() % 2 == 0 && f.streamId() != 0);
    }
  }

  @Test
  void goAway_after10000Requests_andTheNextRequestGoesThroughOnANewConnection() {
    AtomicInteger connections = new AtomicInteger();
    List<GoAway> goAways = new CopyOnWriteArrayList<>();
    HttpClientAgent client = VERTX.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
        .with(new PoolOptions().setHttp2MaxSize(1))
        .withConnectHandler(c -> {
          connections.incrementAndGet();
          c.goAwayHandler(goAways::add);
        })
        .build();
    Context ctx = VERTX.getOrCreateContext();
    try {
      int total = 10_000;
      Promise<Integer> all = Promise.promise();
      ctx.runOnContext(v -> new Sender(client, total, 50, all).start());

      assertThat(Await.result(all.future(), 120)).as("responses 200 on the first connection").isEqualTo(total);
      await().atMost(Duration.ofSeconds(10)).until(() -> !goAways.isEmpty());
      assertThat(connections.get()).isEqualTo(1);
      assertThat(goAways.get(0).getLastStreamId()).as("the 10,000th stream is the last").isEqualTo(2 * total - 1);

      Promise<Integer> next = Promise.promise();
      ctx.runOnContext(v -> get(client).onComplete(next));
      assertThat(Await.result(next.future())).isEqualTo(200);
      assertThat(connections.get()).as("request 10,001 on a new connection").isEqualTo(2);
    } finally {
      Await.result(client.close());
    }
  }

  /**
   * SPEC §7.3: a header field over 8 KB compressed gets GOAWAY and the connection closed, and the
   * request reaches no target; 10,000 letters Huffman-code to about 6 KB and pass.
   */
  @Test
  void headerOver8KbCompressed_getsGoAway_andReachesNoTarget() {
    List<GoAway> goAways = new CopyOnWriteArrayList<>();
    HttpClientAgent client = VERTX.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
        .with(new PoolOptions().setHttp2MaxSize(1))
        .withConnectHandler(c -> c.goAwayHandler(goAways::add))
        .build();
    try {
      Future<Integer> small = client.request(new RequestOptions().setHost("127.0.0.1").setPort(h2cPort).setURI("/")
              .putHeader("x-big", "a".repeat(10_000)))
          .compose(r -> r.send().compose(resp -> resp.body().map(b -> resp.statusCode())));
      assertThat(Await.result(small)).as("10,000 'a' are 6,250 bytes of Huffman code").isEqualTo(200);

      int before = held.hits();
      Future<Integer> big = client.request(new RequestOptions().setHost("127.0.0.1").setPort(h2cPort)
              .setURI("/held/big").putHeader("x-big", "{".repeat(9_000)))
          .compose(r -> r.send().compose(resp -> resp.body().map(b -> resp.statusCode())));
      assertThat(catchThrowable(() -> Await.result(big))).as("the connection is closed").isNotNull();
      assertThat(held.hits()).as("no target sees it").isEqualTo(before);
      await().atMost(Duration.ofSeconds(5)).until(() -> !goAways.isEmpty());

      Future<Integer> after = client.request(new RequestOptions().setHost("127.0.0.1").setPort(h2cPort).setURI("/"))
          .compose(r -> r.send().compose(resp -> resp.body().map(b -> resp.statusCode())));
      assertThat(Await.result(after)).as("a new connection serves").isEqualTo(200);
    } finally {
      Await.result(client.close());
    }
  }

  /**
   * CONTINUATION flood (CVE-2024-27316 and its kin): a header block that never ends, sent as
   * CONTINUATION frames, is not gathered without bound: the connection is ended with GOAWAY (a
   * megabyte of block is sent, sixteen times the header list limit), and no target sees a request.
   */
  @Test
  void aHeaderBlockThatNeverEnds_isNotGatheredWithoutBound_andReachesNoTarget() {
    int before = held.hits();
    try (H2Wire wire = H2Wire.connect("127.0.0.1", h2cPort, null, Map.of())) {
      wire.serverSettings(Duration.ofSeconds(10));
      wire.write(H2Wire.openHeadersFrame(1, wire.encode(H2Wire.request("GET", "http", "127.0.0.1:" + h2cPort, "/held/c"))));
      // Literal header fields without indexing, each "x-c: " and 1,000 letters: a well-formed block, if endless.
      byte[] field = wire.encode(new DefaultHttp2Headers().add("x-c", "c".repeat(1_000)));
      byte[] part = new byte[field.length * 16];
      for (int i = 0; i < 16; i++) {
        System.arraycopy(field, 0, part, i * field.length, field.length);
      }
      // A megabyte of block, sixteen times the header list limit, and no END_HEADERS: a server that
      // gathered it all would wait for the end and say nothing.
      for (long sent = 0; sent < 1024 * 1024 && wire.write(H2Wire.continuationFrame(1, part, false)); ) {
        sent += part.length;
      }

      Frame goAway = wire.await(f -> f.type() == H2Wire.GOAWAY, Duration.ofSeconds(10));
      assertThat(goAway.errorCode()).as("GOAWAY's error code").isNotZero();
      await().atMost(Duration.ofSeconds(10)).until(wire::closedByServer);
    }
    assertThat(held.hits()).as("no target sees it").isEqualTo(before);
  }

  private static Future<Integer> get(HttpClientAgent client) {
    return client.request(new RequestOptions().setHost("127.0.0.1").setPort(h2cPort).setURI("/"))
        .compose(r -> r.send().compose(resp -> resp.body().map(b -> resp.statusCode())));
  }

  /** Sends {@code total} GETs with at most {@code window} in flight; counts the 200s. Runs on one context. */
  private static final class Sender {
    private final HttpClientAgent client;
    private final int total;
    private final int window;
    private final Promise<Integer> done;
    private int sent;
    private int answered;
    private int ok;

    Sender(HttpClientAgent client, int total, int window, Promise<Integer> done) {
      this.client = client;
      this.total = total;
      this.window = window;
      this.done = done;
    }

    void start() {
      for (int i = 0; i < window; i++) {
        next();
      }
    }

    private void next() {
      if (sent == total) {
        return;
      }
      sent++;
      get(client).onComplete(ar -> {
        answered++;
        if (ar.succeeded() && ar.result() == 200) {
          ok++;
        }
        if (answered == total) {
          done.complete(ok);
        } else {
          next();
        }
      });
    }
  }
}
