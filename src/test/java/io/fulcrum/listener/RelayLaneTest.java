package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.forward.DirectForwarder;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.H2Wire.Answer;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.netty.handler.codec.http2.Http2Headers;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.Http2Settings;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The direct path's relay of HTTP/2 client streams to HTTP/2 targets (an HTTP2 target group, in
 * clear; gRPC has its own tests in io.fulcrum.grpc): what the target receives, trailers both ways,
 * a target's limit on concurrent streams, a target's resets before and after its response head,
 * and a target's GOAWAY.
 */
class RelayLaneTest {

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
    backends.close();
  }

  /** An h2c target on port 0 allowing {@code maxStreams} concurrent streams; health checks get 200. */
  private HttpServer target(long maxStreams, Handler<HttpServerRequest> handler) {
    HttpServer server = backends.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setHttp2ClearTextEnabled(true).setInitialSettings(new Http2Settings().setMaxConcurrentStreams(maxStreams)));
    server.requestHandler(req -> {
      if ("ELB-HealthChecker/2.0".equals(req.getHeader("user-agent"))) {
        req.response().end("healthy");
      } else {
        handler.handle(req);
      }
    });
    return Await.result(server.listen());
  }

  private void start(int targetPort) {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners: [{protocol: HTTP, port: %d, h2c: true, default-actions: [{type: forward, target-group: h2}]}]
        target-groups:
          - {name: h2, target-type: ip, protocol: HTTP, port: 80, protocol-version: HTTP2,
             targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, targetPort));
  }

  private H2Wire connect() {
    H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of());
    wire.serverSettings(WAIT);
    return wire;
  }

  private static Http2Headers request(String method, String path) {
    return H2Wire.request(method, "http", "example.com", path);
  }

  @Test
  void streamsAreRelayed_headersBodyAndTrailersBothWays() {
    List<HttpServerRequest> seen = new CopyOnWriteArrayList<>();
    List<String> requestTrailers = new CopyOnWriteArrayList<>();
    HttpServer target = target(100, req -> {
      seen.add(req);
      req.body().onSuccess(b -> {
        requestTrailers.add(String.valueOf(req.headers().get("x-request-trailer")));
        req.response().putHeader("x-target", "yes").putTrailer("x-sum", "42").end("echo:" + b);
      });
    });
    start(target.actualPort());
    long before = DirectForwarder.forwarded();

    try (H2Wire wire = connect()) {
      wire.headers(1, request("POST", "/echo").add("x-custom", "v"), false);
      wire.write(H2Wire.dataFrame(1, "ping".getBytes(StandardCharsets.UTF_8), true));
      Answer a = wire.answer(1, WAIT);
      assertThat(a.head().status()).hasToString("200");
      assertThat(a.head().get("x-target")).hasToString("yes");
      assertThat(a.text()).isEqualTo("echo:ping");
      assertThat(a.trailers()).isNotNull();
      assertThat(a.trailers().get("x-sum")).hasToString("42");
    }

    assertThat(DirectForwarder.forwarded() - before).as("relayed the direct way").isEqualTo(1);
    HttpServerRequest r = seen.get(0);
    assertThat(r.version()).isEqualTo(HttpVersion.HTTP_2);
    assertThat(r.authority().host()).isEqualTo("example.com");
    assertThat(r.authority().port()).as("the listener port added, as ALB does").isEqualTo(port);
    assertThat(r.headers().get("x-custom")).isEqualTo("v");
    assertThat(r.headers().get("x-forwarded-for")).isEqualTo("127.0.0.1");
    assertThat(r.headers().get("x-forwarded-proto")).isEqualTo("http");
    assertThat(r.headers().get("x-forwarded-port")).isEqualTo(Integer.toString(port));
    assertThat(r.headers().get("x-amzn-trace-id")).startsWith("Root=1-");
  }

  /**
   * The target's trailers reach the client without the fields no trailer may carry (the request's
   * are filtered the same way: Http1WireTest).
   */
  @Test
  void responseTrailers_goWithoutTheFieldsNoTrailerMayCarry() {
    HttpServer target = target(100, req -> req.body().onSuccess(b ->
        req.response().putTrailer("x-sum", "42").putTrailer("set-cookie", "evil=1").end("ok")));
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      wire.headers(1, request("GET", "/t"), true);
      Answer a = wire.answer(1, WAIT);
      assertThat(a.head().status()).hasToString("200");
      assertThat(a.trailers().get("x-sum")).hasToString("42");
      assertThat(a.trailers().contains("set-cookie")).isFalse();
    }
  }

  /**
   * A request whose header list is over the target's SETTINGS_MAX_HEADER_LIST_SIZE is not sent:
   * the client gets 400 (it was no reset by the target), and the connection serves on.
   */
  @Test
  void aRequestOverTheTargetsHeaderListLimit_is400_andNeverSent() {
    List<HttpServerRequest> seen = new CopyOnWriteArrayList<>();
    HttpServer target = Await.result(backends.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
            .setHttp2ClearTextEnabled(true).setInitialSettings(new Http2Settings().setMaxHeaderListSize(8192)))
        .requestHandler(req -> {
          seen.add(req);
          req.response().end("ok");
        }).listen());
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      wire.headers(1, request("GET", "/big").add("x-big", "a".repeat(8000)), true);
      assertThat(wire.answer(1, WAIT).head().status()).hasToString("400");
      wire.headers(3, request("GET", "/small"), true);
      assertThat(wire.answer(3, WAIT).head().status()).hasToString("200");
    }
    assertThat(seen).extracting(HttpServerRequest::path).doesNotContain("/big");
  }

  @Test
  void aTargetsLimitOnConcurrentStreams_isKept_theStreamsBeyondItWait() {
    List<HttpServerRequest> held = new CopyOnWriteArrayList<>();
    Set<HttpConnection> connections = ConcurrentHashMap.newKeySet();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    int streams = 12;
    HttpServer target = target(2, req -> {
      connections.add(req.connection());
      most.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
      held.add(req);
      req.response().endHandler(v -> inFlight.decrementAndGet());
    });
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      for (int i = 0; i < streams; i++) {
        wire.headers(1 + 2 * i, request("GET", "/held/" + i), true);
      }
      // Four connections of two streams each at most: the other streams wait in the proxy, none is refused.
      await().atMost(WAIT).until(() -> held.size() == 8);
      assertThat(connections).hasSizeLessThanOrEqualTo(4);
      List<HttpServerRequest> answered = new ArrayList<>();
      while (answered.size() < streams) {
        await().atMost(WAIT).until(() -> held.size() > answered.size());
        HttpServerRequest next = held.get(answered.size());
        answered.add(next);
        backends.runOnContext(v -> next.response().end("ok " + next.path()));
      }
      for (int i = 0; i < streams; i++) {
        Answer a = wire.answer(1 + 2 * i, WAIT);
        assertThat(a.reset()).isNull();
        assertThat(a.text()).isEqualTo("ok /held/" + i);
      }
    }
    assertThat(most.get()).isLessThanOrEqualTo(8);
  }

  @Test
  void aTargetResetBeforeItsHead_is502_andAfterItTheClientStreamIsReset() {
    HttpServer target = target(100, req -> {
      if (req.path().equals("/early")) {
        req.response().reset(0x8);
      } else {
        req.response().setChunked(true).write("part").onSuccess(v -> req.response().reset(0x8));
      }
    });
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      wire.headers(1, request("GET", "/early"), true);
      Answer early = wire.answer(1, WAIT);
      assertThat(early.head().status()).hasToString("502");
      assertThat(early.text()).contains("502 Bad Gateway");

      wire.headers(3, request("GET", "/late"), true);
      Answer late = wire.answer(3, WAIT);
      assertThat(late.head().status()).hasToString("200");
      assertThat(late.text()).isEqualTo("part");
      assertThat(late.reset()).isNotNull();
      assertThat(late.reset().errorCode()).isEqualTo(INTERNAL_ERROR);
    }
  }

  @Test
  void aStreamTheTargetDidNotProcess_goesAgainOnANewConnection_bodyIncluded() {
    List<HttpConnection> connections = new CopyOnWriteArrayList<>();
    AtomicReference<HttpServerRequest> first = new AtomicReference<>();
    HttpServer target = target(100, req -> {
      if (!connections.contains(req.connection())) {
        connections.add(req.connection());
      }
      if (req.path().equals("/first")) {
        first.set(req); // held: stream 1 of the first connection
      } else if (req.connection() == connections.get(0)) {
        // Stream 3 of the first connection: the target stops at stream 1 and never processes this one.
        req.connection().goAway(0, 1);
      } else {
        req.body().onSuccess(b -> req.response().end("answer to " + req.path() + ": " + b));
      }
    });
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      wire.headers(1, request("GET", "/first"), true);
      await().atMost(WAIT).until(() -> first.get() != null);
      wire.headers(3, request("POST", "/again"), false);
      wire.write(H2Wire.dataFrame(3, "body".getBytes(StandardCharsets.UTF_8), true));

      Answer again = wire.answer(3, WAIT);
      assertThat(again.head().status()).hasToString("200");
      assertThat(again.text()).isEqualTo("answer to /again: body");
      first.get().response().end("answer to /first");
      assertThat(wire.answer(1, WAIT).text()).isEqualTo("answer to /first");
    }
    assertThat(connections).hasSize(2);
  }

  @Test
  void aStreamTheTargetRefused_goesAgain() {
    AtomicInteger seen = new AtomicInteger();
    HttpServer target = target(100, req -> {
      if (seen.incrementAndGet() == 1) {
        req.response().reset(0x7); // REFUSED_STREAM: not processed
      } else {
        req.response().end("answer to " + req.path());
      }
    });
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      wire.headers(1, request("GET", "/refused-once"), true);
      Answer a = wire.answer(1, WAIT);
      assertThat(a.head().status()).hasToString("200");
      assertThat(a.text()).isEqualTo("answer to /refused-once");
    }
    assertThat(seen).hasValue(2);
  }

  @Test
  void aStreamRefusedTwice_is502() {
    HttpServer target = target(100, req -> req.response().reset(0x7));
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      wire.headers(1, request("GET", "/always-refused"), true);
      assertThat(wire.answer(1, WAIT).head().status()).hasToString("502");
    }
  }

  @Test
  void aTargetGoingAway_finishesItsStream_andTheNextGoesOnANewConnection() {
    Set<HttpConnection> connections = ConcurrentHashMap.newKeySet();
    HttpServer target = target(100, req -> {
      connections.add(req.connection());
      if (req.path().equals("/bye")) {
        req.connection().goAway(0); // the stream under way may finish; no new one on this connection
      }
      req.response().end("answer to " + req.path());
    });
    start(target.actualPort());

    try (H2Wire wire = connect()) {
      wire.headers(1, request("GET", "/bye"), true);
      assertThat(wire.answer(1, WAIT).text()).isEqualTo("answer to /bye");
      wire.headers(3, request("GET", "/after"), true);
      assertThat(wire.answer(3, WAIT).text()).isEqualTo("answer to /after");
    }
    assertThat(connections).hasSize(2);
  }
}
