package io.fulcrum.testing;

import io.vertx.core.Context;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.net.ssl.SSLContext;

/**
 * One blocking client for the three ways a client reaches a listener: HTTP/1.1, HTTP/2 over TLS
 * with ALPN, and cleartext HTTP/2 with prior knowledge. Vert.x's client by default (issued on a
 * context of its own, see {@link Http}): it can send a Host (or :authority) other than the address
 * it connects to. {@link #jdk} gives the JDK's {@link HttpClient} for HTTP/2 over TLS. Every
 * method is called from a test thread.
 */
public final class ProtocolClient implements AutoCloseable {

  /** How the client speaks to the listener. */
  public enum Kind {
    HTTP_1_1("http", HttpVersion.HTTP_1_1),
    H2_TLS("https", HttpVersion.HTTP_2),
    H2C_PRIOR_KNOWLEDGE("http", HttpVersion.HTTP_2);

    private final String scheme;
    private final HttpVersion version;

    Kind(String scheme, HttpVersion version) {
      this.scheme = scheme;
      this.version = version;
    }

    /** The scheme the client uses, as X-Forwarded-Proto reports it. */
    public String scheme() {
      return scheme;
    }

    public HttpVersion version() {
      return version;
    }

    public boolean tls() {
      return this == H2_TLS;
    }
  }

  /** A response: status, the version it came in, headers by lower-case name, and the body. */
  public record Response(int status, HttpVersion version, Map<String, List<String>> headers, byte[] body) {
    public String header(String name) {
      List<String> v = headers.get(name.toLowerCase(Locale.ROOT));
      return v == null || v.isEmpty() ? null : v.get(0);
    }

    public String text() {
      return new String(body, java.nio.charset.StandardCharsets.UTF_8);
    }
  }

  private final Kind kind;
  private final Context context;
  private final HttpClientAgent vertxClient;
  private final HttpClient jdkClient;

  private ProtocolClient(Kind kind, Context context, HttpClientAgent vertxClient, HttpClient jdkClient) {
    this.kind = kind;
    this.context = context;
    this.vertxClient = vertxClient;
    this.jdkClient = jdkClient;
  }

  /** Vert.x's client speaking {@code kind}; over TLS it trusts any certificate. */
  public static ProtocolClient of(Kind kind, Vertx vertx) {
    HttpClientOptions options = new HttpClientOptions().setKeepAlive(true);
    if (kind == Kind.H2C_PRIOR_KNOWLEDGE) {
      options.setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false);
    } else if (kind == Kind.H2_TLS) {
      options.setProtocolVersion(HttpVersion.HTTP_2).setSsl(true).setUseAlpn(true).setTrustAll(true)
          .setVerifyHost(false);
    }
    HttpClientAgent client = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(8).setHttp2MaxSize(1));
    return new ProtocolClient(kind, vertx.getOrCreateContext(), client, null);
  }

  /**
   * The JDK's HttpClient, HTTP/2 over TLS: it trusts {@code trust} and checks that the
   * certificate names the host it connects to.
   */
  public static ProtocolClient jdk(SSLContext trust) {
    HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(trust)
        .connectTimeout(Duration.ofSeconds(10)).build();
    return new ProtocolClient(Kind.H2_TLS, null, null, jdk);
  }

  public Kind kind() {
    return kind;
  }

  public Response get(String host, int port, String path) {
    return send("GET", host, port, path, Map.of(), null);
  }

  /**
   * Sends a request to {@code host} and reads the whole response. With the JDK client
   * {@code headers} must not name Host, Content-Length, Connection or Expect.
   */
  public Response send(String method, String host, int port, String path, Map<String, String> headers, byte[] body) {
    return send(method, host, host, port, path, headers, body);
  }

  /**
   * Like {@link #send(String, String, int, String, Map, byte[])}, connecting to {@code address}
   * with {@code host} as Host (HTTP/1.1) or :authority (HTTP/2); Vert.x's client only.
   */
  public Response send(String method, String address, String host, int port, String path, Map<String, String> headers,
      byte[] body) {
    if (jdkClient != null) {
      if (!address.equals(host)) {
        throw new IllegalArgumentException("the JDK client connects to the host it names");
      }
      return sendJdk(method, host, port, path, headers, body);
    }
    RequestOptions o = new RequestOptions().setMethod(HttpMethod.valueOf(method)).setHost(host).setPort(port)
        .setServer(io.vertx.core.net.SocketAddress.inetSocketAddress(port, address))
        .setURI(path);
    headers.forEach(o::putHeader);
    Promise<Response> done = Promise.promise();
    context.runOnContext(v -> vertxClient.request(o)
        .compose(req -> body == null ? req.send() : req.send(Buffer.buffer(body)))
        .compose(resp -> resp.body().map(b -> {
          Map<String, List<String>> h = new LinkedHashMap<>();
          resp.headers().forEach(e -> h.computeIfAbsent(e.getKey().toLowerCase(Locale.ROOT), k -> new ArrayList<>())
              .add(e.getValue()));
          return new Response(resp.statusCode(), resp.version(), h, b.getBytes());
        }))
        .onComplete(done));
    return Await.result(done.future());
  }

  private Response sendJdk(String method, String host, int port, String path, Map<String, String> headers,
      byte[] body) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(kind.scheme() + "://" + host + ":" + port + path))
        .timeout(Duration.ofSeconds(30))
        .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
    headers.forEach(b::header);
    try {
      HttpResponse<byte[]> r = jdkClient.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      Map<String, List<String>> h = new LinkedHashMap<>();
      r.headers().map().forEach((k, v) -> h.put(k.toLowerCase(Locale.ROOT), v));
      HttpVersion version = r.version() == HttpClient.Version.HTTP_2 ? HttpVersion.HTTP_2 : HttpVersion.HTTP_1_1;
      return new Response(r.statusCode(), version, h, r.body());
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public void close() {
    if (vertxClient != null) {
      Await.result(vertxClient.close());
    }
  }
}
