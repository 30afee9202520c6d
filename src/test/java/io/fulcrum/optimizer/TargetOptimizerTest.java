package io.fulcrum.optimizer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.groups.Tuple.tuple;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.H2Wire;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.VirtualTime;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.HostAndPort;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Tool;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The target optimizer end to end (SPEC §9): applications that hold every request until the test
 * lets them answer, each behind Fulcrum's own agent, and Fulcrum with a target group whose
 * {@code TargetControlPort} is the agents' control port. The two targets are on 127.0.0.1 and
 * 127.0.0.2, so that both agents listen on the same control port, as a target group requires.
 */
class TargetOptimizerTest {

  private final Vertx backends = TestVertx.create();
  private final HttpClient client = backends.createHttpClient(new PoolOptions().setHttp1MaxSize(16));
  private final VirtualTime time = new VirtualTime();
  private Gateway gateway;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  /**
   * An application that holds each request until released, and records the most it held at once;
   * health checks it answers at once.
   */
  static final class HeldApp {
    final String name;
    final LinkedBlockingQueue<HttpServerRequest> held = new LinkedBlockingQueue<>();
    final AtomicInteger current = new AtomicInteger();
    final AtomicInteger peak = new AtomicInteger();
    final AtomicInteger healthChecks = new AtomicInteger();
    final Map<HttpServerRequest, String> bodies = new java.util.concurrent.ConcurrentHashMap<>();
    HttpServer server;

    HeldApp(Vertx vertx, String name) {
      this.name = name;
      server = Await.result(vertx.createHttpServer().requestHandler(req -> {
        String agent = req.getHeader("user-agent");
        if (agent != null && agent.startsWith("ELB-HealthChecker")) {
          healthChecks.incrementAndGet();
          req.response().end("healthy"); // health checks pass through the agent too, and are not held
          return;
        }
        peak.accumulateAndGet(current.incrementAndGet(), Math::max);
        req.response().closeHandler(v -> { });
        req.body().onSuccess(b -> {
          bodies.put(req, b.toString());
          held.add(req);
        });
      }).listen(0, "127.0.0.1"));
    }

    int port() {
      return server.actualPort();
    }

    /** Answers the oldest held request with the app's name and the body it read; returns that body. */
    String releaseOne() throws InterruptedException {
      HttpServerRequest req = held.poll(10, TimeUnit.SECONDS);
      assertThat(req).as("a request held by " + name).isNotNull();
      String body = bodies.remove(req);
      current.decrementAndGet();
      req.response().end(name + " " + body);
      return body;
    }
  }

  private TargetControlAgent agent(String ip, int dataPort, int controlPort, HeldApp app, int max) {
    TargetControlAgent agent = new TargetControlAgent(new TargetControlAgent.Settings(HostAndPort.create(ip, dataPort),
        HostAndPort.create(ip, controlPort), HostAndPort.create("127.0.0.1", app.port()), max, null));
    Await.result(backends.deployVerticle(agent));
    return agent;
  }

  private Gateway gateway(int port, int controlPort, String attributes, int... dataPorts) {
    return gateway(port, controlPort, attributes, "{}", dataPorts);
  }

  private Gateway gateway(int port, int controlPort, String attributes, String healthCheck, int... dataPorts) {
    return Gateway.start(TestVertx.create(), config(port, controlPort, attributes, healthCheck, dataPorts), 1, time);
  }

  /** The listener on {@code port} and the group of targets 127.0.0.1, 127.0.0.2, ... on {@code dataPorts}. */
  private static String config(int port, int controlPort, String attributes, String healthCheck, int... dataPorts) {
    // h2c: HTTP/2 clients in cleartext too (Fulcrum's extension), for the HTTP/2 test
    StringBuilder targets = new StringBuilder();
    for (int i = 0; i < dataPorts.length; i++) {
      targets.append("      - {id: 127.0.0.").append(i + 1).append(", port: ").append(dataPorts[i]).append("}\n");
    }
    return """
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                h2c: true
                default-actions: [{type: forward, target-group: gpu}]
        target-groups:
          - name: gpu
            target-type: ip
            protocol: HTTP
            port: 80
            target-control-port: %d
            attributes: {%s}
            health-check: %s
            targets:
        %s""".formatted(port, controlPort, attributes, healthCheck, targets);
  }

