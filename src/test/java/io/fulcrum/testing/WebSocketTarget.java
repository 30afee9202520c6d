package io.fulcrum.testing;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.ServerWebSocket;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A real WebSocket target (Vert.x's WebSocket server): it greets each WebSocket with
 * {@code hello from <id>}, echoes text and binary messages, closes with 4000 "bye" when told
 * {@code close}, and sends {@code n} binary messages of 8 KB (random bytes seeded with {@code n})
 * when told {@code stream n}. It picks the subprotocol {@code superchat} when offered, refuses the
 * upgrade of {@code /deny} with 403, and answers plain HTTP requests (health checks) with 200.
 * It records each accepted handshake's headers and how each WebSocket ended.
 */
public final class WebSocketTarget implements AutoCloseable {

  private final String id;
  private final HttpServer server;
  private final List<JsonObject> handshakes = new CopyOnWriteArrayList<>();
  private final BlockingQueue<String> closes = new LinkedBlockingQueue<>();

  private WebSocketTarget(String id, HttpServer server) {
    this.id = id;
    this.server = server;
  }

  /** Starts the target on 127.0.0.1 (a free port), over TLS with {@code tls} when not null. */
  public static WebSocketTarget start(Vertx vertx, String id, PemKeyCertOptions tls) {
    HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(0)
        .setWebSocketSubProtocols(List.of("superchat"))
        .setMaxWebSocketFrameSize(16 << 20).setMaxWebSocketMessageSize(16 << 20);
    if (tls != null) {
      options.setSsl(true).setKeyCertOptions(tls);
    }
    WebSocketTarget t = new WebSocketTarget(id, vertx.createHttpServer(options));
    t.server.webSocketHandshakeHandler(h -> {
      if (h.path().equals("/deny")) {
        h.reject(403);
        return;
      }
      JsonObject seen = new JsonObject().put("uri", h.uri());
      h.headers().forEach(e -> seen.put(e.getKey().toLowerCase(Locale.ROOT), e.getValue()));
      t.handshakes.add(seen);
      h.accept();
    });
    t.server.webSocketHandler(t::serve);
    t.server.requestHandler(req -> req.response().end("ok " + id));
    Await.result(t.server.listen());
    return t;
  }

  private void serve(ServerWebSocket ws) {
    ws.writeTextMessage("hello from " + id);
    ws.textMessageHandler(text -> {
      if (text.equals("close")) {
        ws.close((short) 4000, "bye");
      } else if (text.startsWith("stream ")) {
        int n = Integer.parseInt(text.substring(7));
        for (byte[] chunk : streamed(n)) {
          ws.writeBinaryMessage(Buffer.buffer(chunk));
        }
      } else {
        ws.writeTextMessage(text);
      }
    });
    ws.binaryMessageHandler(ws::writeBinaryMessage);
    ws.closeHandler(v -> closes.add(ws.closeStatusCode() + " " + ws.closeReason()));
  }

  /** What {@code stream n} sends, in order. */
  public static byte[][] streamed(int n) {
    Random random = new Random(n);
    byte[][] chunks = new byte[n][8192];
    for (byte[] chunk : chunks) {
      random.nextBytes(chunk);
    }
    return chunks;
  }

  public String id() {
    return id;
  }

  public int port() {
    return server.actualPort();
  }

  /** The headers of each handshake the target accepted (names in lower case), and its request URI. */
  public List<JsonObject> handshakes() {
    return handshakes;
  }

  /** How the next WebSocket of this target to end ended ("code reason"), waiting up to 10 s. */
  public String nextClose() {
    try {
      String s = closes.poll(10, TimeUnit.SECONDS);
      assertThat(s).as("a WebSocket of %s ended within 10 s", id).isNotNull();
      return s;
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    Await.result(server.close());
  }
}
