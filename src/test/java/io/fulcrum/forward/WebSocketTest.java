package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.WebSocketTarget;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import javax.net.ssl.SSLContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * WebSockets through the load balancer, as ALB carries them: the upgrade goes to a target chosen
 * like any request's, with the load balancer's headers; a 101 makes the client's connection a
 * tunnel to that target for the rest of its life (text, binary, control frames, close codes, the
 * subprotocol the target picked), with back-pressure both ways; a target that declines answers like
 * any request; the idle timeout, a deregistered target's cut and least outstanding requests apply
 * to the tunnel. Real Vert.x WebSocket targets, the JDK's WebSocket client.
 */
class WebSocketTest {

  private final Vertx backends = TestVertx.create();
  private final List<WebSocketTarget> targets = new CopyOnWriteArrayList<>();
  /** Every WebSocket the test opened, aborted at the end. */
  private final List<WebSocket> opened = new CopyOnWriteArrayList<>();
  private Gateway gateway;
  private RawTarget raw;
  private int port;

  @AfterEach
  void tearDown() {
    // A tunnel still open would hold the gateway's graceful shutdown until its timeout.
    opened.forEach(WebSocket::abort);
    if (gateway != null) {
      gateway.close();
    }
    if (raw != null) {
      raw.close();
    }
    backends.close();
    System.clearProperty("fulcrum.directPath");
  }

  /**
   * One load balancer with the listener {@code listener} (its protocol, port and certificates)
   * forwarding to the target group {@code tg} of {@code groupProtocol} over {@code targetPorts},
   * which leave with no deregistration delay.
   */
  private static String config(String listener, int idleSeconds, String groupProtocol, String algorithm,
      int... targetPorts) {
    StringBuilder targets = new StringBuilder();
    for (int p : targetPorts) {
      targets.append("      - {id: 127.0.0.1, port: ").append(p).append("}\n");
    }
    return """
        load-balancers:
          - name: lb
            attributes: {idle_timeout.timeout_seconds: "%d"}
            listeners:
              - {%s, default-actions: [{type: forward, target-group: tg}]}
        target-groups:
          - name: tg
            target-type: ip
            protocol: %s
            port: 80
            health-check: {protocol: %3$s, path: /health, interval-seconds: 30}
            attributes: {load_balancing.algorithm.type: %s, deregistration_delay.timeout_seconds: "0"}
            targets:
        %s""".formatted(idleSeconds, listener, groupProtocol, algorithm, targets);
  }

  private static String http(int port) {
    return "protocol: HTTP, port: " + port;
  }

  private WebSocketTarget target(String id, PemKeyCertOptions tls) {
    WebSocketTarget t = WebSocketTarget.start(backends, id, tls);
    targets.add(t);
    return t;
  }

  private void gateway(String yaml) {
    gateway = Gateway.start(TestVertx.create(), yaml);
  }

  private void gatewayTo(int... targetPorts) {
    port = Ports.free();
    gateway(config(http(port), 60, "HTTP", "round_robin", targetPorts));
  }

  /** What a JDK WebSocket client received. */
  private static final class Received implements WebSocket.Listener {
    final BlockingQueue<Object> messages = new LinkedBlockingQueue<>();
    /** "code reason" of the close frame the client got, or the error that ended the connection. */
    final CompletableFuture<String> closed = new CompletableFuture<>();
    private StringBuilder text = new StringBuilder();
    private ByteArrayOutputStream binary = new ByteArrayOutputStream();

    @Override
    public void onOpen(WebSocket ws) {
      ws.request(1);
    }

