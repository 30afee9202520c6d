package io.fulcrum.testing;

import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.util.Map;

/**
 * A blocking HTTP/1.1 client for tests: Vert.x's client, used on a Vert.x context of its own and
 * awaited from the test thread.
 *
 * <p>Requests are issued on the context, not from the test thread. A chain such as
 * {@code request().compose(send).compose(resp -> resp.body())} built on the test thread may run its
 * last step as a later task of the event loop, after the response's data and end were delivered:
 * Vert.x 5.0.7 drops what arrives before a handler is set ({@code HttpClientResponseImpl.handleEnd}),
 * and {@code body()} never completes (6 to 14 requests in 3,000, a client per request, both CPUs
 * busy). On a context, or with {@code body()} composed inside {@code send()}'s own
 * callback, the handler is in place before anything is delivered; every test client here does one
 * or the other.
 */
public final class Http implements AutoCloseable {

  private final Context context;
  private final HttpClientAgent client;

  public Http(Vertx vertx) {
    this(vertx, null);
  }

  /** A client whose connections leave from {@code localAddress} (e.g. 127.0.0.2), or any when null. */
  public Http(Vertx vertx, String localAddress) {
    this.context = vertx.getOrCreateContext();
    this.client = vertx.createHttpClient(new HttpClientOptions().setKeepAlive(true).setLocalAddress(localAddress),
        new PoolOptions().setHttp1MaxSize(16));
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
    Promise<Response> done = Promise.promise();
    context.runOnContext(v -> client.request(o)
        .compose(req -> body == null ? req.send() : req.send(Buffer.buffer(body)))
        .compose(resp -> resp.body().map(b -> new Response(resp.statusCode(), resp.statusMessage(), resp.headers(),
            b.toString())))
        .onComplete(done));
    return Await.result(done.future());
  }

  @Override
  public void close() {
    Await.result(client.close());
  }
}
