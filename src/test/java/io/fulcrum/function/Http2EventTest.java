package io.fulcrum.function;

import static io.fulcrum.function.EventAssertions.assertSameEvent;
import static io.fulcrum.function.EventAssertions.golden;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.bus.FunctionRequest;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The event of an HTTP/2 request (SPEC §6.1), from a real HTTP/2 client (the JDK's): the request
 * goes through the same builder the listener uses ({@link FunctionRequests#of}) and the same event
 * mapping, on a plain HTTP/2 server, since listeners take HTTP/2 in the HTTP/2 work. Header names
 * are lower-case, pseudo-headers are left out and {@code :authority} becomes {@code host}.
 */
class Http2EventTest {

  private static final String ARN = "arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/h2/0123456789abcdef";
  private static final Vertx vertx = TestVertx.create();
  private static HttpServer server;

  @BeforeAll
  static void start() {
    server = vertx.createHttpServer(new HttpServerOptions().setHttp2ClearTextEnabled(true)).requestHandler(req ->
        req.body().onSuccess(body -> {
          boolean multi = req.path().startsWith("/multi");
          FunctionRequest r = FunctionRequests.of(req, req.uri(), ARN, "echo", multi, body);
          try {
            req.response().putHeader("x-version", req.version().name()).end(AlbEvents.event(r).toBuffer());
          } catch (AlbEvents.NotUtf8Exception e) {
            req.response().setStatusCode(400).end();
          }
        }));
    Await.result(server.listen(0, "127.0.0.1"));
  }

  @AfterAll
  static void stop() {
    Await.result(vertx.close());
  }

  private static HttpResponse<String> send(HttpClient client, HttpRequest.Builder request) throws Exception {
    return client.send(request.header("User-Agent", "golden-h2/1.0").header("X-Multi", "one").header("X-Multi", "two")
        .header("Cookie", "a=1").build(), HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void http2Request_makesTheSameEventAnHttp1RequestWould() throws Exception {
    String base = "http://127.0.0.1:" + server.actualPort();
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
    // The first request upgrades the connection (h2c); the next ones are HTTP/2 streams.
    send(client, HttpRequest.newBuilder(URI.create(base + "/warm-up")));

    HttpResponse<String> single = send(client, HttpRequest.newBuilder(URI.create(base + "/h2/items?x=1&x=2&y=%20")));
    HttpResponse<String> multi = send(client, HttpRequest.newBuilder(URI.create(base + "/multi/items?x=1&x=2"))
        .POST(HttpRequest.BodyPublishers.ofString("{\"a\":1}")).header("Content-Type", "application/json"));

    assertThat(single.version()).isEqualTo(HttpClient.Version.HTTP_2);
    assertThat(single.headers().firstValue("x-version")).hasValue("HTTP_2");
    Map<String, String> values = Map.of("port", Integer.toString(server.actualPort()), "arn", ARN);
    assertSameEvent(golden("http2_single", values), new JsonObject(single.body()));
    assertThat(multi.headers().firstValue("x-version")).hasValue("HTTP_2");
    assertSameEvent(golden("http2_multi", values), new JsonObject(multi.body()));
  }
}
