package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.BodyDigest;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.GeneratedBody;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Nothing in the gateway buffers a whole body: the packaged jar runs with a 128 MiB heap (and as
 * much direct memory), and 1 GiB bodies, generated on the fly with back-pressure, cross it in
 * both directions with the exact byte count and checksum. A gateway that held a body would die
 * of {@code OutOfMemoryError} ({@code -XX:+ExitOnOutOfMemoryError}).
 */
class StreamingIT {

  private static final long GIB = 1L << 30;
  /** A transfer that takes longer than this fails the test. */
  private static final int TRANSFER_LIMIT_SECONDS = 120;
  private static final String[] SMALL_GATEWAY = {"-Xmx128m", "-XX:MaxDirectMemorySize=128m", "-XX:+UseSerialGC",
      "-XX:+ExitOnOutOfMemoryError"};

  @TempDir
  Path work;

  private final Vertx vertx = TestVertx.create();
  private final HttpClientAgent client = vertx.createHttpClient();
  /** What the backend received on /upload, and what it sent on /download. */
  private final AtomicReference<BodyDigest> received = new AtomicReference<>();
  private final AtomicReference<GeneratedBody> sent = new AtomicReference<>();
  private Backend backend;
  private FulcrumProcess gateway;
  private int listenerPort;
  private int controlPort;

