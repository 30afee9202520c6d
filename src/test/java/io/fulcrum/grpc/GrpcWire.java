package io.fulcrum.grpc;

import io.fulcrum.testing.Await;
import io.vertx.core.Context;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * gRPC as bytes on HTTP/2, for what a gRPC library will not show or send: a {@code grpc-timeout}
 * without the client enforcing it, whether an answer was trailers-only, the raw status and
 * headers. Vert.x's HTTP/2 client with prior knowledge, one connection, on a context of its own;
 * called from a test thread.
 */
public final class GrpcWire implements AutoCloseable {

  /** One call's answer: HTTP status, headers, body (framed messages) and trailers. */
  public record Answer(int status, MultiMap headers, Buffer body, MultiMap trailers) {
    /** grpc-status from the trailers, or from the headers of a trailers-only answer. */
    public String grpcStatus() {
      String s = trailers.get("grpc-status");
      return s != null ? s : headers.get("grpc-status");
    }

    /** grpc-message, percent-decoded. */
    public String grpcMessage() {
      String m = trailers.get("grpc-message");
      m = m != null ? m : headers.get("grpc-message");
      return m == null ? null : URLDecoder.decode(m.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    public boolean trailersOnly() {
      return headers.contains("grpc-status");
    }

    /** How many length-prefixed messages the body holds. */
    public int messages() {
      int n = 0;
      int at = 0;
      while (at + 5 <= body.length()) {
        at += 5 + body.getInt(at + 1);
        n++;
      }
      return n;
    }
  }

  private final Context context;
  private final HttpClientAgent client;
  private final AtomicInteger connections = new AtomicInteger();

  public GrpcWire(Vertx vertx) {
    this.context = vertx.getOrCreateContext();
    this.client = vertx.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
        .with(new PoolOptions().setHttp2MaxSize(1))
        .withConnectHandler(c -> connections.incrementAndGet())
        .build();
  }

  /** Connections this client has opened. */
  public int connections() {
    return connections.get();
  }

  /** An empty message (the protobuf encoding of a message with no fields set): flag 0, length 0. */
  public static Buffer emptyMessage() {
    return Buffer.buffer(new byte[5]);
  }

  /** A length-prefixed message with {@code protobuf} as its bytes. */
  public static Buffer message(byte[] protobuf) {
    return Buffer.buffer().appendByte((byte) 0).appendInt(protobuf.length).appendBytes(protobuf);
  }

  /** Starts a call; the future completes when the whole answer, trailers included, is in. */
  public io.vertx.core.Future<Answer> call(int port, String path, Map<String, String> headers, Buffer body) {
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(port)
        .setURI(path).putHeader("content-type", "application/grpc").putHeader("te", "trailers");
    headers.forEach(o::putHeader);
    Promise<Answer> done = Promise.promise();
    context.runOnContext(v -> client.request(o)
        .compose(req -> req.send(body))
        .compose(resp -> resp.body().map(b -> new Answer(resp.statusCode(), resp.headers(), b, resp.trailers())))
        .onComplete(done));
    return done.future();
  }

  public Answer callAndWait(int port, String path, Map<String, String> headers, Buffer body) {
    return Await.result(call(port, path, headers, body));
  }

  @Override
  public void close() {
    Await.result(client.close());
  }
}
