package io.fulcrum.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.Arns;
import io.fulcrum.model.Resources;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawHttp;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code GET /metrics} on the control plane, read after real traffic through a gateway with two
 * listener verticles (two event loops, each counting its own): every count under its CloudWatch
 * name and dimensions, summed over the loops, and the page read by Prometheus's own Python parser.
 *
 * <p>The load balancer {@code web} (zone-a, one node) forwards by default to {@code app}, whose
 * target answers 503 on {@code /error} and 200 otherwise, with rules for a fixed response, a
 * redirect, a group whose only target's port refuses connections ({@code down}), an empty group, a
 * sticky group and two Lambda functions. Health checks run on a virtual clock.
 */
class MetricsTest {

  /** What the targets answer on {@code /big}. */
  private static final String BIG = "x".repeat(64 * 1024);

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  private final AtomicInteger appHealth = new AtomicInteger(200);
  private final AtomicInteger secondHealth = new AtomicInteger(200);
  private Gateway gateway;
  private Http http;
  private int port;
  private int tlsPort;
  private String yaml;
  private Map<String, String> web;

  @BeforeEach
  void start() {
    int app = target(appHealth);
    int second = target(secondHealth);
    port = Ports.free();
    tlsPort = Ports.free();
    TestCertificates.Pem cert;
    try {
      cert = TestCertificates.pem(Files.createTempDirectory("metrics"), "lb", "127.0.0.1");
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    yaml = """
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
        functions:
          raw: {handler: io.fulcrum.function.handlers.RawResponseHandler}
          gone: {endpoint: "http://127.0.0.1:%d"}
        load-balancers:
          - name: web
            zones: [zone-a]
            attributes: {routing.http.drop_invalid_header_fields.enabled: "true"}
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: app}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/fixed"]}],
                     actions: [{type: fixed-response, status-code: "404", content-type: text/plain, message-body: no}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/old"]}],
                     actions: [{type: redirect, path: "/new", status-code: HTTP_301}]}
                  - {priority: 3, conditions: [{field: path-pattern, values: ["/down"]}],
                     actions: [{type: forward, target-group: down}]}
                  - {priority: 4, conditions: [{field: path-pattern, values: ["/empty"]}],
                     actions: [{type: forward, target-group: empty}]}
                  - {priority: 5, conditions: [{field: path-pattern, values: ["/sticky"]}],
                     actions: [{type: forward, target-group: sticky}]}
                  - {priority: 6, conditions: [{field: path-pattern, values: ["/raw", "/raw/*"]}],
                     actions: [{type: forward, target-group: raw}]}
                  - {priority: 7, conditions: [{field: path-pattern, values: ["/gone"]}],
                     actions: [{type: forward, target-group: gone}]}
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: app}]
        target-groups:
          - name: app
            target-type: ip
            protocol: HTTP
            port: 80
            health-check:
              {path: /health, interval-seconds: 10, healthy-threshold-count: 2, unhealthy-threshold-count: 2}
            targets:
              - {id: 127.0.0.1, port: %d, zone: zone-a}
              - {id: 127.0.0.1, port: %d, zone: zone-a}
          - name: down
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {interval-seconds: 10}
            targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]
          - {name: empty, target-type: ip, protocol: HTTP, port: 80, targets: []}
          - name: sticky
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, healthy-threshold-count: 2}
            attributes: {stickiness.enabled: "true", stickiness.type: lb_cookie}
            targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]
          - {name: raw, target-type: lambda, targets: [{id: raw}]}
          - {name: gone, target-type: lambda, targets: [{id: gone}]}
        """.formatted(Ports.free(), port, tlsPort, cert.certificate(), cert.privateKey(), app, second, Ports.free(),
        app);
    gateway = Gateway.start(TestVertx.create(), yaml, 2, time);
    http = new Http(backends);
    Resources resources = gateway.fulcrum().config().resources();
    web = Map.of("LoadBalancer", Arns.loadBalancerDimension(resources.loadBalancers().get(0).arn()),
        "AvailabilityZone", "zone-a");
    tick();
    tick();
  }

  private int target(AtomicInteger health) {
    return Backend.start(backends, "t", "127.0.0.1", req -> {
      int status = req.path().equals("/health") ? health.get() : req.path().equals("/error") ? 503 : 200;
      req.response().setStatusCode(status).end(req.path().equals("/big") ? BIG : "ok");
    }).port();
  }

  @AfterEach
  void stop() {
    http.close();
    gateway.close();
    Await.result(backends.close());
  }

  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  private Scrape scrape() {
    return Scrape.of(http, gateway.controlPort());
  }

  /** {@link #web}'s labels with the target group {@code name}'s. */
  private Map<String, String> group(String name) {
    String arn = gateway.fulcrum().config().resources().targetGroups().stream().filter(g -> g.name().equals(name))
        .findFirst().orElseThrow().arn();
    Map<String, String> labels = new HashMap<>(web);
    labels.put("TargetGroup", Arns.targetGroupDimension(arn));
    return labels;
  }

  /** One request on a connection of its own, so that the two event loops both take some. */
  private int send(String request) {
    return RawHttp.status(RawHttp.exchange("127.0.0.1", port, request));
  }

  private int get(String path) {
    return send("GET " + path + " HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n");
  }

  @Test
  void everyAnswer_isCountedOnce_underItsCloudWatchName_summedOverTheLoops() {
    for (int i = 0; i < 6; i++) {
      assertThat(get("/ok/" + i)).isEqualTo(200);
    }
    assertThat(send("HEAD /ok HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n")).isEqualTo(200); // Vert.x's path
    assertThat(get("/error")).isEqualTo(503);
    assertThat(get("/error")).isEqualTo(503);
    assertThat(get("/fixed")).isEqualTo(404);
    assertThat(get("/old")).isEqualTo(301);
    assertThat(get("/empty")).isEqualTo(503);
    assertThat(get("/down")).isEqualTo(502);
    String xff = String.join(", ", java.util.Collections.nCopies(31, "10.0.0.1"));
    assertThat(send("GET / HTTP/1.1\r\nHost: web\r\nX-Forwarded-For: " + xff + "\r\nConnection: close\r\n\r\n"))
        .isEqualTo(463);

    Scrape s = scrape();
    Map<String, String> app = group("app");
    assertThat(s.sum("RequestCount", app)).isEqualTo(9);
    assertThat(s.sum("HTTPCode_Target_2XX_Count", app)).isEqualTo(7);
    assertThat(s.sum("HTTPCode_Target_5XX_Count", app)).isEqualTo(2);
    assertThat(s.sum("TargetResponseTime_count", app)).isEqualTo(9);
    assertThat(s.sum("TargetResponseTime_bucket", with(app, "le", "+Inf"))).isEqualTo(9);
    assertThat(s.sum("TargetResponseTime_sum", app)).isGreaterThan(0).isLessThan(9 * 10);
    assertThat(s.sum("UnhealthyRoutingRequestCount", app)).as("both targets healthy").isZero();
    assertThat(s.sum("RequestCount", group("down"))).isEqualTo(1);
    assertThat(s.sum("TargetConnectionErrorCount", group("down"))).isEqualTo(1);
    assertThat(s.has("RequestCount", group("empty"))).as("no target could be chosen").isFalse();

    assertThat(s.sum("HTTPCode_ELB_3XX_Count", web)).isEqualTo(1);
    assertThat(s.sum("HTTPCode_ELB_4XX_Count", web)).as("the fixed 404 and the 463").isEqualTo(2);
    assertThat(s.sum("HTTPCode_ELB_5XX_Count", web)).as("503 for the empty group, 502 for the refusal").isEqualTo(2);
    assertThat(s.sum("HTTPCode_ELB_502_Count", web)).isEqualTo(1);
    assertThat(s.sum("HTTPCode_ELB_503_Count", web)).isEqualTo(1);
    assertThat(s.sum("HTTPCode_ELB_504_Count", web)).isZero();
    assertThat(s.sum("HTTP_Fixed_Response_Count", web)).isEqualTo(1);
    assertThat(s.sum("HTTP_Redirect_Count", web)).isEqualTo(1);
    assertThat(s.sum("NewConnectionCount", web)).isEqualTo(14);
    assertThat(s.series().stream().filter(x -> x.name().equals("RequestCount")).count())
        .as("one series per group per load balancer and zone, the loops added up").isEqualTo(2);
  }

  @Test
  void hostCounts_andZoneStates_followTheHealthChecks_andFailOpenRequestsAreCounted() {
    Map<String, String> app = group("app");
    Scrape s = scrape();
    assertThat(s.sum("HealthyHostCount", app)).isEqualTo(2);
    assertThat(s.sum("UnHealthyHostCount", app)).isZero();
    assertThat(s.sum("HealthyStateRouting", app)).isEqualTo(1);
    assertThat(s.sum("HealthyStateDNS", app)).isEqualTo(1);
    assertThat(s.sum("UnHealthyHostCount", group("down"))).isEqualTo(1);
    assertThat(s.has("HealthyHostCount", group("raw"))).as("a function's checks are off: not reported").isFalse();
    assertThat(s.sum("HealthyStateRouting", group("raw"))).isEqualTo(1);

    secondHealth.set(503);
    tick();
    tick();
    s = scrape();
    assertThat(s.sum("HealthyHostCount", app)).isEqualTo(1);
    assertThat(s.sum("UnHealthyHostCount", app)).isEqualTo(1);
    assertThat(s.sum("UnhealthyStateRouting", app)).isZero();

    appHealth.set(503);
    tick();
    tick();
    s = scrape();
    assertThat(s.sum("HealthyHostCount", app)).isZero();
    assertThat(s.sum("UnHealthyHostCount", app)).isEqualTo(2);
    assertThat(s.sum("UnhealthyStateRouting", app)).isEqualTo(1);
    assertThat(s.sum("HealthyStateRouting", app)).isZero();
    assertThat(s.sum("UnhealthyStateDNS", app)).isEqualTo(1);

    assertThat(get("/ok")).as("fail-open: every target takes requests").isEqualTo(200);
    assertThat(get("/ok")).isEqualTo(200);
    assertThat(scrape().sum("UnhealthyRoutingRequestCount", app)).isEqualTo(2);
  }

  @Test
  void nonStickyRequests_areThoseWithoutACookieThatStillNamesATarget() {
    Http.Response first = http.get("127.0.0.1", port, "/sticky", Map.of());
    String cookie = first.headers().get("Set-Cookie").split(";")[0];
    assertThat(http.get("127.0.0.1", port, "/sticky", Map.of("Cookie", cookie)).status()).isEqualTo(200);
    assertThat(http.get("127.0.0.1", port, "/sticky", Map.of("Cookie", "AWSALB=not-a-cookie")).status())
        .isEqualTo(200);

    Scrape s = scrape();
    assertThat(s.sum("NonStickyRequestCount", web)).as("the first request and the one with a bad cookie")
        .isEqualTo(2);
    assertThat(s.sum("RequestCount", group("sticky"))).isEqualTo(3);
  }

  @Test
  void desyncMitigation_countsEachNonCompliantRequestOnce_onEitherPath() {
    assertThat(get("/compliant")).isEqualTo(200);
    // Acceptable (GetHeadZeroContentLength): served on the direct path.
    assertThat(send("GET /zero HTTP/1.1\r\nHost: web\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
        .isEqualTo(200);
    // Ambiguous (UndefinedContentLengthSemantics): the direct path leaves it to Vert.x's, which serves it and closes.
    assertThat(send("GET /body HTTP/1.1\r\nHost: web\r\nContent-Length: 2\r\n\r\nhi")).isEqualTo(200);

    assertThat(scrape().sum("DesyncMitigationMode_NonCompliant_Request_Count", web)).isEqualTo(2);
  }

  @Test
  void requestsWithInvalidHeaders_areCountedAsDroppedOrForwarded_onEitherPath() {
    invalidHeaderRequests();
    assertThat(scrape().sum("DroppedInvalidHeaderRequestCount", web)).isEqualTo(3);
    assertThat(scrape().sum("ForwardedInvalidHeaderRequestCount", web)).isZero();

    // With dropping off, the same requests go on with their headers, and count as forwarded.
    gateway.reload(yaml.replace("routing.http.drop_invalid_header_fields.enabled: \"true\"",
        "routing.http.drop_invalid_header_fields.enabled: \"false\""));
    invalidHeaderRequests();
    Scrape s = scrape();
    assertThat(s.sum("ForwardedInvalidHeaderRequestCount", web)).isEqualTo(3);
    assertThat(s.sum("DroppedInvalidHeaderRequestCount", web)).isEqualTo(3);
  }

  /** Three requests with a header whose name is not valid (one on each path, one to a function) and one without. */
  private void invalidHeaderRequests() {
    assertThat(get("/valid")).isEqualTo(200);
    // Keep-alive: the direct path takes it; the fixed response behind it closes the connection.
    String direct = RawHttp.exchange("127.0.0.1", port, "GET /direct HTTP/1.1\r\nHost: web\r\nX_Under_Score: 1\r\n\r\n"
        + "GET /fixed HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n");
    assertThat(direct).startsWith("HTTP/1.1 200").contains("HTTP/1.1 404");
    assertThat(send("HEAD /vertx HTTP/1.1\r\nHost: web\r\nX.Dotted: 1\r\nConnection: close\r\n\r\n"))
        .isEqualTo(200);
    assertThat(send("GET /raw/size HTTP/1.1\r\nHost: web\r\nX_Fn: 1\r\nConnection: close\r\n\r\n"))
        .as("to a function").isEqualTo(200);
  }

  @Test
  void lambdaErrors_areCountedAsTheFunctionsOrTheLoadBalancers() {
    String invalid = "POST /raw HTTP/1.1\r\nHost: web\r\nContent-Length: 8\r\nConnection: close\r\n\r\nnot json";
    assertThat(send(invalid)).isEqualTo(502);
    assertThat(send(invalid)).isEqualTo(502);
    assertThat(get("/gone")).isEqualTo(502);

    Scrape s = scrape();
    assertThat(s.sum("LambdaUserError", group("raw"))).as("LambdaInvalidResponse").isEqualTo(2);
    assertThat(s.sum("LambdaInternalError", group("gone"))).as("LambdaConnectionError").isEqualTo(1);
    assertThat(s.sum("RequestCount", group("raw"))).isEqualTo(2);
    assertThat(s.sum("HTTPCode_ELB_502_Count", web)).isEqualTo(3);
  }

  @Test
  void processedBytes_areTheHttpBytesOfClientConnections_andOfLambdaInvocations(@TempDir Path dir) throws Exception {
    // HTTP/1.1, every byte each way: a keep-alive request on the direct path, then one Vert.x's path
    // answers (the fixed response, Connection: close) pipelined behind it on the same connection.
    String requests = "GET /ok HTTP/1.1\r\nHost: web\r\n\r\n"
        + "POST /fixed HTTP/1.1\r\nHost: web\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello";
    String responses = RawHttp.exchange("127.0.0.1", port, requests);
    assertThat(responses).startsWith("HTTP/1.1 200").contains("HTTP/1.1 404");
    long expected = requests.length() + responses.length();
    assertThat(scrape().sum("ProcessedBytes", web)).isEqualTo(expected);

    // Over TLS: the HTTP, not the TLS records that carry it.
    String request = "GET /ok HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n";
    try (javax.net.ssl.SSLSocket s = (javax.net.ssl.SSLSocket) TestCertificates.trustingAnything().getSocketFactory()
        .createSocket("127.0.0.1", tlsPort)) {
      s.getOutputStream().write(request.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
      String response = new String(s.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
      assertThat(response).startsWith("HTTP/1.1 200");
      expected += request.length() + response.length();
    }
    assertThat(scrape().sum("ProcessedBytes", web)).isEqualTo(expected);

    // A Lambda function: the event it took and the response it gave, in both metrics.
    String lambda = "GET /raw/size HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n";
    String answer = RawHttp.exchange("127.0.0.1", port, lambda);
    assertThat(RawHttp.status(answer)).isEqualTo(200);
    int eventBytes = Integer.parseInt(answer.substring(answer.indexOf("\r\n\r\n") + 4));
    long lambdaBytes = eventBytes + io.fulcrum.function.handlers.RawResponseHandler.sizeResponse(eventBytes).length();
    expected += lambda.length() + answer.length() + lambdaBytes;
    Scrape s = scrape();
    assertThat(s.sum("LambdaTargetProcessedBytes", group("raw"))).isEqualTo(lambdaBytes);
    assertThat(s.sum("ProcessedBytes", web)).isEqualTo(expected);

    // HTTP/2 from Debian's curl: its frames, the 64 KB response body among them. (Not a request body:
    // the targets answer before reading one, and curl 7.88 takes the RST_STREAM(NO_ERROR) that then
    // follows the complete response, as RFC 9113 §8.1 allows and NGINX sends, for an error.)
    Path curl = Interop.require("/usr/bin/curl", "curl");
    Tool.Result h2 = Tool.run(dir, Duration.ofSeconds(30), List.of(curl.toString(), "-skS", "--http2", "-o",
        "/dev/null", "-w", "%{http_version} %{http_code}", "https://127.0.0.1:" + tlsPort + "/big"));
    assertThat(h2.output()).as("curl exit %d", h2.exitCode()).isEqualTo("2 200");
    long h2Bytes = (long) scrape().sum("ProcessedBytes", web) - expected;
    // Everything written is counted: the body in four DATA frames and the response's HEADERS frame, each
    // with its 9-byte header. What the client sent before its connection was handed over (the preface and
    // SETTINGS, and with BoringSSL, which decrypts it in the same read, its first HEADERS) is not.
    assertThat(h2Bytes).as("the response body, the headers and the frames' own bytes")
        .isBetween(64L * 1024 + 4 * 9 + 9 + 1, 64L * 1024 + 4096);
  }

  @Test
  void tlsHandshakesThatFail_areClientTlsNegotiationErrors() throws Exception {
    javax.net.ssl.SSLSocketFactory tls = TestCertificates.trustingAnything().getSocketFactory();
    try (javax.net.ssl.SSLSocket ok = (javax.net.ssl.SSLSocket) tls.createSocket("127.0.0.1", tlsPort)) {
      ok.startHandshake();
    }
    // Only a cipher suite the listener's security policy leaves out (no forward secrecy).
    try (javax.net.ssl.SSLSocket refused = (javax.net.ssl.SSLSocket) tls.createSocket("127.0.0.1", tlsPort)) {
      refused.setEnabledProtocols(new String[] {"TLSv1.2"});
      refused.setEnabledCipherSuites(new String[] {"TLS_RSA_WITH_AES_128_GCM_SHA256"});
      org.assertj.core.api.Assertions.assertThatThrownBy(refused::startHandshake)
          .isInstanceOf(javax.net.ssl.SSLException.class);
    }
    // Cleartext HTTP on the HTTPS port.
    try (RawConnection c = RawConnection.open("127.0.0.1", tlsPort)) {
      c.send("GET / HTTP/1.1\r\nHost: web\r\n\r\n");
      c.readUntilClosed();
    }

    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
        .untilAsserted(() -> assertThat(scrape().sum("ClientTLSNegotiationErrorCount", web)).isEqualTo(2));
    assertThat(scrape().sum("NewConnectionCount", web)).as("the handshake that succeeded").isEqualTo(1);
  }

  @Test
  void activeConnections_areTheOpenOnes() {
    try (RawConnection c = RawConnection.open("127.0.0.1", port)) {
      c.send("GET /ok HTTP/1.1\r\nHost: web\r\n\r\n");
      assertThat(c.read().status()).isEqualTo(200);
      assertThat(scrape().sum("ActiveConnectionCount", web)).isEqualTo(1);
    }
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20))
        .until(() -> scrape().sum("ActiveConnectionCount", web) == 0);
    assertThat(scrape().sum("NewConnectionCount", web)).isEqualTo(1);
  }

  @Test
  void theProcess_isDescribedUnderPrometheusJavaClientNames() {
    Scrape s = scrape();
    assertThat(s.sum("process_resident_memory_bytes", Map.of())).isGreaterThan(1 << 20);
    assertThat(s.sum("process_cpu_seconds_total", Map.of())).isGreaterThan(0);
    assertThat(s.sum("process_open_fds", Map.of())).isGreaterThan(0);
    assertThat(s.sum("jvm_memory_used_bytes", Map.of("area", "heap"))).isGreaterThan(0);
    assertThat(s.sum("jvm_threads_current", Map.of())).isGreaterThan(1);
    assertThat(s.has("jvm_gc_collection_seconds_count", Map.of())).isTrue();
  }

  @Test
  void aTargetGroupNoLongerUsed_leavesThePage() {
    assertThat(get("/down")).isEqualTo(502);
    Map<String, String> down = group("down");
    assertThat(scrape().has("RequestCount", down)).isTrue();

    gateway.reload(yaml.replace("""
                  - {priority: 3, conditions: [{field: path-pattern, values: ["/down"]}],
                     actions: [{type: forward, target-group: down}]}
        """, ""));

    Scrape s = scrape();
    assertThat(s.has("RequestCount", down)).isFalse();
    assertThat(s.has("HealthyStateRouting", down)).isFalse();
    assertThat(s.has("HealthyStateRouting", group("app"))).isTrue();
  }

  @Test
  void page_readsWithPrometheusPythonParser(@TempDir Path dir) throws Exception {
    Path python = Interop.python3With("prometheus_client", "python3-prometheus-client");
    assertThat(get("/ok")).isEqualTo(200);
    assertThat(get("/error")).isEqualTo(503);
    Path page = dir.resolve("metrics.txt");
    Files.writeString(page, scrape().text());
    Path script = dir.resolve("parse.py");
    Files.writeString(script, """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        families = {}
        for f in text_string_to_metric_families(open(sys.argv[1]).read()):
            families[f.name] = {"type": f.type, "samples": len(f.samples),
                                "labels": sorted({k for s in f.samples for k in s.labels})}
        print(json.dumps(families))
        """);

    Tool.Result r = Tool.run(dir, Duration.ofSeconds(60), List.of(python.toString(), script.toString(),
        page.toString()));

    assertThat(r.exitCode()).as(r.output()).isZero();
    JsonObject families = Interop.lastJsonLine(r);
    assertThat(families.getJsonObject("RequestCount").getString("type")).isEqualTo("counter");
    assertThat(families.getJsonObject("RequestCount").getJsonArray("labels").getList())
        .containsExactly("AvailabilityZone", "LoadBalancer", "TargetGroup");
    assertThat(families.getJsonObject("TargetResponseTime").getString("type")).isEqualTo("histogram");
    assertThat(families.containsKey("ELBAuthLatency")).as("no series before a sign-in").isFalse();
    assertThat(families.getJsonObject("HealthyHostCount").getString("type")).isEqualTo("gauge");
    assertThat(families.getJsonObject("HTTPCode_ELB_5XX_Count").getJsonArray("labels").getList())
        .containsExactly("AvailabilityZone", "LoadBalancer");
    assertThat(families.getJsonObject("process_resident_memory_bytes").getString("type")).isEqualTo("gauge");
    assertThat(families.getJsonObject("jvm_gc_collection_seconds").getString("type")).isEqualTo("summary");
  }

  private static Map<String, String> with(Map<String, String> labels, String name, String value) {
    Map<String, String> out = new HashMap<>(labels);
    out.put(name, value);
    return out;
  }
}