  @BeforeEach
  void start() {
    backend = Backend.start(vertx, "sink", "127.0.0.1", this::backendHandler);
    listenerPort = Ports.free();
    controlPort = Ports.free();
    gateway = FulcrumProcess.start(work, """
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: false}
        load-balancers:
          - name: streaming
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: sink}]
        target-groups:
          - name: sink
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health}
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(controlPort, listenerPort, backend.port()), SMALL_GATEWAY);
    gateway.waitReady(controlPort);
  }

  @AfterEach
  void stop() {
    if (gateway != null) {
      gateway.close();
    }
    Await.result(vertx.close());
  }

  @Test
  void upload1GiB_withContentLength_reachesTheTargetWhole() {
    upload(false);
    assertThat(backend.lastRequest().getJsonObject("headers").getString("content-length"))
        .isEqualTo(Long.toString(GIB));
  }

  @Test
  void upload1GiB_chunked_reachesTheTargetWhole() {
    upload(true);
    assertThat(backend.lastRequest().getJsonObject("headers").getString("transfer-encoding")).isEqualTo("chunked");
  }

  @Test
  void download1GiB_withContentLength_reachesTheClientWhole() {
    HttpClientResponse head = download(false);
    assertThat(head.getHeader(HttpHeaders.CONTENT_LENGTH)).isEqualTo(Long.toString(GIB));
  }

  @Test
  void download1GiB_chunked_reachesTheClientWhole() {
    HttpClientResponse head = download(true);
    assertThat(head.getHeader(HttpHeaders.TRANSFER_ENCODING)).isEqualTo("chunked");
  }

  private void upload(boolean chunked) {
    GeneratedBody body = new GeneratedBody(GIB, 0x5eed);
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.POST).setHost("127.0.0.1").setPort(listenerPort)
        .setURI("/upload");
    long start = System.nanoTime();
    Future<JsonObject> answer = client.request(options).compose(req -> {
      if (chunked) {
        req.setChunked(true);
      } else {
        req.putHeader(HttpHeaders.CONTENT_LENGTH, Long.toString(GIB));
      }
      Future<HttpClientResponse> response = req.response();
      body.writeTo(req);
      return response.compose(r -> r.body().map(b -> new JsonObject(b.toString()).put("status", r.statusCode())));
    });
    JsonObject result = transfer(answer);
    record("upload", chunked, start);

    assertThat(result.getInteger("status")).as(result.encode()).isEqualTo(200);
    assertThat(body.written()).isEqualTo(GIB);
    assertThat(result.getLong("bytes")).as("bytes the target received").isEqualTo(GIB);
    assertThat(result.getLong("crc32c")).as("CRC32C of what the target received").isEqualTo(body.crc32c());
    assertGatewayHealthy();
  }

  private HttpClientResponse download(boolean chunked) {
    BodyDigest got = new BodyDigest();
    RequestOptions options = new RequestOptions().setMethod(HttpMethod.GET).setHost("127.0.0.1").setPort(listenerPort)
        .setURI("/download?chunked=" + chunked);
    long start = System.nanoTime();
    Future<HttpClientResponse> done = client.request(options).compose(req -> req.send().compose(resp -> {
      resp.handler(got::update);
      return resp.end().map(resp);
    }));
    HttpClientResponse head = transfer(done);
    record("download", chunked, start);

    assertThat(head.statusCode()).isEqualTo(200);
    GeneratedBody body = sent.get();
    assertThat(body.written()).as("bytes the target sent").isEqualTo(GIB);
    assertThat(got.bytes()).as("bytes the client received").isEqualTo(GIB);
    assertThat(got.crc32c()).as("CRC32C of what the client received").isEqualTo(body.crc32c());
    assertGatewayHealthy();
    return head;
  }

  /** The backend: /health answers 200; /upload digests the body and answers with its count and CRC; anything else sends 1 GiB. */
  private void backendHandler(HttpServerRequest req) {
    if (req.path().equals("/health")) {
      req.response().end();
    } else if (req.path().equals("/upload")) {
      BodyDigest digest = new BodyDigest();
      received.set(digest);
      req.handler(digest::update);
      req.endHandler(v -> req.response().putHeader(HttpHeaders.CONTENT_TYPE, "application/json")
          .end(new JsonObject().put("bytes", digest.bytes()).put("crc32c", digest.crc32c()).encode()));
    } else {
      GeneratedBody body = new GeneratedBody(GIB, 0xd0d0);
      sent.set(body);
      if ("true".equals(req.getParam("chunked"))) {
        req.response().setChunked(true);
      } else {
        req.response().putHeader(HttpHeaders.CONTENT_LENGTH, Long.toString(GIB));
      }
      body.writeTo(req.response());
    }
  }

  /** The transfer's result; a failure says whether the gateway survived and what it printed. */
  private <T> T transfer(Future<T> f) {
    try {
      return Await.result(f, TRANSFER_LIMIT_SECONDS);
    } catch (RuntimeException e) {
      throw new AssertionError("the transfer failed (" + e + "); the gateway is "
          + (gateway.isAlive() ? "alive" : "gone") + "\n" + gateway.describe(), e);
    }
  }

  private void assertGatewayHealthy() {
    assertThat(gateway.isAlive()).as("the gateway is alive\n%s", gateway.describe()).isTrue();
    assertThat(gateway.status(URI.create("http://127.0.0.1:" + controlPort + "/health/ready"))).isEqualTo(200);
    assertThat(gateway.stdout() + gateway.stderr()).doesNotContain("OutOfMemoryError");
  }

  /** Prints the throughput and the gateway's peak resident memory, for the record. */
  private void record(String direction, boolean chunked, long startNanos) {
    double seconds = (System.nanoTime() - startNanos) / 1e9;
    System.out.printf(Locale.ROOT, "StreamingIT: %s of 1 GiB (%s) through the gateway (%s) in %.1f s = %.0f MiB/s;"
            + " gateway peak RSS %s%n", direction, chunked ? "chunked" : "Content-Length",
        String.join(" ", SMALL_GATEWAY), seconds, 1024 / seconds, peakRss(gateway.pid()));
  }

  private static String peakRss(long pid) {
    try {
      return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
          .filter(l -> l.startsWith("VmHWM:")).map(l -> l.substring("VmHWM:".length()).strip()).findFirst()
          .orElse("unknown");
    } catch (IOException | RuntimeException e) {
      return "unknown";
    }
  }
}
