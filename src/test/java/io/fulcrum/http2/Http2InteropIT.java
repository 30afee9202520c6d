package io.fulcrum.http2;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The packaged jar's HTTP/2 front end against tools nobody here wrote: Debian's {@code curl}
 * (HTTP/2 over TLS with ALPN, and h2c prior knowledge) and {@code h2load} (bounded runs over TLS
 * and h2c with zero errors; 200 streams wanted on one connection against a slow target: the server
 * allows 128 at a time and every request completes). The HTTPS listener uses the self-signed
 * certificate generated into the data dir.
 */
@Tag("interop")
class Http2InteropIT {

  private static final Pattern REQUESTS = Pattern.compile(
      "requests: (\\d+) total, (\\d+) started, (\\d+) done, (\\d+) succeeded, (\\d+) failed, (\\d+) errored, (\\d+) timeout");
  private static final Pattern STATUS = Pattern.compile("status codes: (\\d+) 2xx, (\\d+) 3xx, (\\d+) 4xx, (\\d+) 5xx");
  private static final Pattern FINISHED = Pattern.compile("finished in ([\\d.]+\\w+), ([\\d.]+) req/s");

  private static final Vertx TARGETS = TestVertx.create();
  private static final AtomicInteger SLOW_IN_FLIGHT = new AtomicInteger();
  private static final AtomicInteger SLOW_MAX_IN_FLIGHT = new AtomicInteger();
  private static Path work;
  private static Backend web;
  private static HttpServer h2Target;
  private static HttpServer slowTarget;
  private static FulcrumProcess fulcrum;
  private static int httpsPort;
  private static int h2cPort;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("h2-interop");
    web = Backend.start(TARGETS, "web");
    h2Target = TARGETS.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0));
    h2Target.requestHandler(req -> req.response().end("h2-target saw " + req.version()));
    Await.result(h2Target.listen());
    // Answers each request 100 ms after it arrives (a timer, not a sleep), counting how many wait at once.
    slowTarget = TARGETS.createHttpServer(new HttpServerOptions().setHost("127.0.0.1").setPort(0));
    slowTarget.requestHandler(req -> {
      if (!"ELB-HealthChecker/2.0".equals(req.getHeader("user-agent"))) {
        SLOW_MAX_IN_FLIGHT.accumulateAndGet(SLOW_IN_FLIGHT.incrementAndGet(), Math::max);
      }
      TARGETS.setTimer(100, id -> {
        if (!"ELB-HealthChecker/2.0".equals(req.getHeader("user-agent"))) {
          SLOW_IN_FLIGHT.decrementAndGet();
        }
        req.response().end("slow");
      });
    });
    Await.result(slowTarget.listen());
    int control = Ports.free();
    httpsPort = Ports.free();
    h2cPort = Ports.free();
    fulcrum = FulcrumProcess.start(work, """
        control: {address: 127.0.0.1, port: %d}
        reload: {enabled: false}
        load-balancers:
          - name: interop
            listeners:
              - protocol: HTTPS
                port: %d
                ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06
                default-actions: [{type: forward, target-group: web}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/h2/*"]}], actions: [{type: forward, target-group: h2}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/slow"]}], actions: [{type: forward, target-group: slow}]}
              - {protocol: HTTP, port: %d, h2c: true, default-actions: [{type: forward, target-group: web}]}
        target-groups:
          - {name: web, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: h2, target-type: ip, protocol: HTTP, port: 80, protocol-version: HTTP2, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: slow, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
        """.formatted(control, httpsPort, h2cPort, web.port(), h2Target.actualPort(), slowTarget.actualPort()));
    fulcrum.waitReady(control);
  }

  @AfterAll
  static void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
    TARGETS.close();
  }

  private static Tool.Result curl(String... args) {
    Path curl = Interop.require("/usr/bin/curl", "curl");
    List<String> cmd = new java.util.ArrayList<>(List.of(curl.toString(), "-s", "--max-time", "20"));
    cmd.addAll(List.of(args));
    return Tool.run(work, Duration.ofSeconds(30), cmd);
  }

  @Test
  void curlHttp2OverTls_gets200FromTheTarget_overHttp2() {
    Tool.Result r = curl("-k", "--http2", "-w", "\\n%{http_code} %{http_version}", "https://127.0.0.1:" + httpsPort + "/");

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).isEqualTo("web\n200 2");
  }

  @Test
  void curlVerbose_showsAlpnH2AndTheSelfSignedCertificate() {
    Tool.Result r = curl("-k", "-v", "--http2", "-o", "/dev/null", "https://127.0.0.1:" + httpsPort + "/");

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("ALPN: server accepted h2").contains("Fulcrum self-signed")
        .containsPattern("< HTTP/2 200");
  }

  @Test
  void curlHttp2_toAnHttp2Group_reachesTheTargetOverHttp2() {
    Tool.Result r = curl("-k", "--http2", "https://127.0.0.1:" + httpsPort + "/h2/x");

    assertThat(r.output()).isEqualTo("h2-target saw HTTP_2");
  }

  @Test
  void curlHttp2PriorKnowledge_overH2c_gets200() {
    Tool.Result r = curl("--http2-prior-knowledge", "-w", "\\n%{http_code} %{http_version}",
        "http://127.0.0.1:" + h2cPort + "/");

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).isEqualTo("web\n200 2");
  }

  /** Runs h2load and checks its summary: every request done and 2xx, none failed, errored or timed out. */
  private static String h2load(int requests, String... args) {
    Path h2load = Interop.require("/usr/bin/h2load", "nghttp2-client");
    List<String> cmd = new java.util.ArrayList<>(List.of(h2load.toString(), "-n", Integer.toString(requests)));
    cmd.addAll(List.of(args));
    Tool.Result r = Tool.run(work, Duration.ofSeconds(120), cmd);
    String out = r.output();
    assertThat(r.exitCode()).as(out).isZero();
    Matcher m = REQUESTS.matcher(out);
    assertThat(m.find()).as("h2load's summary\n%s", out).isTrue();
    assertThat(Integer.parseInt(m.group(3))).as("done\n%s", out).isEqualTo(requests);
    assertThat(Integer.parseInt(m.group(4))).as("succeeded\n%s", out).isEqualTo(requests);
    assertThat(m.group(5) + " " + m.group(6) + " " + m.group(7)).as("failed, errored, timeout\n%s", out)
        .isEqualTo("0 0 0");
    Matcher s = STATUS.matcher(out);
    assertThat(s.find()).isTrue();
    assertThat(Integer.parseInt(s.group(1))).as("2xx\n%s", out).isEqualTo(requests);
    assertThat(out).contains("Application protocol: h2");
    Matcher f = FINISHED.matcher(out);
    return f.find() ? f.group(0) : "?";
  }

  @Test
  void h2loadOverTls_completesABoundedRunWithZeroErrors() {
    String summary = h2load(2000, "-c", "4", "-m", "10", "https://127.0.0.1:" + httpsPort + "/");
    System.out.println("h2load TLS -n 2000 -c 4 -m 10: " + summary);
  }

  @Test
  void h2loadOverH2c_completesABoundedRunWithZeroErrors() {
    String summary = h2load(2000, "-c", "4", "-m", "10", "http://127.0.0.1:" + h2cPort + "/");
    System.out.println("h2load h2c -n 2000 -c 4 -m 10: " + summary);
  }

  @Test
  void h2loadWanting200StreamsOnOneConnection_getsAtMost128AtOnce_andEveryRequestCompletes() {
    SLOW_MAX_IN_FLIGHT.set(0);

    String summary = h2load(600, "-c", "1", "-m", "200", "https://127.0.0.1:" + httpsPort + "/slow");

    assertThat(SLOW_MAX_IN_FLIGHT.get()).as("requests waiting at the target at once").isEqualTo(128);
    System.out.println("h2load TLS -n 600 -c 1 -m 200 against a 100 ms target: " + summary);
  }
}
