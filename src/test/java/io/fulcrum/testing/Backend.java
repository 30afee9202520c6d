package io.fulcrum.testing;

import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real HTTP backend on a free loopback port. By default it answers every request with its id
 * (body and {@code X-Backend-Id} header) and records what it received.
 */
public final class Backend implements AutoCloseable {

  private final String id;
  private final HttpServer server;
  private final AtomicInteger hits = new AtomicInteger();
  private final List<JsonObject> received = new CopyOnWriteArrayList<>();

  private Backend(String id, HttpServer server) {
    this.id = id;
    this.server = server;
  }

  /** A backend answering {@code 200 <id>}. */
  public static Backend start(Vertx vertx, String id) {
    return start(vertx, id, "127.0.0.1", null);
  }

  /** A backend on {@code host} with a custom handler ({@code null}: answer with the id). */
  public static Backend start(Vertx vertx, String id, String host, Handler<HttpServerRequest> custom) {
    return start(vertx, id, new HttpServerOptions().setHost(host).setPort(0), custom);
  }

  /** A backend with these server options (host, port, limits) and a custom handler ({@code null}: the id). */
  public static Backend start(Vertx vertx, String id, HttpServerOptions options, Handler<HttpServerRequest> custom) {
    HttpServer server = vertx.createHttpServer(options);
    Backend b = new Backend(id, server);
    server.requestHandler(req -> {
      b.hits.incrementAndGet();
      JsonObject r = new JsonObject().put("method", req.method().name()).put("uri", req.uri())
          .put("version", req.version().name());
      JsonObject h = new JsonObject();
      req.headers().forEach(e -> {
        // Names lower-cased for lookups; repeated headers joined with '|'.
        String k = e.getKey().toLowerCase(java.util.Locale.ROOT);
        h.put(k, h.containsKey(k) ? h.getString(k) + "|" + e.getValue() : e.getValue());
      });
      r.put("headers", h);
      b.received.add(r);
      if (custom != null) {
        custom.handle(req);
      } else {
        req.body().onSuccess(body -> req.response().putHeader("X-Backend-Id", id).end(id));
      }
    });
    Await.result(server.listen());
    return b;
  }

  public String id() {
    return id;
  }

  public int port() {
    return server.actualPort();
  }

  /** Every request received, health checks included. */
  public int hits() {
    return hits.get();
  }

  /** Requests received that are not Fulcrum's health checks. */
  public long trafficHits() {
    return received.stream().filter(r -> !isHealthCheck(r)).count();
  }

  /** Whether a recorded request is one of Fulcrum's health checks (its User-Agent says so). */
  public static boolean isHealthCheck(JsonObject received) {
    return "ELB-HealthChecker/2.0".equals(received.getJsonObject("headers").getString("user-agent"));
  }

  /**
   * What the backend received, health checks left out: one JSON object per request (method, uri,
   * version, headers by lower-case name).
   */
  public List<JsonObject> received() {
    return received.stream().filter(r -> !isHealthCheck(r)).toList();
  }

  /** The last request received that is not a health check. */
  public JsonObject lastRequest() {
    List<JsonObject> traffic = received();
    return traffic.get(traffic.size() - 1);
  }

  @Override
  public void close() {
    Await.result(server.close());
  }
}
