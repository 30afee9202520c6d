package io.fulcrum.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.DnsProbe;
import io.fulcrum.testing.FulcrumProcess;
import io.fulcrum.testing.Interop;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's first minute, from the packaged jar: {@code java -jar target/fulcrum.jar} with no
 * arguments, from the project root, runs the demo in {@code conf/fulcrum.yaml} on its fixed ports.
 */
class DemoRunIT {

  private static final Set<String> DEMO_TARGETS = Set.of("web-a1", "web-a2", "web-a3", "web-a4", "web-b1", "web-b2",
      "web-b3", "web-b4");

  @TempDir
  Path work;

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private FulcrumProcess fulcrum;

  @BeforeEach
  void startTheDemoExactlyAsTheReadmeSays() {
    requireFree("127.0.0.1", 8080, "the demo listener in zone-a");
    requireFree("127.0.0.2", 8080, "the demo listener in zone-b");
    requireFree("127.0.0.1", 8443, "the demo HTTPS listener in zone-a");
    requireFree("127.0.0.2", 8443, "the demo HTTPS listener in zone-b");
    requireFree("127.0.0.1", 9090, "the demo control plane");
    requireFreeUdp("127.0.0.1", 8053, "the demo DNS responder");
    for (int p = 9101; p <= 9104; p++) {
      requireFree("127.0.0.1", p, "a demo target in zone-a");
    }
    for (int p = 9201; p <= 9204; p++) {
      requireFree("127.0.0.2", p, "a demo target in zone-b");
    }
    // No --config: the default conf/fulcrum.yaml, relative to the working directory.
    // The file's DNS port too (FulcrumProcess otherwise picks a free one).
    // Its own data dir: the demo's API-owned state must not come from (or go into) the checkout's data/.
    fulcrum = FulcrumProcess.builder(work).directory(FulcrumProcess.projectRoot()).env("FULCRUM_DNS__PORT", null)
        .env("FULCRUM_DATA_DIR", work.resolve("data").toString()).start();
    fulcrum.waitReady(9090);
  }

  @AfterEach
  void stop() {
    if (fulcrum != null) {
      fulcrum.close();
    }
  }

  @Test
  void curlLocalhost8080_isAnsweredByADemoTarget() throws Exception {
    HttpResponse<String> r = get("http://localhost:8080/");

    assertThat(r.statusCode()).as(fulcrum.describe()).isEqualTo(200);
    JsonObject body = new JsonObject(r.body());
    assertThat(body.getString("target")).isIn(DEMO_TARGETS);
    assertThat(body.getString("uri")).isEqualTo("/");
  }

