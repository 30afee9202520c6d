package io.fulcrum.observe;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.model.Resources;
import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.LogFiles;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawHttp;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.VirtualTime;
import io.fulcrum.testing.WebSocketTarget;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The access log (SPEC §11.5) of a gateway with two listener verticles, read from the gzip files it
 * writes under the data dir as ALB writes them to S3: one file per node and 5-minute period, on a
 * virtual clock. Each line is split into its fields as ALB's documented Athena regex splits them,
 * and checked field by field against what the client sent and got, bytes included.
 */
class AccessLogTest {

  /**
   * The line as AWS's Athena table for ALB logs reads it: space-separated fields, some in double quotes,
   * extra trailing fields allowed (its regex, written here from the field list).
   */
  private static final Pattern LINE = Pattern.compile(
      "([^ ]*) ([^ ]*) ([^ ]*) ([^ ]*):([0-9]*) ([^ ]*)[:-]([0-9]*) ([-.0-9]*) ([-.0-9]*) ([-.0-9]*) (|[-0-9]*)"
          + " (-|[-0-9]*) ([-0-9]*) ([-0-9]*) \"([^ ]*) (.*) (- |[^ ]*)\" \"([^\"]*)\" ([A-Z0-9-_]+) ([A-Za-z0-9.-]*)"
          + " ([^ ]*) \"([^\"]*)\" \"([^\"]*)\" \"([^\"]*)\" ([-.0-9]*) ([^ ]*) \"([^\"]*)\" \"([^\"]*)\""
          + " \"([^ ]*)\" \"([^\\s]+?)\" \"([^\\s]+)\" \"([^ ]*)\" \"([^ ]*)\" ?([^ ]*)? ?( .*)?");

  private final Vertx backends = TestVertx.create();
  private final VirtualTime time = new VirtualTime();
  @TempDir
  Path data;
  private Gateway gateway;
  private int port;
  private int tlsPort;
  private String lb;
  private String appArn;
  private WebSocketTarget chat;
  /** Requests for /held, which the backend answers only when a test does. */
  private final Queue<HttpServerRequest> held = new ConcurrentLinkedQueue<>();

  @BeforeEach
  void start() throws IOException {
    int app = Backend.start(backends, "t", "127.0.0.1", req -> req.body().onSuccess(body -> {
      if (req.path().equals("/held")) {
        held.add(req); // answered when the test says
      } else if (req.path().equals("/health")) {
        req.response().end("ok");
      } else {
        req.response().putHeader("x-got", Integer.toString(body.length())).end("hello from " + req.path());
      }
    })).port();
    chat = WebSocketTarget.start(backends, "chat", null);
    port = Ports.free();
    tlsPort = Ports.free();
    TestCertificates.Pem cert = TestCertificates.pem(Files.createTempDirectory("access-log"), "lb", "lb.example");
    String yaml = """
        data-dir: '%s'
        nodes:
          - {zone: zone-a, address: 127.0.0.1}
        functions:
          raw: {handler: io.fulcrum.function.handlers.RawResponseHandler}
        load-balancers:
          - name: web
            zones: [zone-a]
            attributes:
              access_logs.s3.enabled: "true"
              access_logs.s3.bucket: my-logs
              access_logs.s3.prefix: team/web
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: app}]
                rules:
                  - {priority: 10, conditions: [{field: path-pattern, values: ["/fixed"]}],
                     actions: [{type: fixed-response, status-code: "404", content-type: text/plain, message-body: no}]}
                  - {priority: 20, conditions: [{field: path-pattern, values: ["/old"]}],
                     actions: [{type: redirect, path: "/new", status-code: HTTP_301}]}
                  - {priority: 30, conditions: [{field: path-pattern, values: ["/empty"]}],
                     actions: [{type: forward, target-group: empty}]}
                  - {priority: 40, conditions: [{field: path-pattern, values: ["/raw"]}],
                     actions: [{type: forward, target-group: raw}]}
                  - {priority: 50, conditions: [{field: path-pattern, values: ["/chat"]}],
                     actions: [{type: forward, target-group: chat}]}
                  - priority: 60
                    conditions: [{field: path-pattern, values: ["/rewrite/*"]}]
                    transforms:
                      - {type: url-rewrite, regex: '^/rewrite/(.*)$', replace: '/$1'}
                      - {type: host-header-rewrite, regex: '^web\\.example$', replace: internal.example}
                    actions: [{type: forward, target-group: app}]
                  - priority: 70
                    conditions: [{field: path-pattern, values: ["/badrewrite/*"]}]
                    transforms: [{type: url-rewrite, regex: '^/badrewrite/(.*)$', replace: '$1'}]
                    actions: [{type: forward, target-group: app}]
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: app}]
          - name: quiet
            zones: [zone-a]
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: fixed-response, status-code: "200", content-type: text/plain}]
        target-groups:
          - name: app
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, healthy-threshold-count: 2}
            targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]
          - {name: empty, target-type: ip, protocol: HTTP, port: 80, targets: []}
          - {name: raw, target-type: lambda, targets: [{id: raw}]}
          - name: chat
            target-type: ip
            protocol: HTTP
            port: 80
            health-check: {path: /health, interval-seconds: 10, healthy-threshold-count: 2}
            targets: [{id: 127.0.0.1, port: %d, zone: zone-a}]
        """.formatted(data, port, tlsPort, cert.certificate(), cert.privateKey(), Ports.free(), app, chat.port());
    gateway = Gateway.start(TestVertx.create(), yaml, 2, time);
    Resources resources = gateway.fulcrum().config().resources();
    lb = resources.loadBalancers().stream().filter(l -> l.name().equals("web")).findFirst().orElseThrow().arn();
    appArn = resources.targetGroups().stream().filter(g -> g.name().equals("app")).findFirst().orElseThrow().arn();
    tick();
    tick();
  }