  /** One target: a held application behind its agent of maximum {@code max}, Fulcrum before it. */
  private record One(HeldApp app, int control, int data, int port, TargetControlAgent agent) {
  }

  /** {@link One} with the group's attributes and health check, once Fulcrum holds the agent's credits. */
  private One one(int max, String attributes, String healthCheck) {
    HeldApp app = new HeldApp(backends, "a");
    int control = Ports.free();
    int data = Ports.free();
    TargetControlAgent agent = agent("127.0.0.1", data, control, app, max);
    int port = Ports.free();
    gateway = gateway(port, control, attributes, healthCheck, data);
    awaitCredits("127.0.0.1", data, max);
    return new One(app, control, data, port, agent);
  }

  private String groupArn() {
    return gateway.fulcrum().registry().resources().targetGroups().get(0).arn();
  }

  /** Waits until the agent of the target at {@code ip:port} has granted Fulcrum {@code credits}. */
  private void awaitCredits(String ip, int port, int credits) {
    await().atMost(Duration.ofSeconds(10)).untilAsserted(() ->
        assertThat(gateway.fulcrum().targetControl().agent(groupArn(), ip + ":" + port))
            .isEqualTo(new TargetControlVerticle.AgentState(true, credits, credits, 0)));
  }

  private Future<HttpClientResponse> send(int port, HttpMethod method, String uri, String body) {
    return client.request(new RequestOptions().setMethod(method).setHost("127.0.0.1").setPort(port).setURI(uri))
        .compose(req -> (body == null ? req.send() : req.send(Buffer.buffer(body)))
            .compose(resp -> resp.body().map(b -> resp)));
  }

  private static String bodyOf(Future<HttpClientResponse> f) {
    return Await.result(f.compose(HttpClientResponse::body)).toString();
  }

  /** The target {@code ip:port} as the dashboard's state document shows it. */
  private JsonObject dashboardTarget(String ip, int port) {
    try (Http http = new Http(backends)) {
      JsonObject state = new JsonObject(http.get(gateway.controlPort(), "/ui/state").body());
      JsonObject group = state.getJsonArray("loadBalancers").getJsonObject(0).getJsonArray("targetGroups")
          .getJsonObject(0);
      assertThat(group.getInteger("targetControlPort")).isPositive();
      return group.getJsonArray("targets").stream().map(JsonObject.class::cast)
          .filter(t -> t.getString("id").equals(ip) && t.getInteger("port") == port).findFirst().orElseThrow();
    }
  }

  private double metric(String name) {
    try (Http http = new Http(backends)) {
      return Scrape.of(http, gateway.controlPort()).sum(name, Map.of());
    }
  }

  @Test
  void optimizer_givesEachTargetAtMostItsConcurrency_andAnswers503AtOnceWhenNoneHasRoom() throws Exception {
    HeldApp a = new HeldApp(backends, "a");
    HeldApp b = new HeldApp(backends, "b");
    int control = Ports.free();
    int dataA = Ports.free();
    int dataB = Ports.free();
    agent("127.0.0.1", dataA, control, a, 1);
    agent("127.0.0.2", dataB, control, b, 1);
    int port = Ports.free();
    gateway = gateway(port, control, "", dataA, dataB);
    awaitCredits("127.0.0.1", dataA, 1);
    awaitCredits("127.0.0.2", dataB, 1);

    Future<HttpClientResponse> first = send(port, HttpMethod.GET, "/1", null);
    Future<HttpClientResponse> second = send(port, HttpMethod.GET, "/2", null);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.held.size() == 1 && b.held.size() == 1);

    JsonObject target = dashboardTarget("127.0.0.1", dataA);
    assertThat(target.getJsonObject("agent").getMap()).containsExactlyInAnyOrderEntriesOf(
        Map.of("connected", true, "credits", 0, "maxConcurrency", 1, "inFlight", 0));