  @Test
  void demoRequests_areSpreadOverSeveralTargets() throws Exception {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < 16; i++) {
      HttpResponse<String> r = get("http://127.0.0.1:8080/");
      assertThat(r.statusCode()).isEqualTo(200);
      seen.add(new JsonObject(r.body()).getString("target"));
    }
    assertThat(seen).isSubsetOf(DEMO_TARGETS).hasSizeGreaterThan(1);
  }

  @Test
  void aWebSocketThroughTheDemoListener_isEchoedByADemoTarget() throws Exception {
    BlockingQueue<String> got = new LinkedBlockingQueue<>();
    WebSocket ws = http.newWebSocketBuilder().buildAsync(URI.create("ws://localhost:8080/chat"), new WebSocket.Listener() {
      @Override
      public CompletionStage<?> onText(WebSocket socket, CharSequence data, boolean last) {
        got.add(data.toString());
        socket.request(1);
        return null;
      }
    }).get(10, TimeUnit.SECONDS);

    String greeting = got.poll(10, TimeUnit.SECONDS);
    assertThat(greeting).as(fulcrum.describe()).matches("connected to web-a\\d \\(zone-a\\)");
    ws.sendText("hello", true).get(10, TimeUnit.SECONDS);
    assertThat(got.poll(10, TimeUnit.SECONDS)).isEqualTo(greeting.split(" ")[2] + ": hello");
    ws.sendClose(WebSocket.NORMAL_CLOSURE, "").get(10, TimeUnit.SECONDS);
  }

  @Test
  void zoneBNode_127_0_0_2_answersToo() throws Exception {
    HttpResponse<String> r = get("http://127.0.0.2:8080/");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(r.body()).getString("target")).isIn(DEMO_TARGETS);
  }

  @Test
  void demoRules_answerPingAndRedirectOldPaths() throws Exception {
    HttpResponse<String> ping = get("http://127.0.0.1:8080/ping");
    assertThat(ping.statusCode()).isEqualTo(200);
    assertThat(ping.body()).isEqualTo("pong\n");

    HttpResponse<String> old = get("http://127.0.0.1:8080/old/page");
    assertThat(old.statusCode()).isEqualTo(301);
    assertThat(old.headers().firstValue("Location")).hasValue("http://new.127.0.0.1:8080/old/page");
  }

  @Test
  void demoFunction_answersLambdaPathsWithTheAlbEventItReceived() throws Exception {
    HttpResponse<String> r = get("http://localhost:8080/lambda/hi?a=1&a=2");

    assertThat(r.statusCode()).as(fulcrum.describe()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    JsonObject event = new JsonObject(r.body());
    assertThat(event.getString("path")).isEqualTo("/lambda/hi");
    assertThat(event.getJsonObject("queryStringParameters").getString("a")).isEqualTo("2");
    assertThat(event.getJsonObject("headers").getString("host")).isEqualTo("localhost:8080");
    assertThat(event.getJsonObject("requestContext").getJsonObject("elb").getString("targetGroupArn"))
        .contains(":targetgroup/lambda/");
  }

  @Test
  void banner_listsEveryUrlAndEndsWithWhatToTry() {
    fulcrum.waitForStdout("Try:");
    String out = fulcrum.stdout();

    assertThat(out).contains("Fulcrum is ready", "config conf/fulcrum.yaml",
        "http://127.0.0.1:8080/ (zone-a)", "http://127.0.0.2:8080/ (zone-b)",
        "http://127.0.0.1:9090/health/ready", "targetgroup/web/", "8 embedded backends",
        "zones:  zone-a (127.0.0.1)  zone-b (127.0.0.2)",
        "dns            udp://127.0.0.1:8053  (try: dig @127.0.0.1 -p 8053 demo.us-east-1.elb.localhost +short)");
    List<String> lines = out.strip().lines().toList();
    int tryLine = lines.indexOf("Try:");
    assertThat(lines.subList(tryLine, lines.size())).hasSize(4);
    assertThat(lines.get(tryLine + 1)).isEqualTo("  curl -s http://127.0.0.1:8080/");
    assertThat(lines.get(tryLine + 2)).isEqualTo("  export AWS_ACCESS_KEY_ID=AKIAFULCRUMDEMO00001"
        + " AWS_SECRET_ACCESS_KEY=fulcrum-demo-secret AWS_DEFAULT_REGION=us-east-1");
    assertThat(lines.get(tryLine + 3)).startsWith("  aws --endpoint-url http://127.0.0.1:9090 elbv2"
        + " describe-target-health --target-group-arn arn:aws:elasticloadbalancing:us-east-1:000000000000:targetgroup/web/");
  }

  /** The banner's last two lines, pasted into a shell: the real aws CLI sees the eight demo targets. */
  @Test
  void theBannersAwsCommand_pastedAsItIs_describesTheDemoTargets() throws Exception {
    Interop.require("/usr/bin/aws", "awscli");
    fulcrum.waitForStdout("Try:");
    List<String> lines = fulcrum.stdout().strip().lines().toList();
    String script = lines.get(lines.size() - 2).strip() + "\n" + lines.get(lines.size() - 1).strip() + " --output json\n";
    Path out = work.resolve("aws.out");
    ProcessBuilder pb = new ProcessBuilder("/bin/sh", "-c", script).redirectOutput(out.toFile())
        .redirectError(work.resolve("aws.err").toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("AWS_"));
    pb.environment().put("AWS_CONFIG_FILE", work.resolve("no-aws-config").toString());
    pb.environment().put("AWS_SHARED_CREDENTIALS_FILE", work.resolve("no-aws-credentials").toString());
    pb.environment().put("PATH", "/usr/bin:/bin");
    Process p = pb.start();
    try {
      assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("aws finished").isTrue();
      assertThat(p.exitValue()).as("aws's exit code; stderr: %s", Files.readString(work.resolve("aws.err")))
          .isZero();
      JsonObject answer = new JsonObject(Files.readString(out, StandardCharsets.UTF_8));
      assertThat(answer.getJsonArray("TargetHealthDescriptions")).hasSize(8);
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void theRealCurl_getsADemoTarget() throws Exception {
    Path curl = Interop.require("/usr/bin/curl", "curl");
    Path out = work.resolve("curl.out");
    Process p = new ProcessBuilder(curl.toString(), "-s", "--max-time", "10", "localhost:8080/")
        .redirectOutput(out.toFile()).redirectErrorStream(true).start();
    try {
      assertThat(p.waitFor(20, TimeUnit.SECONDS)).as("curl finished").isTrue();
      String body = Files.readString(out, StandardCharsets.UTF_8);
      assertThat(p.exitValue()).as("curl's exit code; it printed: %s", body).isZero();
      assertThat(new JsonObject(body).getString("target")).isIn(DEMO_TARGETS);
    } finally {
      p.destroyForcibly();
    }
  }

  @Test
  void theRealCurl_getsADemoTargetOverHttp2_onHttps8443_andOnH2c8080() {
    Path curl = Interop.require("/usr/bin/curl", "curl");
    for (String[] args : new String[][] {{"-k", "--http2", "https://localhost:8443/"},
        {"--http2-prior-knowledge", "http://localhost:8080/"}}) {
      List<String> cmd = new java.util.ArrayList<>(List.of(curl.toString(), "-s", "--max-time", "10", "-w",
          "\\n%{http_version}"));
      cmd.addAll(List.of(args));
      io.fulcrum.testing.Tool.Result r = io.fulcrum.testing.Tool.run(work, Duration.ofSeconds(20), cmd);
      assertThat(r.exitCode()).as("curl %s printed: %s", List.of(args), r.output()).isZero();
      List<String> out = r.output().lines().toList();
      assertThat(out.get(out.size() - 1)).as("HTTP version of %s", List.of(args)).isEqualTo("2");
      assertThat(new JsonObject(String.join("\n", out.subList(0, out.size() - 1))).getString("target"))
          .isIn(DEMO_TARGETS);
    }
  }

  @Test
  void theRealCurl_readsTheMetrics_withTheDemoRequestsCounted() throws Exception {
    Path curl = Interop.require("/usr/bin/curl", "curl");
    for (int i = 0; i < 3; i++) {
      assertThat(get("http://127.0.0.1:8080/").statusCode()).isEqualTo(200);
    }
    assertThat(get("http://127.0.0.1:8080/ping").statusCode()).isEqualTo(200);

    io.fulcrum.testing.Tool.Result r = io.fulcrum.testing.Tool.run(work, Duration.ofSeconds(20),
        List.of(curl.toString(), "-s", "--max-time", "10", "127.0.0.1:9090/metrics"));

    assertThat(r.exitCode()).as("curl printed: %s", r.output()).isZero();
    io.fulcrum.testing.Scrape metrics = io.fulcrum.testing.Scrape.parse(r.output());
    assertThat(metrics.sum("RequestCount", java.util.Map.of("AvailabilityZone", "zone-a"))).isEqualTo(3);
    assertThat(metrics.sum("HTTP_Fixed_Response_Count", java.util.Map.of())).isEqualTo(1);
    assertThat(metrics.has("HealthyHostCount", java.util.Map.of("AvailabilityZone", "zone-b"))).isTrue();
  }

  @Test
  void demoName_resolvesThroughTheDnsResponderOnPort8053_toBothNodes() throws Exception {
    // The JDK's own DNS client (JNDI). Until every zone has a healthy target (the first checks are
    // spread over 5 s), a zone with none is out of DNS, unless no zone has one (fail-open).
    await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
        assertThat(DnsProbe.jdk("127.0.0.1", 8053, "demo.us-east-1.elb.localhost", "A"))
            .containsExactlyInAnyOrder("127.0.0.1", "127.0.0.2"));
  }

  private HttpResponse<String> get(String url) throws IOException, InterruptedException {
    return http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static void requireFreeUdp(String host, int port, String what) {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(InetAddress.getByName(host), port))) {
      s.setReuseAddress(false);
    } catch (IOException e) {
      fail("DemoRunIT needs the demo's fixed UDP port " + host + ":" + port + " (" + what + "), but it is busy ("
          + e.getMessage() + "). Stop whatever listens there (another Fulcrum?) and run again.");
    }
  }

  private static void requireFree(String host, int port, String what) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getByName(host), port));
    } catch (IOException e) {
      fail("DemoRunIT needs the demo's fixed port " + host + ":" + port + " (" + what + "), but it is busy ("
          + e.getMessage() + "). Stop whatever listens there (another Fulcrum?) and run again.");
    }
  }
}