  @AfterEach
  void stop() {
    gateway.close();
    Await.result(backends.close());
  }

  private void tick() {
    time.advance(Duration.ofSeconds(10), () -> gateway.fulcrum().healthChecksInFlight() == 0);
    gateway.awaitDataPlane();
  }

  /** Moves the clock to the end of the current 5-minute period, health checks running on the way. */
  private void endPeriod() {
    long left = LogDestination.periodEnd(time.millis()) - time.millis();
    time.advance(Duration.ofMillis(left), () -> gateway.fulcrum().healthChecksInFlight() == 0);
  }

  /** The bucket's complete log files, once {@code count} are there. */
  private List<Path> files(int count) {
    return LogFiles.await(data.resolve("s3").resolve("my-logs"), count);
  }

  /** A line's fields, in order from 1 as ALB numbers them (index 0 is unused). */
  private static List<String> fields(String line) {
    assertThat(LINE.matcher(line).matches()).as("Athena's pattern reads %s", line).isTrue();
    return LogFiles.fields(line);
  }

  /** The only line whose request field contains {@code part}. */
  private static List<String> line(List<String> lines, String part) {
    List<List<String>> found = lines.stream().map(AccessLogTest::fields).filter(f -> f.get(13).contains(part)).toList();
    assertThat(found).as("lines with %s", part).hasSize(1);
    return found.get(0);
  }

  /** The exact size of a response as it came over the wire. */
  private static int size(RawConnection.Response r) {
    int n = r.statusLine().length() + 2 + 2 + r.body().length;
    for (String[] h : r.headers()) {
      n += h[0].length() + 2 + h[1].length() + 2;
    }
    return n;
  }

