package io.fulcrum.loadtest;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

/**
 * A backend the simulations can fail on purpose. It answers every request with {@code 200}, its
 * id in the body and in {@code X-Backend-Id}, the protocol it was reached with in
 * {@code X-Backend-Protocol}, and for {@code /echo/...} the SHA-256 of the request body in
 * {@code X-Body-Sha256}. {@code /health} answers 200, or 503 while {@link #failHealthChecks} is on
 * (traffic is still served). A WebSocket is greeted with {@code connected to <id>} and gets each
 * text message back as {@code <id>: <message>}. It speaks HTTP/1.1 and h2c (prior knowledge) on
 * one loopback port, which it keeps across {@link #stop} and {@link #start}.
 */
final class ControlledBackend {

  private final Vertx vertx;
  private final String id;
  private volatile int port;
  private volatile HttpServer server;
  private volatile boolean healthFailing;
  private final AtomicLong traffic = new AtomicLong();

  private ControlledBackend(Vertx vertx, String id) {
    this.vertx = vertx;
    this.id = id;
  }

  /** Starts a backend on a free loopback port. */
  static ControlledBackend start(Vertx vertx, String id) {
    ControlledBackend b = new ControlledBackend(vertx, id);
    Harness.await(b.start());
    return b;
  }

  /** Listens (again) on its port; the first start picks a free one. */
  Future<Void> start() {
    HttpServer s = vertx.createHttpServer(new HttpServerOptions()
        .setHost("127.0.0.1")
        .setPort(port)
        .setHttp2ClearTextEnabled(true)
        .setTcpNoDelay(true));
    s.requestHandler(this::handle);
    s.webSocketHandler(ws -> {
      traffic.incrementAndGet();
      ws.writeTextMessage("connected to " + id);
      ws.textMessageHandler(text -> ws.writeTextMessage(id + ": " + text));
    });
    return s.listen().map(listening -> {
      port = listening.actualPort();
      server = listening;
      return null;
    });
  }

  /** Stops accepting and closes its connections once their requests are answered (up to 10 s). */
  Future<Void> stop() {
    HttpServer s = server;
    server = null;
    return s == null ? Future.succeededFuture() : s.shutdown(10, TimeUnit.SECONDS);
  }

  /** Dies: every connection closes at once, requests in flight included. */
  Future<Void> crash() {
    HttpServer s = server;
    server = null;
    return s == null ? Future.succeededFuture() : s.close();
  }

  void failHealthChecks(boolean failing) {
    healthFailing = failing;
  }

  String id() {
    return id;
  }

  int port() {
    return port;
  }

  /** Requests served that were not health checks, and WebSockets accepted. */
  long traffic() {
    return traffic.get();
  }

  private void handle(HttpServerRequest req) {
    if (req.path().equals("/health")) {
      req.response().setStatusCode(healthFailing ? 503 : 200).end(healthFailing ? "failing\n" : "ok\n");
      return;
    }
    traffic.incrementAndGet();
    req.body().onSuccess(body -> {
      var response = req.response()
          .putHeader("X-Backend-Id", id)
          .putHeader("X-Backend-Protocol", req.version().name())
          .putHeader("Content-Type", "text/plain");
      if (req.path().startsWith("/echo")) {
        response.putHeader("X-Body-Sha256", sha256(body));
      }
      response.end(id + "\n");
    });
  }

  /** The backends as a target group's {@code targets:} list items in the simulations' YAML. */
  static String yamlTargets(List<ControlledBackend> backends) {
    return backends.stream().map(b -> "      - {id: 127.0.0.1, port: " + b.port() + "}")
        .collect(Collectors.joining("\n"));
  }

  static String sha256(Buffer body) {
    return sha256(body.getBytes());
  }

  static String sha256(byte[] bytes) {
    try {
      return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
