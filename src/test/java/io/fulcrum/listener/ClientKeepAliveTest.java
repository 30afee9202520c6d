package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.forward.ProxySettings;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.time.Duration;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code client_keep_alive.seconds} (SPEC §11.4): a client connection lives that long at most. The
 * attribute's floor (60 s) is too long for a test, so {@link ClientConnection} runs here on a real
 * Vert.x server with a one-second life, its requests counted as the listener counts them: an idle
 * HTTP/1.1 connection is closed when its life is over, one with a response on its way once that
 * response has ended, and an HTTP/2 connection gets GOAWAY while its streams finish. The attribute
 * itself reaches the listener through {@link ProxySettings}.
 */
class ClientKeepAliveTest {

  /** Long enough for a request to be on its way before the life is over, even on a loaded machine. */
  private static final long LIFE_MILLIS = 1000;

  private final Vertx vertx = TestVertx.create();
  /** Requests to /slow, held until the test answers them. */
  private final Queue<HttpServerRequest> held = new ConcurrentLinkedQueue<>();
  private final AtomicInteger shutdowns = new AtomicInteger();
  private final Map<HttpConnection, ClientConnection> clients = new ConcurrentHashMap<>();
  private int port;

  @BeforeEach
  void start() {
    HttpServer server = vertx.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setHttp2ClearTextEnabled(true));
    server.connectionHandler(conn -> {
      ClientConnection client = new ClientConnection(vertx, conn, () -> 60_000, LIFE_MILLIS);
      clients.put(conn, client);
      conn.closeHandler(v -> clients.remove(conn).closed());
      conn.shutdownHandler(v -> shutdowns.incrementAndGet());
    });
    server.requestHandler(req -> {
      // As the listener counts requests: started here, ended with their response.
      ClientConnection client = clients.get(req.connection());
      client.requestStarted(req.version() == HttpVersion.HTTP_2);
      req.response().endHandler(client);
      if (req.path().equals("/slow")) {
        held.add(req);
      } else {
        req.response().end("ok");
      }
    });
    port = Await.result(server.listen()).actualPort();
  }

  @AfterEach
  void stop() {
    held.forEach(r -> r.response().reset());
    vertx.close();
  }

  @Test
  void idleHttp1Connection_isClosedWhenItsLifeIsOver() {
    try (RawConnection c = RawConnection.open(port)) {
      assertThat(c.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n").read().status()).isEqualTo(200);

      await().atMost(Duration.ofSeconds(10)).until(() -> shutdowns.get() == 1);
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
  }

  @Test
  void http1ConnectionWithAResponseOnItsWay_isClosedOnceThatResponseHasEnded() {
    try (RawConnection c = RawConnection.open(port)) {
      c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n");
      await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1 && shutdowns.get() == 1);

      held.poll().response().end("late");
      Response r = c.read();

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.bodyText()).isEqualTo("late");
      assertThat(c.closedByServerWithin(10_000)).isTrue();
    }
  }

  @Test
  void http2Connection_getsGoaway_andItsStreamsFinish() {
    AtomicBoolean goaway = new AtomicBoolean();
    HttpClientAgent client = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
        .withConnectHandler(conn -> conn.goAwayHandler(g -> goaway.set(true)))
        .build();
    var slow = client.request(new RequestOptions().setHost("127.0.0.1").setPort(port).setURI("/slow"))
        .compose(req -> req.send()
            .compose(resp -> resp.body().map(b -> resp.version() + " " + resp.statusCode() + " " + b)));
    await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1 && goaway.get());

    held.poll().response().end("finished");

    assertThat(Await.result(slow)).isEqualTo("HTTP_2 200 finished");
  }

  @Test
  void theAttribute_reachesTheListenersSettings() {
    var config = Gateway.config("""
        load-balancers:
          - name: lb
            attributes: {client_keep_alive.seconds: "120"}
            listeners: [{protocol: HTTP, port: 8080, default-actions: [{type: fixed-response, status-code: 200}]}]
        """);

    ProxySettings settings = ProxySettings.of(config.resources().loadBalancers().get(0));

    assertThat(settings.clientKeepAliveMillis()).isEqualTo(120_000);
    assertThat(ProxySettings.of(Gateway.config("""
        load-balancers:
          - name: lb
            listeners: [{protocol: HTTP, port: 8080, default-actions: [{type: fixed-response, status-code: 200}]}]
        """).resources().loadBalancers().get(0)).clientKeepAliveMillis()).isEqualTo(3_600_000);
  }
}
