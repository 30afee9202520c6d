package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.Problem;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Hot reload through the real file watcher (vertx-config scanning a YAML file), under continuous
 * keep-alive traffic: every edit applies, no request fails, no connection is dropped.
 */
class HotReloadTest {

  private static final int CONNECTIONS = 4;
  private static final int RELOADS = 20;

  @TempDir
  Path dir;

  private final Vertx backends = TestVertx.create();
  private final Vertx gatewayVertx = TestVertx.create();
  private WatchedFulcrum watched;

  @AfterEach
  void tearDown() {
    if (watched != null) {
      watched.close();
    }
    Await.result(gatewayVertx.close());
    Await.result(backends.close());
  }

  /** Each version moves weight between the two groups and changes the /version answer. */
  private static String config(int port, int version, int portA, int portB) {
    int weightA = version % 2 == 0 ? 100 : 50;
    return """
        control: {port: 0}
        dns: {port: 0}
        reload: {scan-period-ms: 50}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions:
                  - type: forward
                    target-groups: [{name: tg-a, weight: %d}, {name: tg-b, weight: %d}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/version"]}]
                    actions: [{type: fixed-response, status-code: 200, message-body: "v%d"}]
        target-groups:
          - {name: tg-a, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: tg-b, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(port, weightA, 100 - weightA, version, portA, portB);
  }

  private void write(Path file, String content) throws IOException {
    // Written aside and moved in, as editors do, so the watcher never reads half a file.
    Path tmp = dir.resolve("next.yaml");
    Files.writeString(tmp, content, StandardCharsets.UTF_8);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  @Test
  void twentyReloads_underContinuousTraffic_failNoRequest_andKeepEveryConnection() throws Exception {
    Backend a = Backend.start(backends, "a");
    Backend b = Backend.start(backends, "b");
    int port = Ports.free();
    Path file = dir.resolve("fulcrum.yaml");
    write(file, config(port, 0, a.port(), b.port()));

    // Edits count once the watcher has read the file as it is.
    watched = WatchedFulcrum.start(gatewayVertx, file, 2);
    List<List<Problem>> rejected = watched.rejected;

    AtomicInteger connectionsOpened = new AtomicInteger();
    HttpClientAgent client = backends.httpClientBuilder()
        .with(new HttpClientOptions().setKeepAlive(true))
        .with(new PoolOptions().setHttp1MaxSize(CONNECTIONS))
        .withConnectHandler(conn -> connectionsOpened.incrementAndGet())
        .build();
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicInteger ok = new AtomicInteger();
    List<String> failures = new CopyOnWriteArrayList<>();
    Map<String, AtomicInteger> servedBy = new ConcurrentHashMap<>();
    AtomicReference<String> lastVersion = new AtomicReference<>("");
    Context ctx = backends.getOrCreateContext();
    AtomicInteger loopsDone = new AtomicInteger();
    for (int i = 0; i < CONNECTIONS; i++) {
      String uri = i % 2 == 0 ? "/" : "/version";
      ctx.runOnContext(v -> loop(client, port, uri, running, ok, failures, servedBy, lastVersion, loopsDone));
    }

    for (int version = 1; version <= RELOADS; version++) {
      write(file, config(port, version, a.port(), b.port()));
      String expected = "v" + version;
      await().atMost(Duration.ofSeconds(10)).until(() -> lastVersion.get().equals(expected));
      if (version == RELOADS / 2) {
        // An invalid edit is refused and the running configuration keeps serving.
        write(file, config(port, 99, a.port(), b.port()).replace("port: 80,", "port: 80, protocol-version: HTTP7,"));
        await().atMost(Duration.ofSeconds(10)).until(() -> !rejected.isEmpty());
        assertThat(lastVersion.get()).isEqualTo(expected);
        write(file, config(port, version, a.port(), b.port()));
      }
    }
    running.set(false);
    await().atMost(Duration.ofSeconds(10)).until(() -> loopsDone.get() == CONNECTIONS);

    assertThat(failures).isEmpty();
    assertThat(ok.get()).isGreaterThan(RELOADS * 10);
    assertThat(connectionsOpened.get()).as("keep-alive connections opened").isEqualTo(CONNECTIONS);
    assertThat(servedBy).containsKeys("a", "b");
    assertThat(rejected).hasSize(1);
    assertThat(rejected.get(0)).extracting(Problem::path)
        .containsExactly("target-groups[0].protocol-version", "target-groups[1].protocol-version");
    Await.result(client.close());
  }

  private static void loop(HttpClientAgent client, int port, String uri, AtomicBoolean running, AtomicInteger ok,
      List<String> failures, Map<String, AtomicInteger> servedBy, AtomicReference<String> lastVersion,
      AtomicInteger loopsDone) {
    if (!running.get()) {
      loopsDone.incrementAndGet();
      return;
    }
    client.request(new RequestOptions().setHost("127.0.0.1").setPort(port).setURI(uri))
        .compose(req -> req.send().compose(resp -> resp.body().map(body -> resp.statusCode() + " " + body)))
        .onComplete(ar -> {
          if (ar.failed()) {
            failures.add(uri + ": " + ar.cause());
          } else if (!ar.result().startsWith("200 ")) {
            failures.add(uri + ": " + ar.result());
          } else {
            ok.incrementAndGet();
            String body = ar.result().substring(4);
            if (uri.equals("/version")) {
              lastVersion.set(body);
            } else {
              servedBy.computeIfAbsent(body, k -> new AtomicInteger()).incrementAndGet();
            }
          }
          loop(client, port, uri, running, ok, failures, servedBy, lastVersion, loopsDone);
        });
  }
}
