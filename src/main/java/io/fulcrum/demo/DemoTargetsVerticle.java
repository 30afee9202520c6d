package io.fulcrum.demo;

import io.fulcrum.config.FulcrumConfig.DemoTarget;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/**
 * Embedded demo backends for the first minute: each answers with its id and zone (and what it
 * received from the load balancer), and {@code 200 OK} on {@code /health}; WebSockets get their
 * messages back prefixed with the target's id.
 */
public final class DemoTargetsVerticle extends VerticleBase {

  private final List<DemoTarget> targets;
  private final List<HttpServer> servers = new ArrayList<>();

  public DemoTargetsVerticle(List<DemoTarget> targets) {
    this.targets = List.copyOf(targets);
  }

  @Override
  public Future<?> start() {
    List<Future<?>> all = new ArrayList<>();
    for (DemoTarget t : targets) {
      HttpServer s = vertx.createHttpServer(new HttpServerOptions().setHost(t.address()).setPort(t.port())
          .setIdleTimeout(0));
      s.requestHandler(req -> handle(t, req));
      s.webSocketHandler(ws -> {
        // A WebSocket through the load balancer: each text message comes back with the target's id.
        ws.writeTextMessage("connected to " + t.id() + " (" + t.zone() + ")");
        ws.textMessageHandler(text -> ws.writeTextMessage(t.id() + ": " + text));
        ws.binaryMessageHandler(ws::writeBinaryMessage);
      });
      servers.add(s);
      all.add(s.listen().recover(e -> Future.failedFuture(
          "demo target " + t.id() + " cannot listen on " + t.address() + ":" + t.port() + ": " + e.getMessage())));
    }
    return Future.all(all);
  }

  private static void handle(DemoTarget t, HttpServerRequest req) {
    if (req.path().equals("/health")) {
      req.response().putHeader("Content-Type", "text/plain").end("OK\n");
      return;
    }
    req.body().onSuccess(body -> {
      JsonObject headers = new JsonObject();
      req.headers().forEach(h -> headers.put(h.getKey().toLowerCase(), h.getValue()));
      JsonObject answer = new JsonObject()
          .put("target", t.id())
          .put("zone", t.zone())
          .put("address", t.address() + ":" + t.port())
          .put("method", req.method().name())
          .put("uri", req.uri())
          .put("bodyBytes", body.length())
          .put("headers", headers);
      req.response().putHeader("Content-Type", "application/json").putHeader("X-Demo-Target", t.id())
          .end(answer.encodePrettily() + "\n");
    });
  }
}
