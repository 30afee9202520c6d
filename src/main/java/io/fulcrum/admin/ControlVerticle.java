package io.fulcrum.admin;

import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The control plane's HTTP server: probes ({@code /health/live}, {@code /health/ready},
 * {@code /health/ready/{zone}}). Later issues add the ELBv2 API, metrics and the dashboard.
 */
public final class ControlVerticle extends VerticleBase {

  private final String address;
  private final int port;
  private final BooleanSupplier ready;
  private final Supplier<List<String>> zones;
  private HttpServer server;

  /**
   * @param ready whether the process serves traffic (false before start-up completes and while draining)
   * @param zones the zones that have nodes
   */
  public ControlVerticle(String address, int port, BooleanSupplier ready, Supplier<List<String>> zones) {
    this.address = address;
    this.port = port;
    this.ready = ready;
    this.zones = zones;
  }

  @Override
  public Future<?> start() {
    server = vertx.createHttpServer(new HttpServerOptions().setHost(address).setPort(port));
    server.requestHandler(this::handle);
    return server.listen();
  }

  /** The port actually bound (the configured one, or a free one when 0 was configured). */
  public int actualPort() {
    return server.actualPort();
  }

  private void handle(HttpServerRequest req) {
    String path = req.path();
    if (req.method() != HttpMethod.GET && req.method() != HttpMethod.HEAD) {
      json(req, 405, new JsonObject().put("error", "method not allowed"));
    } else if (path.equals("/health/live")) {
      json(req, 200, new JsonObject().put("status", "UP"));
    } else if (path.equals("/health/ready")) {
      boolean ok = ready.getAsBoolean();
      json(req, ok ? 200 : 503, new JsonObject().put("status", ok ? "UP" : "DOWN"));
    } else if (path.startsWith("/health/ready/")) {
      String zone = path.substring("/health/ready/".length());
      if (!zones.get().contains(zone)) {
        json(req, 404, new JsonObject().put("error", "no node in zone '" + zone + "'"));
        return;
      }
      boolean ok = ready.getAsBoolean();
      json(req, ok ? 200 : 503, new JsonObject().put("zone", zone).put("status", ok ? "UP" : "DOWN"));
    } else {
      json(req, 404, new JsonObject().put("error", "not found"));
    }
  }

  private static void json(HttpServerRequest req, int status, JsonObject body) {
    req.response().setStatusCode(status).putHeader("Content-Type", "application/json").end(body.encode());
  }
}