    @Override
    public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
      text.append(data);
      if (last) {
        messages.add(text.toString());
        text = new StringBuilder();
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onBinary(WebSocket ws, ByteBuffer data, boolean last) {
      byte[] b = new byte[data.remaining()];
      data.get(b);
      binary.writeBytes(b);
      if (last) {
        messages.add(binary.toByteArray());
        binary = new ByteArrayOutputStream();
      }
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onPong(WebSocket ws, ByteBuffer message) {
      messages.add("pong " + StandardCharsets.UTF_8.decode(message));
      ws.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket ws, int statusCode, String reason) {
      closed.complete(statusCode + " " + reason);
      return null;
    }

    @Override
    public void onError(WebSocket ws, Throwable error) {
      closed.completeExceptionally(error);
    }

    Object next() {
      try {
        Object m = messages.poll(10, TimeUnit.SECONDS);
        assertThat(m).as("a message within 10 s").isNotNull();
        return m;
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }

    String nextText() {
      return (String) next();
    }
  }

  private WebSocket open(String uri, Received received, SSLContext tls, String... subprotocols) {
    HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5));
    if (tls != null) {
      client.sslContext(tls);
    }
    WebSocket.Builder b = client.build().newWebSocketBuilder();
    if (subprotocols.length > 0) {
      b.subprotocols(subprotocols[0], java.util.Arrays.copyOfRange(subprotocols, 1, subprotocols.length));
    }
    try {
      WebSocket ws = b.buildAsync(URI.create(uri), received).get(10, TimeUnit.SECONDS);
      opened.add(ws);
      return ws;
    } catch (ExecutionException e) {
      throw e.getCause() instanceof RuntimeException r ? r : new CompletionException(e.getCause());
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  private WebSocket open(String path, Received received) {
    return open("ws://127.0.0.1:" + port + path, received, null);
  }

  /**
   * How the client's connection ended without a close frame from the target: the JDK reports a
   * connection closed under it as close code 1006 (RFC 6455 §7.1.5) or as an error.
   */
  private static String cutUnder(Received r) {
    try {
      String ended = r.closed.get(15, TimeUnit.SECONDS);
      assertThat(ended).startsWith("1006");
      return ended;
    } catch (ExecutionException e) {
      return "error " + e.getCause();
    } catch (InterruptedException | TimeoutException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String closedWith(Received r) {
    try {
      return r.closed.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  @ParameterizedTest(name = "direct path {0}, h2c {1}")
  @CsvSource({"true, false", "false, false", "true, true"})
  void upgrade_becomesATunnelToTheTarget_withTheLoadBalancersHeadersAndTheTargetsSubprotocol(boolean directPath,
      boolean h2c) {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    WebSocketTarget a = target("a", null);
    port = Ports.free();
    gateway(config(http(port) + (h2c ? ", h2c: true" : ""), 60, "HTTP", "round_robin", a.port()));
    Received got = new Received();

    WebSocket ws = open("ws://127.0.0.1:" + port + "/chat?room=1", got, null, "chat", "superchat");

    assertThat(ws.getSubprotocol()).isEqualTo("superchat");
    assertThat(got.nextText()).isEqualTo("hello from a");
    ws.sendText("one", true).join();
    assertThat(got.nextText()).isEqualTo("one");
    ws.sendText("two, in ", false).join();
    ws.sendText("two frames", true).join();
    assertThat(got.nextText()).isEqualTo("two, in two frames");
    byte[] payload = new byte[200_000];
    new Random(7).nextBytes(payload);
    ws.sendBinary(ByteBuffer.wrap(payload), true).join();
    assertThat((byte[]) got.next()).isEqualTo(payload);
    ws.sendPing(ByteBuffer.wrap("are you there".getBytes(StandardCharsets.UTF_8))).join();
    assertThat(got.next()).isEqualTo("pong are you there");

    JsonObject seen = a.handshakes().get(0);
    assertThat(seen.getString("uri")).isEqualTo("/chat?room=1");
    assertThat(seen.getString("upgrade")).isEqualToIgnoringCase("websocket");
    assertThat(seen.getString("connection")).isEqualToIgnoringCase("upgrade");
    assertThat(seen.getString("sec-websocket-protocol")).isEqualTo("chat, superchat");
    assertThat(seen.getString("x-forwarded-for")).isEqualTo("127.0.0.1");
    assertThat(seen.getString("x-forwarded-proto")).isEqualTo("http");
    assertThat(seen.getString("x-forwarded-port")).isEqualTo(Integer.toString(port));
    assertThat(seen.getString("x-amzn-trace-id")).startsWith("Root=1-");
    assertThat(seen.getString("host")).isEqualTo("127.0.0.1:" + port);

    ws.sendClose(1000, "done").join();
    assertThat(closedWith(got)).isEqualTo("1000 done");
    assertThat(a.nextClose()).isEqualTo("1000 done");
  }

  @Test
  void largeTransfersBothWays_arriveWholeAndInOrder() throws Exception {
    gatewayTo(target("a", null).port());
    Received got = new Received();
    WebSocket ws = open("/", got);
    assertThat(got.nextText()).isEqualTo("hello from a");

    // 8 MB up and back in one message, then 2,000 messages of 8 KB (16 MB) down to a client that takes
    // them one at a time.
    byte[] big = new byte[8 << 20];
    new Random(3).nextBytes(big);
    ws.sendBinary(ByteBuffer.wrap(big), true).join();
    assertThat(MessageDigest.getInstance("SHA-256").digest((byte[]) got.next()))
        .isEqualTo(MessageDigest.getInstance("SHA-256").digest(big));

    ws.sendText("stream 2000", true).join();
    byte[][] expected = WebSocketTarget.streamed(2000);
    for (int i = 0; i < expected.length; i++) {
      assertThat((byte[]) got.next()).as("message %d", i).isEqualTo(expected[i]);
    }
    ws.sendText("still here", true).join();
    assertThat(got.nextText()).isEqualTo("still here");
  }

  @Test
  void targetClosing_passesItsCloseFrameOn_andClosesTheClient() {
    WebSocketTarget a = target("a", null);
    gatewayTo(a.port());
    Received got = new Received();
    WebSocket ws = open("/", got);
    assertThat(got.nextText()).isEqualTo("hello from a");

    ws.sendText("close", true).join();

    assertThat(closedWith(got)).isEqualTo("4000 bye");
    // The JDK's client answers the close with its code, as RFC 6455 has it; the target gets that answer.
    assertThat(a.nextClose()).startsWith("4000 ");
    await().atMost(Duration.ofSeconds(10)).until(ws::isOutputClosed);
  }

  @Test
  void targetDecliningTheUpgrade_isAnsweredLikeAnyRequest_andTheConnectionStaysHttp() {
    gatewayTo(target("a", null).port());

    assertThatThrownBy(() -> open("/deny", new Received()))
        .cause().isInstanceOf(WebSocketHandshakeException.class)
        .satisfies(e -> assertThat(((WebSocketHandshakeException) e).getResponse().statusCode()).isEqualTo(403));

    try (RawConnection c = RawConnection.open(port)) {
      Response refused = c.send(handshake("/deny")).read();
      assertThat(refused.status()).isEqualTo(403);
      Response next = c.send("GET /plain HTTP/1.1\r\nHost: lb\r\n\r\n").read();
      assertThat(next.status()).isEqualTo(200);
      assertThat(next.bodyText()).isEqualTo("ok a");
    }
  }

  private static String handshake(String path) {
    return "GET " + path + " HTTP/1.1\r\nHost: lb\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n"
        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n";
  }

  @Test
  void bytesRightBehindThe101_reachTheClient_andTheTargetsCloseEndsTheTunnel() {
    // A target that writes its 101, a first frame and its close in one go.
    String head = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
    String frame = "\u0081\u0005hello";
    raw = RawTarget.start(backends, RawTarget.answerAndClose(head + frame));
    gatewayTo(raw.port());

    try (RawConnection c = RawConnection.open(port)) {
      String got = c.send(handshake("/")).readUntilClosed();

      assertThat(got).startsWith("HTTP/1.1 101 Switching Protocols\r\n").endsWith("\r\n\r\n" + frame);
      assertThat(got).containsIgnoringCase("\r\nupgrade: websocket\r\n")
          .containsIgnoringCase("\r\nconnection: upgrade\r\n")
          .contains("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n");
    }
    assertThat(raw.heads().get(0)).contains("\r\nConnection: Upgrade\r\n").contains("\r\nUpgrade: websocket\r\n");
  }

  @Test
  void a101ToAnotherProtocol_is502() {
    raw = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 101 Switching Protocols\r\nUpgrade: h2c\r\n"
        + "Connection: Upgrade\r\n\r\n"));
    gatewayTo(raw.port());

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(handshake("/")).read();
      io.fulcrum.testing.ElbAssertions.assertElbPage(r, ElbError.TARGET_MALFORMED);
    }
  }

  @Test
  void anUpgradeToSomethingElse_isAnOrdinaryRequest_withoutItsUpgradeHeader() {
    raw = RawTarget.start(backends, RawTarget.answer("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"));
    gatewayTo(raw.port());

    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send("GET / HTTP/1.1\r\nHost: lb\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n").read();
      assertThat(r.status()).isEqualTo(200);
    }
    assertThat(raw.heads().get(0)).doesNotContainIgnoringCase("upgrade");
  }

  @Test
  void aTunnelWithNothingEitherWayForTheIdleTimeout_isClosed() {
    WebSocketTarget a = target("a", null);
    port = Ports.free();
    gateway(config(http(port), 1, "HTTP", "round_robin", a.port()));
    Received got = new Received();
    open("/", got);
    assertThat(got.nextText()).isEqualTo("hello from a");

    // No close frame from anyone: the load balancer closes both connections.
    cutUnder(got);
    a.nextClose();
  }

  @Test
  void leastOutstandingRequests_countsEachOpenTunnel_untilItCloses() {
    Map<String, WebSocketTarget> byGreeting =
        Map.of("hello from a", target("a", null), "hello from b", target("b", null));
    port = Ports.free();
    gateway(config(http(port), 60, "HTTP", "least_outstanding_requests", byGreeting.get("hello from a").port(),
        byGreeting.get("hello from b").port()));

    Received first = new Received();
    WebSocket ws1 = open("/", first);
    String firstTarget = first.nextText();
    Received second = new Received();
    open("/", second);
    String secondTarget = second.nextText();
    assertThat(secondTarget).as("the other target has no tunnel open").isNotEqualTo(firstTarget);

    ws1.sendClose(1000, "").join();
    closedWith(first);
    byGreeting.get(firstTarget).nextClose();
    for (int i = 0; i < 3; i++) {
      Received next = new Received();
      WebSocket ws = open("/", next);
      assertThat(next.nextText()).as("the target whose tunnel closed has none open").isEqualTo(firstTarget);
      ws.sendClose(1000, "").join();
      closedWith(next);
      byGreeting.get(firstTarget).nextClose();
    }
  }

  @Test
  void aDeregisteredTargetsTunnels_areCutWhenItsDelayIsOver() {
    WebSocketTarget a = target("a", null);
    WebSocketTarget b = target("b", null);
    port = Ports.free();
    gateway(config(http(port), 60, "HTTP", "round_robin", a.port(), b.port()));
    Received onA = null;
    for (int i = 0; i < 2; i++) {
      Received r = new Received();
      open("/", r);
      if (r.nextText().equals("hello from a")) {
        onA = r;
      }
    }
    assertThat(onA).isNotNull();

    gateway.reload(config(http(port), 60, "HTTP", "round_robin", b.port())); // a leaves, with a delay of 0
    gateway.awaitDataPlane();

    cutUnder(onA);
    a.nextClose();
  }

  @Test
  void gracefulShutdown_letsAnOpenTunnelRunForTheShutdownTimeout_thenClosesIt() {
    WebSocketTarget a = target("a", null);
    port = Ports.free();
    gateway(config(http(port), 60, "HTTP", "round_robin", a.port()).replace("load-balancers:",
        "shutdown: {timeout-seconds: 3}\nload-balancers:"));
    Received got = new Received();
    WebSocket ws = open("/", got);
    assertThat(got.nextText()).isEqualTo("hello from a");

    var shutdown = gateway.fulcrum().shutdown();
    ws.sendText("still served while the listener drains", true).join();
    assertThat(got.nextText()).isEqualTo("still served while the listener drains");

    io.fulcrum.testing.Await.result(shutdown);
    cutUnder(got);
    a.nextClose();
  }

  @Test
  void wss_overAnHttpsListener_toAnHttpsTarget() throws Exception {
    Path dir = Files.createTempDirectory("wss");
    TestCertificates.Pem lb = TestCertificates.pem(dir, "lb", "127.0.0.1");
    TestCertificates.Pem target = TestCertificates.pem(dir, "target", "127.0.0.1");
    WebSocketTarget a = target("a", new PemKeyCertOptions().setCertPath(target.certificate().toString())
        .setKeyPath(target.privateKey().toString()));
    port = Ports.free();
    gateway(config("protocol: HTTPS, port: %d, certificates: [{certificate: '%s', private-key: '%s'}]"
        .formatted(port, lb.certificate(), lb.privateKey()), 60, "HTTPS", "round_robin", a.port()));
    Received got = new Received();

    WebSocket ws = open("wss://127.0.0.1:" + port + "/secure", got,
        TestCertificates.trusting(TestCertificates.read(lb.certificate())));

    assertThat(got.nextText()).isEqualTo("hello from a");
    ws.sendText("over TLS twice", true).join();
    assertThat(got.nextText()).isEqualTo("over TLS twice");
    assertThat(a.handshakes().get(0).getString("x-forwarded-proto")).isEqualTo("https");
    ws.sendClose(1000, "").join();
    closedWith(got);
  }

}
