package io.fulcrum.testing;

import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.Map;

/** A blocking HTTP/1.1 client for tests (Vert.x's client, driven from the test thread). */
public final class Http implements AutoCloseable {

  private final HttpClientAgent client;

  public Http(Vertx vertx) {
    this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true), new PoolOptions().setHttp1MaxSize(16));
  }

  public record Response(int status, String statusMessage, MultiMap headers, String body) {
    public String header(String name) {
      return headers.get(name);
    }
  }

  public Response get(int port, String uri) {
    return send(HttpMethod.GET, "127.0.0.1", port, uri, Map.of(), null);
  }

  public Response get(String host, int port, String uri, Map<String, String> headers) {
    return send(HttpMethod.GET, host, port, uri, headers, null);
  }

  public Response send(HttpMethod method, String host, int port, String uri, Map<String, String> headers, String body) {
    RequestOptions o = new RequestOptions().setMethod(method).setHost(host).setPort(port).setURI(uri);
    headers.forEach(o::putHeader);
    return Await.result(client.request(o)
        .compose(req -> body == null ? req.send() : req.send(Buffer.buffer(body)))
        .compose(resp -> resp.body().map(b -> new Response(resp.statusCode(), resp.statusMessage(), resp.headers(),
            b.toString()))));
  }

  @Override
  public void close() {
    Await.result(client.close());
  }
}