    // Both agents are at their maximum: the third request is shed at once, not queued.
    HttpClientResponse third = Await.result(send(port, HttpMethod.GET, "/3", null));
    assertThat(third.statusCode()).isEqualTo(503);
    assertThat(first.isComplete()).isFalse();

    a.releaseOne();
    Await.result(Future.any(first, second));
    Future<HttpClientResponse> answered = first.isComplete() ? first : second;
    assertThat(bodyOf(answered)).startsWith("a ");
    awaitCredits("127.0.0.1", dataA, 1); // the agent has room again and said so
    Future<HttpClientResponse> fourth = send(port, HttpMethod.GET, "/4", null);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.held.size() == 1);
    a.releaseOne();
    b.releaseOne();
    assertThat(Await.result(fourth).statusCode()).isEqualTo(200);
    assertThat(Await.result(second).statusCode()).isEqualTo(200);

    assertThat(a.peak.get()).isEqualTo(1);
    assertThat(b.peak.get()).isEqualTo(1);
    assertThat(metric("TargetControlRequestCount")).isEqualTo(3);
    assertThat(metric("TargetControlRequestRejectCount")).isEqualTo(1);
    assertThat(metric("HTTPCode_ELB_503_Count")).isEqualTo(1);
    assertThat(metric("TargetControlActiveChannelCount")).isEqualTo(2);
    assertThat(metric("TargetControlNewChannelCount")).isEqualTo(2);
    assertThat(metric("TargetControlChannelErrorCount")).isZero();
    assertThat(metric("TargetControlProcessedBytes")).isPositive();
  }

  @Test
  void optimizer_queuedRequestWaitsForRoom_withItsBodyIntact() throws Exception {
    One one = one(1, "fulcrum.target_optimizer.queue_timeout_ms: 30000", "{}");
    HeldApp a = one.app();
    int port = one.port();

    Future<HttpClientResponse> first = send(port, HttpMethod.POST, "/1", "first body");
    await().atMost(Duration.ofSeconds(10)).until(() -> a.held.size() == 1);
    Future<HttpClientResponse> second = send(port, HttpMethod.POST, "/2", "second body, which waited");
    await().atMost(Duration.ofSeconds(10)).until(() -> metric("TargetControlWorkQueueLength") == 1);
    assertThat(second.isComplete()).isFalse();

    assertThat(a.releaseOne()).isEqualTo("first body");
    assertThat(bodyOf(first)).isEqualTo("a first body");
    assertThat(a.releaseOne()).isEqualTo("second body, which waited");
    assertThat(bodyOf(second)).isEqualTo("a second body, which waited");
    assertThat(a.peak.get()).isEqualTo(1);
    assertThat(metric("TargetControlWorkQueueLength")).isZero();
    assertThat(metric("TargetControlRequestRejectCount")).isZero();
    assertThat(metric("TargetControlRequestCount")).isEqualTo(2);
  }

  @Test
  void optimizer_queuedRequestGets503_whenNoRoomComesInTime() throws Exception {
    One one = one(1, "fulcrum.target_optimizer.queue_timeout_ms: 200", "{}");
    HeldApp a = one.app();
    int port = one.port();

    Future<HttpClientResponse> first = send(port, HttpMethod.GET, "/1", null);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.held.size() == 1);
    HttpClientResponse second = Await.result(send(port, HttpMethod.GET, "/2", null));
    assertThat(second.statusCode()).isEqualTo(503);
    assertThat(metric("TargetControlRequestRejectCount")).isEqualTo(1);
    assertThat(metric("TargetControlWorkQueueLength")).isZero();
    a.releaseOne();
    assertThat(Await.result(first).statusCode()).isEqualTo(200);
  }

  @Test
  void optimizer_agentGone_voidsItsCredits_andTheChannelOpensAgainWhenItIsBack() throws Exception {
    One one = one(2, "", "{}");
    HeldApp a = one.app();
    int control = one.control();
    int data = one.data();
    int port = one.port();
    TargetControlAgent first = one.agent();

    Await.result(backends.undeploy(first.deploymentID()));
    await().atMost(Duration.ofSeconds(10)).until(() -> !gateway.fulcrum().targetControl()
        .agent(groupArn(), "127.0.0.1:" + data).connected());
    assertThat(Await.result(send(port, HttpMethod.GET, "/gone", null)).statusCode()).isEqualTo(503);
    assertThat(metric("TargetControlChannelErrorCount")).isEqualTo(1);
    assertThat(metric("TargetControlActiveChannelCount")).isZero();

    agent("127.0.0.1", data, control, a, 2);
    time.advance(Duration.ofMillis(TargetControlVerticle.FIRST_BACKOFF_MILLIS));
    awaitCredits("127.0.0.1", data, 2);
    Future<HttpClientResponse> back = send(port, HttpMethod.GET, "/back", null);
    a.releaseOne();
    assertThat(Await.result(back).statusCode()).isEqualTo(200);
    assertThat(metric("TargetControlNewChannelCount")).isEqualTo(2);

    // The journal has the channel's story, on the control plane's clock.
    try (Http http = new Http(backends)) {
      List<JsonObject> events = new JsonObject(http.get(gateway.controlPort(), "/ui/events").body())
          .getJsonArray("events").stream().map(JsonObject.class::cast)
          .filter(e -> e.getString("type").equals("TargetControlChannel")).toList();
      assertThat(events).extracting(e -> e.getString("targetGroup"), e -> e.getString("target"), e -> e.getString("to"))
          .containsExactly(tuple("gpu", "127.0.0.1:" + data, "open"), tuple("gpu", "127.0.0.1:" + data, "down"),
              tuple("gpu", "127.0.0.1:" + data, "open"));
      assertThat(events.get(0).getString("description")).isEqualTo("agent at 127.0.0.1:" + control
          + ", max concurrency 2");
      assertThat(events.get(1).getString("description")).contains("Stream was closed");
    }
  }

  @Test
  void healthChecksThroughTheAgent_useNoCredit_soFulcrumNeverHoldsMoreThanTheMaximum() throws Exception {
    One one = one(1, "", "{interval-seconds: 5, timeout-seconds: 2}");
    HeldApp a = one.app();
    int data = one.data();
    int port = one.port();

    for (int i = 0; i < 4; i++) {
      int checks = a.healthChecks.get();
      time.advance(Duration.ofSeconds(5));
      await().atMost(Duration.ofSeconds(10)).until(() -> a.healthChecks.get() > checks);
      awaitCredits("127.0.0.1", data, 1); // each check was in flight at the agent, then done
    }
    Future<HttpClientResponse> held = send(port, HttpMethod.GET, "/1", null);
    await().atMost(Duration.ofSeconds(10)).until(() -> a.held.size() == 1);
    assertThat(Await.result(send(port, HttpMethod.GET, "/2", null)).statusCode()).isEqualTo(503);
    a.releaseOne();
    assertThat(Await.result(held).statusCode()).isEqualTo(200);
    assertThat(a.peak.get()).isEqualTo(1);
  }

  @Test
  void creditOfARequestThatNeverReachedTheTarget_isGivenBack() throws Exception {
    HeldApp a = new HeldApp(backends, "a");
    int control = Ports.free();
    agent("127.0.0.1", Ports.free(), control, a, 1);
    int nothing = Ports.free(); // the target's traffic port: nothing listens there
    int port = Ports.free();
    gateway = gateway(port, control, "", nothing);
    awaitCredits("127.0.0.1", nothing, 1);

    assertThat(Await.result(send(port, HttpMethod.GET, "/refused", null)).statusCode()).isEqualTo(502);
    awaitCredits("127.0.0.1", nothing, 1);
    assertThat(Await.result(send(port, HttpMethod.GET, "/again", null)).statusCode()).isEqualTo(502);
    assertThat(metric("TargetControlRequestRejectCount")).isZero();
  }

  /**
   * A target whose TLS handshake fails (an HTTPS group in front of the agent's plain HTTP port): the
   * request never reached it, so its credit is given back, and the next request is refused by the
   * target too (502), not shed for want of a credit (503).
   */
  @Test
  void creditOfARequestWhoseTlsHandshakeFailed_isGivenBack() throws Exception {
    HeldApp a = new HeldApp(backends, "a");
    int control = Ports.free();
    int data = Ports.free();
    agent("127.0.0.1", data, control, a, 1);
    int port = Ports.free();
    String yaml = config(port, control, "", "{protocol: HTTP}", data);
    assertThat(yaml).contains("    protocol: HTTP\n    port: 80\n");
    gateway = Gateway.start(TestVertx.create(),
        yaml.replace("    protocol: HTTP\n    port: 80\n", "    protocol: HTTPS\n    port: 80\n"),
        1, time);
    awaitCredits("127.0.0.1", data, 1);

    assertThat(Await.result(send(port, HttpMethod.GET, "/tls", null)).statusCode()).isEqualTo(502);
    awaitCredits("127.0.0.1", data, 1);
    assertThat(Await.result(send(port, HttpMethod.GET, "/again", null)).statusCode()).isEqualTo(502);
    assertThat(metric("TargetControlRequestRejectCount")).isZero();
    assertThat(a.held).as("no request reached the application").isEmpty();
  }

  /**
   * Requests queued behind one whose connection to the target failed take the credit it gave back
   * at once: three requests read together (HTTP/2 streams in one write), the first takes the one
   * credit and the others wait; each is refused by the target in turn (502), none waits out its
   * time for a grant the agent has no reason to send (503).
   */
  @Test
  void queuedRequests_takeACreditGivenBack_atOnce() throws Exception {
    HeldApp a = new HeldApp(backends, "a");
    int control = Ports.free();
    agent("127.0.0.1", Ports.free(), control, a, 1);
    int nothing = Ports.free(); // the target's traffic port: nothing listens there
    int port = Ports.free();
    gateway = gateway(port, control, "fulcrum.target_optimizer.queue_timeout_ms: 30000", nothing);
    awaitCredits("127.0.0.1", nothing, 1);

    try (H2Wire wire = H2Wire.connect("127.0.0.1", port, null, Map.of())) {
      java.io.ByteArrayOutputStream together = new java.io.ByteArrayOutputStream();
      for (int stream : new int[] {1, 3, 5}) {
        together.write(H2Wire.headersFrame(stream,
            wire.encode(H2Wire.request("GET", "http", "127.0.0.1:" + port, "/" + stream)), true));
      }
      wire.write(together.toByteArray());
      for (int stream : new int[] {1, 3, 5}) {
        assertThat(wire.answer(stream, Duration.ofSeconds(10)).status()).as("stream %d", stream).isEqualTo("502");
      }
    }
    assertThat(metric("TargetControlRequestRejectCount")).isZero();
  }

  @Test
  void http2Clients_spendCreditsToo_andTheAgentGetsThemBack() throws Exception {
    One one = one(1, "", "{}");
    HeldApp a = one.app();
    int data = one.data();
    int port = one.port();
    HttpClient h2 = backends.createHttpClient(new io.vertx.core.http.HttpClientOptions()
        .setProtocolVersion(io.vertx.core.http.HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false));

    for (int i = 0; i < 3; i++) {
      Future<HttpClientResponse> call = h2.request(new RequestOptions().setHost("127.0.0.1").setPort(port)
          .setURI("/h2/" + i)).compose(req -> req.send().compose(resp -> resp.body().map(b -> resp)));
      await().atMost(Duration.ofSeconds(10)).until(() -> a.held.size() == 1);
      assertThat(Await.result(send(port, HttpMethod.GET, "/meanwhile", null)).statusCode()).isEqualTo(503);
      a.releaseOne();
      HttpClientResponse resp = Await.result(call);
      assertThat(resp.statusCode()).isEqualTo(200);
      assertThat(resp.version()).isEqualTo(io.vertx.core.http.HttpVersion.HTTP_2);
      awaitCredits("127.0.0.1", data, 1);
    }
    assertThat(a.peak.get()).isEqualTo(1);
    assertThat(metric("TargetControlRequestCount")).isEqualTo(3);
    assertThat(metric("TargetControlRequestRejectCount")).isEqualTo(3);
  }

  @Test
  void deregisteredTarget_losesItsChannel_andItsAgentTakesBackTheCredits() throws Exception {
    HeldApp a = new HeldApp(backends, "a");
    HeldApp b = new HeldApp(backends, "b");
    int control = Ports.free();
    int dataA = Ports.free();
    int dataB = Ports.free();
    agent("127.0.0.1", dataA, control, a, 1);
    TargetControlAgent agentB = agent("127.0.0.2", dataB, control, b, 1);
    int port = Ports.free();
    gateway = gateway(port, control, "", dataA, dataB);
    awaitCredits("127.0.0.2", dataB, 1);
    assertThat(agentB.openChannels()).isEqualTo(1);

    gateway.reload(config(port, control, "", "{}", dataA));

    await().atMost(Duration.ofSeconds(10)).until(() -> agentB.openChannels() == 0);
    assertThat(gateway.fulcrum().targetControl().agent(groupArn(), "127.0.0.2:" + dataB)).isNull();
    assertThat(metric("TargetControlActiveChannelCount")).isEqualTo(1);
    for (int i = 0; i < 2; i++) {
      Future<HttpClientResponse> r = send(port, HttpMethod.GET, "/" + i, null);
      a.releaseOne();
      assertThat(Await.result(r).statusCode()).isEqualTo(200);
      awaitCredits("127.0.0.1", dataA, 1);
    }
    assertThat(b.peak.get()).isZero();
  }

  @Test
  void dashboardPage_drawsEachTargetsAgent(@TempDir Path dir) throws Exception {
    Path node = Interop.require("/usr/bin/node", "nodejs");
    HeldApp a = new HeldApp(backends, "a");
    int control = Ports.free();
    int data = Ports.free();
    int gone = Ports.free();
    agent("127.0.0.1", data, control, a, 3);
    int port = Ports.free();
    gateway = gateway(port, control, "", data, gone); // nothing listens for 127.0.0.2's agent
    awaitCredits("127.0.0.1", data, 3);

    String page;
    String state;
    String events;
    String explain;
    String whatIf;
    try (Http http = new Http(backends)) {
      page = http.get(gateway.controlPort(), "/ui").body();
      state = http.get(gateway.controlPort(), "/ui/state").body();
      events = http.get(gateway.controlPort(), "/ui/events").body();
      explain = http.get(gateway.controlPort(), "/ui/explain?port=" + port + "&path=/x").body();
      whatIf = http.get(gateway.controlPort(), "/ui/what-if?targetGroup=gpu&fail=127.0.0.1:" + data).body();
    }
    List<Path> files = new java.util.ArrayList<>();
    String[][] contents = {{"dashboard.html", page}, {"state.json", state}, {"events.json", events},
        {"explain.json", explain}, {"whatif.json", whatIf}};
    for (String[] f : contents) {
      files.add(Files.writeString(dir.resolve(f[0]), f[1]));
    }
    Path render = Path.of(TargetOptimizerTest.class.getResource("/ui/render.js").toURI());
    List<String> command = new java.util.ArrayList<>(List.of(node.toString(), render.toString()));
    files.forEach(f -> command.add(f.toString()));
    command.add("127.0.0.1:" + data);

    Tool.Result r = Tool.run(dir, Duration.ofSeconds(30), command);

    assertThat(r.exitCode()).as(r.output()).isZero();
    assertThat(r.output()).contains("target optimizer (control port " + control + ")").doesNotContain("undefined")
        .containsSubsequence("Reason Agent", "127.0.0.1:" + data,
            "3 credits here, max 3 (0 in flight at its last message)", "127.0.0.2:" + gone, "no channel");
  }
}