  @Test
  void eachRequest_isOneLine_inAlbsFormat_withItsBytesTimingsAndRule() {
    // The direct path: a keep-alive request with a body, its response read to its end.
    String post = "POST /direct?q=1 HTTP/1.1\r\nHost: web.example\r\nUser-Agent: agent \"quoted\"\r\n"
        + "Content-Length: 5\r\nX-Amzn-Trace-Id: Root=1-67891233-abcdef012345678912345678\r\n\r\nhello";
    int directSent;
    int clientPort;
    try (RawConnection c = RawConnection.open("127.0.0.1", port)) {
      RawConnection.Response r = c.send(post).read();
      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("x-got")).isEqualTo("5");
      directSent = size(r);
      clientPort = c.localPort();
    }
    // Vert.x's path (the client closes after it), and the load balancer's own answers.
    String head = "HEAD /vertx HTTP/1.1\r\nHost: web.example\r\nConnection: close\r\n\r\n";
    String headResponse = RawHttp.exchange("127.0.0.1", port, head);
    assertThat(RawHttp.status(headResponse)).isEqualTo(200);
    String fixed = "GET /fixed HTTP/1.1\r\nHost: web.example\r\nConnection: close\r\n\r\n";
    String fixedResponse = RawHttp.exchange("127.0.0.1", port, fixed);
    assertThat(RawHttp.status(fixedResponse)).isEqualTo(404);
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /old?a=b HTTP/1.1\r\nHost: Web.Example\r\nConnection: close\r\n\r\n"))).isEqualTo(301);
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /empty HTTP/1.1\r\nHost: web.example\r\nConnection: close\r\n\r\n"))).isEqualTo(503);
    String xff = String.join(", ", Collections.nCopies(31, "10.0.0.1"));
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /xff HTTP/1.1\r\nHost: web.example\r\nX-Forwarded-For: " + xff + "\r\nConnection: close\r\n\r\n")))
        .isEqualTo(463);
    // Desync mitigation: a request it classifies Acceptable is served (defensive mode), and says so.
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /acceptable HTTP/1.1\r\nHost: web.example\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")))
        .isEqualTo(200);
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /raw HTTP/1.1\r\nHost: web.example\r\nConnection: close\r\n\r\n"))).isEqualTo(502);
    // A rule's transforms: what they gave, and a rewrite that gives no URL (500).
    String rewritten = RawHttp.exchange("127.0.0.1", port,
        "GET /rewrite/x?y=1 HTTP/1.1\r\nHost: web.example\r\nConnection: close\r\n\r\n");
    assertThat(RawHttp.status(rewritten)).isEqualTo(200);
    assertThat(rewritten).endsWith("hello from /x");
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /badrewrite/x HTTP/1.1\r\nHost: web.example\r\nConnection: close\r\n\r\n"))).isEqualTo(500);
    // The other load balancer has no access log.
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", gatewayQuietPort(),
        "GET /quiet HTTP/1.1\r\nHost: q\r\nConnection: close\r\n\r\n"))).isEqualTo(200);
    // HTTP/2 over TLS, from Debian's curl, with a server name.
    Path curl = Interop.require("/usr/bin/curl", "curl");
    Tool.Result h2 = Tool.run(data, Duration.ofSeconds(30), List.of(curl.toString(), "-sk", "--http2", "-A", "curl/h2",
        "--resolve", "lb.example:" + tlsPort + ":127.0.0.1", "-o", "/dev/null", "-w", "%{http_version} %{http_code}",
        "https://lb.example:" + tlsPort + "/h2?x=1"));
    assertThat(h2.output()).isEqualTo("2 200");

    endPeriod();
    List<Path> files = files(1);
    Path file = files.get(0);
    String end = "20260101T0005Z"; // the virtual clock starts at 2026-01-01T00:00Z; the first period ends 5 minutes on
    assertThat(data.relativize(file).toString()).matches(Pattern.quote(
        "s3/my-logs/team/web/AWSLogs/000000000000/elasticloadbalancing/us-east-1/2026/01/01/000000000000"
            + "_elasticloadbalancing_us-east-1_app.web." + lb.substring(lb.lastIndexOf('/') + 1) + "_" + end
            + "_127.0.0.1_") + "[a-z0-9]{8}\\.log\\.gz");
    List<String> lines = LogFiles.lines(file);
    assertThat(lines).hasSize(11);

    String elb = lb.substring(lb.indexOf("loadbalancer/") + "loadbalancer/".length());
    List<String> d = line(lines, "/direct");
    assertThat(d.get(1)).isEqualTo("http");
    assertThat(d.get(2)).matches("2026-01-01T00:00:[0-5][0-9]\\.[0-9]{6}Z");
    assertThat(d.get(3)).isEqualTo(elb);
    assertThat(d.get(4)).isEqualTo("127.0.0.1:" + clientPort);
    assertThat(d.get(5)).isEqualTo("127.0.0.1:" + backendPort());
    assertThat(d.get(6)).matches("[0-9]+\\.[0-9]{3}");
    assertThat(d.get(7)).matches("[0-9]+\\.[0-9]{3}");
    assertThat(d.get(8)).isEqualTo("0.000");
    assertThat(d.subList(9, 13)).containsExactly("200", "200", Integer.toString(post.length()),
        Integer.toString(directSent));
    assertThat(d.get(13)).isEqualTo("POST http://web.example:" + port + "/direct?q=1 HTTP/1.1");
    assertThat(d.get(14)).isEqualTo("agent \\x22quoted\\x22");
    assertThat(d.subList(15, 18)).containsExactly("-", "-", appArn);
    assertThat(d.get(18)).startsWith("Self=1-").endsWith(";Root=1-67891233-abcdef012345678912345678");
    assertThat(d.subList(19, 22)).containsExactly("-", "-", "0");
    assertThat(d.get(22)).matches("2026-01-01T00:00:[0-5][0-9]\\.[0-9]{3}000Z").isLessThanOrEqualTo(d.get(2));
    assertThat(d.subList(23, 30)).containsExactly("forward", "-", "-", "127.0.0.1:" + backendPort(), "200", "-", "-");
    assertThat(d.get(30)).matches("TID_[0-9a-f]{32}");
    assertThat(d.subList(31, 34)).containsExactly("-", "-", "-");
    assertThat(d).hasSize(34);

    List<String> t = line(lines, "/rewrite/x");
    assertThat(t.get(13)).isEqualTo("GET http://web.example:" + port + "/rewrite/x?y=1 HTTP/1.1");
    assertThat(t.subList(31, 34)).containsExactly("internal.example", "/x?y=1", "TRANSFORMED");
    List<String> bad = line(lines, "/badrewrite/x");
    assertThat(bad.get(9)).isEqualTo("500");
    assertThat(bad.subList(31, 34)).containsExactly("-", "-", "FAILED");

    List<String> v = line(lines, "/vertx");
    assertThat(v.subList(9, 13)).containsExactly("200", "200", Integer.toString(head.length()),
        Integer.toString(headResponse.length()));
    assertThat(v.get(13)).isEqualTo("HEAD http://web.example:" + port + "/vertx HTTP/1.1");
    assertThat(v.get(14)).isEqualTo("-");
    assertThat(v.get(30)).isNotEqualTo(d.get(30)); // another connection

    List<String> f = line(lines, "/fixed");
    assertThat(f.subList(5, 13)).containsExactly("-", "-1", "-1", "-1", "404", "-", Integer.toString(fixed.length()),
        Integer.toString(fixedResponse.length()));
    assertThat(f.get(17)).isEqualTo("-");
    assertThat(f.get(21)).isEqualTo("10");
    assertThat(f.subList(23, 28)).containsExactly("fixed-response", "-", "-", "-", "-");

    List<String> r = line(lines, "/old");
    assertThat(r.get(9)).isEqualTo("301");
    assertThat(r.get(13)).isEqualTo("GET http://Web.Example:" + port + "/old?a=b HTTP/1.1");
    assertThat(r.get(21)).isEqualTo("20");
    assertThat(r.subList(23, 25)).containsExactly("redirect", "http://web.example:" + port + "/new?a=b");

    List<String> e = line(lines, "/empty");
    assertThat(e.subList(5, 11)).containsExactly("-", "-1", "-1", "-1", "503", "-");
    assertThat(e.get(17)).contains(":targetgroup/empty/");
    assertThat(e.get(21)).isEqualTo("30");

    List<String> x = line(lines, "/xff");
    assertThat(x.get(9)).isEqualTo("463");
    assertThat(x.get(21)).isEqualTo("-"); // refused before any rule
    assertThat(x.get(23)).isEqualTo("-");

    List<String> a = line(lines, "/acceptable");
    assertThat(a.get(9)).isEqualTo("200");
    assertThat(a.subList(28, 30)).containsExactly("Acceptable", "GetHeadZeroContentLength");
    assertThat(d.subList(28, 30)).containsExactly("-", "-");

    List<String> l = line(lines, "/raw");
    assertThat(l.subList(5, 11)).containsExactly("-", l.get(6), "-1", "-1", "502", "-");
    assertThat(l.get(6)).matches("[0-9]+\\.[0-9]{3}");
    assertThat(l.get(25)).isEqualTo("LambdaInvalidResponse");
    assertThat(l.get(26)).isEqualTo("-");

    List<String> h = line(lines, "/h2");
    assertThat(h.get(1)).isEqualTo("h2");
    assertThat(h.subList(9, 11)).containsExactly("200", "200");
    assertThat(Long.parseLong(h.get(11))).isPositive();
    assertThat(Long.parseLong(h.get(12))).isGreaterThanOrEqualTo("hello from /h2".length());
    assertThat(h.get(13)).isEqualTo("GET https://lb.example:" + tlsPort + "/h2?x=1 HTTP/2.0");
    assertThat(h.get(14)).isEqualTo("curl/h2");
    assertThat(h.get(15)).matches("(ECDHE-RSA-AES128-GCM-SHA256|TLS_AES_128_GCM_SHA256|[A-Z0-9_-]+)");
    assertThat(h.get(16)).matches("TLSv1\\.[23]");
    assertThat(h.get(19)).isEqualTo("lb.example");
    assertThat(h.get(20)).as("chosen_cert_arn").isEqualTo(gateway.fulcrum().config().resources().loadBalancers().stream()
        .filter(b -> b.arn().equals(lb)).findFirst().orElseThrow().listeners().stream().filter(listener -> listener.port() == tlsPort)
        .findFirst().orElseThrow().certificates().get(0).arn());
    assertThat(d.get(20)).as("an HTTP listener's").isEqualTo("-");

    assertThat(lines.stream().anyMatch(s -> s.contains("/quiet"))).isFalse();
  }

  /**
   * A client that resets its connection while its request waits for the target has left: its line
   * says 460 (not the status the target gave later, to nobody), and the target's connection is
   * dropped with it.
   */
  @Test
  void aClientThatResetsItsConnection_beforeItsAnswer_is460() throws Exception {
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.getOutputStream().write("GET /held HTTP/1.1\r\nHost: web.example\r\n\r\n"
          .getBytes(StandardCharsets.US_ASCII));
      await().atMost(Duration.ofSeconds(10)).until(() -> held.size() == 1);
      socket.setSoLinger(true, 0); // closing sends a reset
    }
    HttpServerRequest waiting = held.poll();
    // The target's connection is dropped as the client goes (before any answer).
    await().atMost(Duration.ofSeconds(10)).until(() -> waiting.response().closed());
    endPeriod();
    List<String> h = line(LogFiles.lines(files(1).get(0)), "/held");
    assertThat(h.subList(9, 11)).as("elb and target status").containsExactly("460", "-");
  }

  /** HTTP/2's CONNECT (no :path) is refused, 400, and logged with its authority as the request target. */
  @Test
  void anHttp2Connect_isRefused_andLoggedWithItsAuthority() {
    try (H2Wire wire = H2Wire.connect("127.0.0.1", tlsPort, TestCertificates.trustingAnything(), Map.of())) {
      wire.serverSettings(Duration.ofSeconds(10));
      wire.headers(1, new DefaultHttp2Headers().method("CONNECT").authority("example.com:443"), true);
      assertThat(wire.answer(1, Duration.ofSeconds(10)).status()).isEqualTo("400");
    }
    endPeriod();
    List<String> c = line(LogFiles.lines(files(1).get(0)), "CONNECT");
    assertThat(c.get(1)).isEqualTo("h2");
    assertThat(c.get(9)).isEqualTo("400");
    assertThat(c.get(13)).isEqualTo("CONNECT example.com:443 HTTP/2.0");
  }

  @Test
  void eachPeriod_hasAFileOfItsOwn_andStoppingCompletesTheOpenOne() {
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /first HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n"))).isEqualTo(200);
    endPeriod();
    assertThat(files(1)).hasSize(1);
    time.advance(Duration.ofSeconds(1));
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /second HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n"))).isEqualTo(200);
    endPeriod();
    List<Path> two = files(2);
    assertThat(two.get(0).getFileName().toString()).contains("_20260101T0005Z_");
    assertThat(two.get(1).getFileName().toString()).contains("_20260101T0010Z_");
    assertThat(LogFiles.lines(two.get(0))).singleElement().asString().contains("/first ");
    assertThat(LogFiles.lines(two.get(1))).singleElement().asString().contains("/second ");

    // A period without requests has no file; a gateway that stops completes the file under way.
    endPeriod();
    assertThat(RawHttp.status(RawHttp.exchange("127.0.0.1", port,
        "GET /last HTTP/1.1\r\nHost: web\r\nConnection: close\r\n\r\n"))).isEqualTo(200);
    Await.result(gateway.fulcrum().shutdown());
    List<Path> three = files(3);
    assertThat(three.get(2).getFileName().toString()).contains("_20260101T0020Z_");
    assertThat(LogFiles.lines(three.get(2))).singleElement().asString().contains("/last ");
    try (Stream<Path> s = Files.walk(data.resolve("s3"))) {
      assertThat(s.filter(p -> p.getFileName().toString().endsWith(".tmp"))).isEmpty();
    } catch (IOException ex) {
      throw new UncheckedIOException(ex);
    }
  }

  @Test
  void aWebSocket_isOneLine_writtenWhenItCloses() throws Exception {
    java.util.concurrent.BlockingQueue<String> texts = new java.util.concurrent.LinkedBlockingQueue<>();
    java.util.concurrent.CompletableFuture<Integer> closed = new java.util.concurrent.CompletableFuture<>();
    java.net.http.WebSocket ws = java.net.http.HttpClient.newHttpClient().newWebSocketBuilder()
        .header("User-Agent", "ws-agent")
        .buildAsync(java.net.URI.create("ws://127.0.0.1:" + port + "/chat"), new java.net.http.WebSocket.Listener() {
          @Override
          public java.util.concurrent.CompletionStage<?> onText(java.net.http.WebSocket w, CharSequence data,
              boolean last) {
            texts.add(data.toString());
            w.request(1);
            return null;
          }

          @Override
          public java.util.concurrent.CompletionStage<?> onClose(java.net.http.WebSocket w, int code, String reason) {
            closed.complete(code);
            return null;
          }
        }).get(10, java.util.concurrent.TimeUnit.SECONDS);
    assertThat(texts.poll(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("hello from chat");
    ws.sendText("one", true).join();
    assertThat(texts.poll(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo("one");
    ws.sendClose(java.net.http.WebSocket.NORMAL_CLOSURE, "bye").join();
    assertThat(closed.get(10, java.util.concurrent.TimeUnit.SECONDS)).isEqualTo(java.net.http.WebSocket.NORMAL_CLOSURE);
    // The line is written as the tunnel closes, which the gateway sees a moment after the client.
    try (io.fulcrum.testing.Http http = new io.fulcrum.testing.Http(backends)) {
      await().atMost(Duration.ofSeconds(10))
          .until(() -> Scrape.of(http, gateway.controlPort()).sum("ActiveConnectionCount", Map.of()) == 0);
    }
    endPeriod();
    List<String> w = line(LogFiles.lines(files(1).get(0)), "/chat");
    assertThat(w.get(1)).isEqualTo("ws");
    assertThat(w.get(5)).isEqualTo("127.0.0.1:" + chat.port());
    assertThat(w.subList(9, 11)).containsExactly("101", "101");
    // The handshake, the greeting, "one" both ways and the close frames.
    assertThat(Long.parseLong(w.get(11))).isGreaterThan(100);
    assertThat(Long.parseLong(w.get(12))).isGreaterThan(100);
    assertThat(w.get(13)).isEqualTo("GET http://127.0.0.1:" + port + "/chat HTTP/1.1");
    assertThat(w.get(14)).isEqualTo("ws-agent");
    assertThat(w.subList(21, 24)).containsExactly("50", w.get(22), "forward");
  }

  private int gatewayQuietPort() {
    return gateway.fulcrum().config().resources().loadBalancers().stream().filter(l -> l.name().equals("quiet"))
        .findFirst().orElseThrow().listeners().get(0).port();
  }

  private int backendPort() {
    return gateway.fulcrum().config().resources().targetGroups().stream().filter(g -> g.name().equals("app"))
        .findFirst().orElseThrow().targets().get(0).port();
  }
}
