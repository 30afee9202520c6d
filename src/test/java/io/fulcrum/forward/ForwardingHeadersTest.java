package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.GatewayConfigs;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Response;
import io.fulcrum.testing.RawTarget;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * What a real target receives (SPEC §11.1, §11.2): X-Forwarded-For in each mode, X-Forwarded-Proto
 * and -Port, X-Amzn-Trace-Id, and the Host rules. Requests are sent with a raw client, so that the
 * exact header bytes, the client port and the request form are under the test's control.
 */
class ForwardingHeadersTest {

  private static final String ID = "[0-9a-f]{8}-[0-9a-f]{24}";

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private Backend backend;
  private int port;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
  }

  private void start(Map<String, String> attributes) {
    backend = Backend.start(backends, "b");
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), GatewayConfigs.forwarding(port, attributes, backend.port()));
  }

  /** Sends {@code request} (which must leave the connection open) and returns what the target received. */
  private JsonObject received(String request) {
    try (RawConnection c = RawConnection.open(port)) {
      Response r = c.send(request).read();
      assertThat(r.status()).as("status").isEqualTo(200);
    }
    assertThat(backend.received()).hasSize(1);
    return backend.lastRequest();
  }

  private String receivedHeader(String request, String name) {
    return received(request).getJsonObject("headers").getString(name);
  }

  private static String get(String extraHeaders) {
    return "GET /p HTTP/1.1\r\nHost: example.com\r\n" + extraHeaders + "\r\n";
  }

  // X-Forwarded-For

  static Stream<Arguments> xffCases() {
    return Stream.of(
        Arguments.of("append", false, null, "127.0.0.1"),
        Arguments.of("append", false, "10.0.0.1, 10.0.0.2", "10.0.0.1, 10.0.0.2, 127.0.0.1"),
        Arguments.of("append", true, null, "127.0.0.1:{port}"),
        Arguments.of("append", true, "10.0.0.1", "10.0.0.1, 127.0.0.1:{port}"),
        Arguments.of("preserve", false, "10.0.0.1, 10.0.0.2", "10.0.0.1, 10.0.0.2"),
        Arguments.of("preserve", false, null, null),
        Arguments.of("preserve", true, "10.0.0.1", "10.0.0.1"),
        Arguments.of("remove", false, "10.0.0.1, 10.0.0.2", null),
        Arguments.of("remove", true, null, null));
  }

  @ParameterizedTest(name = "mode {0}, client port {1}, incoming {2} -> {3}")
  @MethodSource("xffCases")
  void xForwardedFor_followsTheProcessingMode(String mode, boolean clientPort, String incoming, String expected) {
    start(Map.of("routing.http.xff_header_processing.mode", mode,
        "routing.http.xff_client_port.enabled", Boolean.toString(clientPort)));

    String forwarded;
    int clientPortNumber;
    try (RawConnection c = RawConnection.open(port)) {
      clientPortNumber = c.localPort();
      Response r = c.send(get(incoming == null ? "" : "X-Forwarded-For: " + incoming + "\r\n")).read();
      assertThat(r.status()).isEqualTo(200);
      forwarded = backend.lastRequest().getJsonObject("headers").getString("x-forwarded-for");
    }

    assertThat(forwarded).isEqualTo(expected == null ? null : expected.replace("{port}", Integer.toString(clientPortNumber)));
  }

  // X-Forwarded-Proto and -Port

  @Test
  void xForwardedProtoAndPort_sayHttpAndTheListenerPort_replacingWhatTheClientSent() {
    start(Map.of());

    JsonObject headers = received(get("X-Forwarded-Proto: https\r\nX-Forwarded-Port: 443\r\n")).getJsonObject("headers");

    assertThat(headers.getString("x-forwarded-proto")).isEqualTo("http");
    assertThat(headers.getString("x-forwarded-port")).isEqualTo(Integer.toString(port));
  }

  // X-Amzn-Trace-Id

  @Test
  void traceId_isCreatedWithARoot_whenNoneArrives() {
    start(Map.of());
    long before = Instant.now().getEpochSecond();

    String trace = receivedHeader(get(""), "x-amzn-trace-id");

    Matcher m = Pattern.compile("Root=1-([0-9a-f]{8})-[0-9a-f]{24}").matcher(trace);
    assertThat(m.matches()).as(trace).isTrue();
    long seconds = Long.parseLong(m.group(1), 16);
    assertThat(seconds).isBetween(before - 1, Instant.now().getEpochSecond() + 1);
  }

  @Test
  void traceId_getsSelfInsertedBeforeAnExistingRoot_keepingCustomFields() {
    start(Map.of());

    String trace = receivedHeader(
        get("X-Amzn-Trace-Id: Root=1-67891233-abcdef012345678912345678;CalledFrom=app\r\n"), "x-amzn-trace-id");

    assertThat(trace).matches("Self=1-" + ID + ";Root=1-67891233-abcdef012345678912345678;CalledFrom=app");
  }

  @Test
  void traceId_getsSelfUpdated_whenSelfIsPresent() {
    start(Map.of());
    String oldSelf = "Self=1-00000000-000000000000000000000000";

    String trace = receivedHeader(get("X-Amzn-Trace-Id: " + oldSelf
        + ";Root=1-67891233-abcdef012345678912345678;CalledFrom=app\r\n"), "x-amzn-trace-id");

    assertThat(trace).matches("Self=1-" + ID + ";Root=1-67891233-abcdef012345678912345678;CalledFrom=app");
    assertThat(trace).doesNotContain(oldSelf);
  }

  @Test
  void traceId_isReplacedByAFreshRoot_whenTheHeadersExceed7Kb() {
    start(Map.of());

    String trace = receivedHeader(get("X-Amzn-Trace-Id: Root=1-67891233-abcdef012345678912345678;CalledFrom=app\r\n"
        + "X-Padding: " + "p".repeat(7 * 1024) + "\r\n"), "x-amzn-trace-id");

    assertThat(trace).matches("Root=1-" + ID);
  }

  // Host

  static Stream<Arguments> hostCases() {
    return Stream.of(
        Arguments.of("lower-cased, listener port appended", false, "Host: Example.COM\r\n", "example.com:{listener}"),
        Arguments.of("a port the client gave is kept", false, "Host: Example.COM:8080\r\n", "example.com:8080"),
        Arguments.of("preserve_host_header keeps it unchanged", true, "Host: Example.COM\r\n", "Example.COM"),
        Arguments.of("preserve_host_header keeps a port unchanged", true, "Host: Example.COM:8080\r\n",
            "Example.COM:8080"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("hostCases")
  void host_isRewrittenPerTheHostRules(String what, boolean preserve, String hostHeader, String expected) {
    start(Map.of("routing.http.preserve_host_header.enabled", Boolean.toString(preserve)));

    String host = receivedHeader("GET /p HTTP/1.1\r\n" + hostHeader + "\r\n", "host");

    assertThat(host).isEqualTo(expected.replace("{listener}", Integer.toString(port)));
  }

  @Test
  void host_comesFromAnAbsoluteFormUri_andTheTargetGetsOriginForm() {
    start(Map.of());

    JsonObject r = received("GET http://Other.Example:8888/p/q?x=1&y=2 HTTP/1.1\r\nHost: ignored.example\r\n\r\n");

    assertThat(r.getJsonObject("headers").getString("host")).isEqualTo("other.example:8888");
    assertThat(r.getString("uri")).isEqualTo("/p/q?x=1&y=2");
  }

  @Test
  void host_fromAnAbsoluteFormUriWithoutPort_getsTheListenerPort() {
    start(Map.of());

    JsonObject r = received("GET http://other.example/p HTTP/1.1\r\nHost: ignored.example\r\n\r\n");

    assertThat(r.getJsonObject("headers").getString("host")).isEqualTo("other.example:" + port);
    assertThat(r.getString("uri")).isEqualTo("/p");
  }

  @Test
  void host_isTheLoadBalancerDnsName_forAnHttp10RequestWithoutHost() {
    start(Map.of());
    String dnsName = gateway.fulcrum().config().resources().loadBalancers().get(0).dnsName();

    JsonObject r;
    try (RawConnection c = RawConnection.open(port)) {
      Response response = c.send("GET /p HTTP/1.0\r\n\r\n").read();
      assertThat(response.status()).isEqualTo(200);
      r = backend.lastRequest();
    }

    assertThat(r.getJsonObject("headers").getString("host")).isEqualTo(dnsName + ":" + port);
  }
}
