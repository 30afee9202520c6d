package io.fulcrum.function;

import static io.fulcrum.testing.ElbAssertions.assertElbPage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.bus.LambdaError;
import io.fulcrum.forward.ElbError;
import io.fulcrum.function.handlers.BlockingHandler;
import io.fulcrum.function.handlers.GreetingHandler;
import io.fulcrum.function.handlers.RawResponseHandler;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Outcomes;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Every Lambda error of SPEC §6.3 provoked for real, in-process and behind the Invoke API: the
 * status and page the client gets, and the {@code error_reason} recorded with the exchange.
 */
class LambdaErrorsTest {

  private static final Vertx functions = TestVertx.create();
  private static InvokeApiServer server;
  private static Gateway gateway;
  private static Outcomes outcomes;
  private static int port;

  /** Route (path prefix and target group) to the function of the registry it invokes. */
  private static final Map<String, String> ROUTES = new LinkedHashMap<>();

  @BeforeAll
  static void start() {
    server = InvokeApiServer.start(functions)
        .function("greeter", GreetingHandler.class)
        .function("raw", RawResponseHandler.class)
        .function("throttled", GreetingHandler.class)
        .function("broken", GreetingHandler.class)
        .function("denied", GreetingHandler.class)
        .function("silent", GreetingHandler.class);
    server.mode("throttled", InvokeApiServer.Mode.THROTTLED);
    server.mode("broken", InvokeApiServer.Mode.SERVICE_ERROR);
    server.mode("denied", InvokeApiServer.Mode.DENIED);
    server.mode("silent", InvokeApiServer.Mode.SILENT);
    String endpoint = server.endpoint();
    String registry = """
        functions:
          greeter: {handler: io.fulcrum.function.handlers.GreetingHandler}
          raw: {handler: io.fulcrum.function.handlers.RawResponseHandler}
          slow: {handler: io.fulcrum.function.handlers.BlockingHandler, timeout-seconds: 1}
          single: {handler: io.fulcrum.function.handlers.BlockingHandler, reserved-concurrency: 1}
          single-slow: {handler: io.fulcrum.function.handlers.BlockingHandler, timeout-seconds: 1, reserved-concurrency: 1}
          r-greeter: {endpoint: "%1$s", function-name: greeter}
          r-raw: {endpoint: "%1$s", function-name: raw}
          r-throttled: {endpoint: "%1$s", function-name: throttled}
          r-broken: {endpoint: "%1$s", function-name: broken}
          r-denied: {endpoint: "%1$s", function-name: denied}
          r-missing: {endpoint: "%1$s", function-name: missing}
          r-silent: {endpoint: "%1$s", function-name: silent, timeout-seconds: 1}
          r-unreachable: {endpoint: "http://127.0.0.1:%2$d"}
        """.formatted(endpoint, Ports.free());
    for (String f : new String[] {"greeter", "raw", "slow", "single", "single-slow", "r-greeter", "r-raw", "r-throttled", "r-broken",
        "r-denied", "r-missing", "r-silent", "r-unreachable"}) {
      ROUTES.put(f, f);
    }
    ROUTES.put("raw-multi", "raw");
    port = Ports.free();
    StringBuilder yaml = new StringBuilder(registry).append("""
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: fixed-response, status-code: 404, content-type: text/plain}]
                rules:
        """.formatted(port));
    int priority = 1;
    for (String route : ROUTES.keySet()) {
      yaml.append("          - {priority: %d, conditions: [{field: path-pattern, values: [\"/%s/*\"]}], actions: [{type: forward, target-group: %s}]}\n"
          .formatted(priority++, route, route));
    }
    yaml.append("target-groups:\n");
    ROUTES.forEach((route, function) -> yaml.append(
        "  - {name: %s, target-type: lambda, attributes: {lambda.multi_value_headers.enabled: \"%s\"}, targets: [{id: %s}]}\n"
            .formatted(route, route.endsWith("-multi"), function)));
    gateway = Gateway.start(TestVertx.create(), yaml.toString());
    outcomes = Outcomes.record(gateway);
  }

  @AfterAll
  static void stop() {
    outcomes.close();
    gateway.close();
    server.close();
    functions.close();
  }

  @BeforeEach
  void holdBlockingInvocations() {
    BlockingHandler.reset();
  }

  @AfterEach
  void releaseBlockingInvocations() {
    BlockingHandler.releaseAll();
  }

  private static RawConnection.Response exchange(byte[] request) {
    try (RawConnection c = RawConnection.open(port)) {
      return c.send(request).read();
    }
  }

  private static RawConnection.Response get(String uri) {
    return exchange(("GET " + uri + " HTTP/1.1\r\nHost: fn.example.com\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
  }

  /** Makes the raw function (in-process or remote) answer with {@code json}. */
  private static RawConnection.Response answer(String route, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(("POST /" + route + "/answer HTTP/1.1\r\nHost: fn.example.com\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + body.length + "\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(body);
    return exchange(out.toByteArray());
  }

  private static void assertFailed(RawConnection.Response r, LambdaError error) {
    assertElbPage(r, error.elbError());
    ExchangeOutcome o = outcomes.next();
    assertThat(o.errorReason()).as("recorded error_reason").isEqualTo(error.code());
    assertThat(o.elbStatusCode()).as("recorded ELB status").isEqualTo(error.status());
    assertThat(o.targetStatusCode()).isEqualTo(-1);
    assertThat(o.loadBalancer()).isEqualTo("lb");
    assertThat(o.targetGroupArn()).contains(":targetgroup/");
  }

  @Test
  void requestBodyOverOneMegabyte_declared_gets413_withoutBeingRead() {
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = c.send("POST /raw/x HTTP/1.1\r\nHost: fn.example.com\r\nContent-Type: text/plain\r\n"
          + "Content-Length: 1048577\r\n\r\n").read();

      assertFailed(r, LambdaError.REQUEST_TOO_LARGE);
      assertThat(r.statusLine()).isEqualTo("HTTP/1.1 413 Request Entity Too Large");
      assertThat(c.closedByServerWithin(5000)).isTrue();
    }
  }

  @Test
  void requestBodyOverOneMegabyte_chunked_gets413() {
    try (RawConnection c = RawConnection.open(port)) {
      c.send("POST /raw/x HTTP/1.1\r\nHost: fn.example.com\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n");
      String chunk = "x".repeat(64 * 1024);
      for (int i = 0; i < 17; i++) {
        c.send(Integer.toHexString(chunk.length()) + "\r\n" + chunk + "\r\n");
      }
      RawConnection.Response r = c.read();

      assertFailed(r, LambdaError.REQUEST_TOO_LARGE);
    }
  }

  @Test
  void requestBodyOfExactlyOneMegabyte_reachesTheFunction() {
    String prefix = "{\"statusCode\":200,\"body\":\"";
    String json = prefix + "y".repeat(1024 * 1024 - prefix.length() - 2) + "\"}";
    assertThat(json.length()).isEqualTo(1024 * 1024);

    RawConnection.Response r = answer("raw", json);

    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).hasSize(1024 * 1024 - prefix.length() - 2);
    assertThat(outcomes.next().errorReason()).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"raw", "r-raw"})
  void responseJsonOverOneMegabyte_gets502(String route) {
    assertFailed(get("/" + route + "/large/" + (1024 * 1024)), LambdaError.RESPONSE_TOO_LARGE);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "hello, not JSON",
      "[200]",
      "{\"body\":\"no status\"}",
      "{\"statusCode\":\"200\"}",
      "{\"statusCode\":null}",
      "{\"statusCode\":200.5}",
      "{\"statusCode\":99}",
      "{\"statusCode\":200,\"headers\":null}",
      "{\"statusCode\":200,\"statusDescription\":null}",
      "{\"statusCode\":200,\"body\":null}",
      "{\"statusCode\":200,\"isBase64Encoded\":null}",
      "{\"statusCode\":200,\"multiValueHeaders\":null}",
      "{\"statusCode\":200,\"headers\":{\"x-flag\":true}}",
      "{\"statusCode\":200,\"headers\":{\"x-count\":3}}",
      "{\"statusCode\":200,\"headers\":{\"x-bad\":\"a\\r\\nb\"}}",
      "{\"statusCode\":200,\"headers\":\"not an object\"}",
      "{\"statusCode\":200,\"isBase64Encoded\":\"yes\"}",
      "{\"statusCode\":200,\"isBase64Encoded\":true,\"body\":\"not base64!\"}"})
  void invalidResponse_gets502_LambdaInvalidResponse(String json) {
    assertFailed(answer("raw", json), LambdaError.INVALID_RESPONSE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"raw-multi", "r-raw"})
  void invalidResponse_gets502_inTheMultiValueFormAndBehindTheInvokeApi(String route) {
    String json = route.endsWith("multi") ? "{\"statusCode\":200,\"multiValueHeaders\":{\"x-one\":\"not a list\"}}"
        : "{\"statusCode\":\"200\"}";
    assertFailed(answer(route, json), LambdaError.INVALID_RESPONSE);
  }

  @ParameterizedTest
  @ValueSource(strings = {"greeter", "r-greeter"})
  void functionThatThrows_gets502_LambdaUnhandled(String route) {
    assertFailed(get("/" + route + "/fail"), LambdaError.UNHANDLED);
  }

  @Test
  void functionRunningPastItsTimeout_gets502_LambdaUnhandled_andItsThreadIsInterrupted() {
    assertFailed(get("/slow/wait"), LambdaError.UNHANDLED);
    assertThat(BlockingHandler.STARTED.availablePermits()).isEqualTo(1);
    await().atMost(Duration.ofSeconds(10)).until(() -> BlockingHandler.INTERRUPTED.get() == 1);
  }

  /**
   * Lambda ends an invocation at its timeout, and the concurrency it held with it: the next
   * invocation of a function with one reserved slot runs (and is not throttled) while the thread
   * of the timed-out one, which ignores its interrupt, still runs.
   */
  @Test
  void invocationPastItsTimeout_freesItsReservedConcurrency_evenWhileItsHandlerRunsOn() {
    assertFailed(get("/single-slow/stubborn"), LambdaError.UNHANDLED);
    await().atMost(Duration.ofSeconds(10)).until(() -> BlockingHandler.INTERRUPTED.get() == 1);

    assertFailed(get("/single-slow/second"), LambdaError.UNHANDLED); // it ran, and ran past its timeout too
    assertThat(BlockingHandler.STARTED.availablePermits()).as("both invocations started").isEqualTo(2);
  }

  @Test
  void invokeApiThrottling_gets502_LambdaThrottling() {
    assertFailed(get("/r-throttled/hello"), LambdaError.THROTTLING);
  }

  @Test
  void invocationsBeyondReservedConcurrency_get502_LambdaThrottling() throws Exception {
    CompletableFuture<RawConnection.Response> first = CompletableFuture.supplyAsync(() -> get("/single/first"));
    assertThat(BlockingHandler.STARTED.tryAcquire(10, TimeUnit.SECONDS)).as("the first invocation runs").isTrue();

    assertFailed(get("/single/second"), LambdaError.THROTTLING);

    BlockingHandler.releaseAll();
    RawConnection.Response r = first.get(10, TimeUnit.SECONDS);
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.bodyText()).isEqualTo("released /single/first");
    assertThat(outcomes.next().errorReason()).isNull();
  }

  @Test
  void invokeApiThatDoesNotAnswerInTime_gets504_LambdaConnectionTimeout() {
    RawConnection.Response r = get("/r-silent/hello");

    assertFailed(r, LambdaError.CONNECTION_TIMEOUT);
    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 504 Gateway Time-out");
  }

  @Test
  void invokeApiThatCannotBeReached_gets502_LambdaConnectionError() {
    assertFailed(get("/r-unreachable/hello"), LambdaError.CONNECTION_ERROR);
  }

  @Test
  void functionTheInvokeApiDoesNotKnow_gets502_LambdaResourceNotFound() {
    assertFailed(get("/r-missing/hello"), LambdaError.RESOURCE_NOT_FOUND);
  }

  @Test
  void invokeApiDenyingTheCall_gets502_LambdaAccessDenied() {
    assertFailed(get("/r-denied/hello"), LambdaError.ACCESS_DENIED);
  }

  @Test
  void invokeApiServiceError_gets502_LambdaServiceException() {
    assertFailed(get("/r-broken/hello"), LambdaError.SERVICE_EXCEPTION);
  }

  @Test
  void textBodyThatIsNotUtf8_gets502_LambdaBadRequest() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes("POST /raw/x HTTP/1.1\r\nHost: fn.example.com\r\nContent-Type: application/json\r\nContent-Length: 3\r\n\r\n"
        .getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(new byte[] {'{', (byte) 0xc3, '}'});

    assertFailed(exchange(out.toByteArray()), LambdaError.BAD_REQUEST);
  }

  @Test
  void headerThatIsNotUtf8_gets502_LambdaBadRequest() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes("GET /greeter/hello HTTP/1.1\r\nHost: fn.example.com\r\nX-Name: ".getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(new byte[] {'J', (byte) 0xfc, 'r', 'g', 'e', 'n'});
    out.writeBytes("\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));

    assertFailed(exchange(out.toByteArray()), LambdaError.BAD_REQUEST);
  }

  @Test
  void utf8HeaderValue_isDecodedForTheFunction() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes("GET /greeter/hello?name=J%C3%BCrgen HTTP/1.1\r\nHost: fn.example.com\r\nX-Name: "
        .getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes("Jürgen\r\n\r\n".getBytes(StandardCharsets.UTF_8));

    RawConnection.Response r = exchange(out.toByteArray());

    assertThat(r.status()).isEqualTo(200);
    assertThat(outcomes.next().errorReason()).isNull();
  }

  @Test
  void webSocketUpgrade_gets400_LambdaWebsocketNotSupported() {
    RawConnection.Response r = exchange(("GET /greeter/socket HTTP/1.1\r\nHost: fn.example.com\r\nUpgrade: websocket\r\n"
        + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
        .getBytes(StandardCharsets.ISO_8859_1));

    assertFailed(r, LambdaError.WEBSOCKET_NOT_SUPPORTED);
    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 400 Bad Request");
  }

  @Test
  void anUpgradeHeaderWithoutConnectionUpgrade_isNoWebSocket_andTheFunctionIsInvoked() {
    RawConnection.Response r = exchange(("GET /greeter/hello HTTP/1.1\r\nHost: fn.example.com\r\n"
        + "Upgrade: websocket\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));

    assertThat(r.status()).isEqualTo(200);
    assertThat(outcomes.next().errorReason()).isNull();
  }

  @Test
  void successfulInvocation_recordsTheFunctionsStatus_andNoErrorReason() {
    RawConnection.Response r = get("/greeter/teapot");

    assertThat(r.status()).isEqualTo(418);
    ExchangeOutcome o = outcomes.next();
    assertThat(o.elbStatusCode()).isEqualTo(418);
    assertThat(o.targetStatusCode()).isEqualTo(418);
    assertThat(o.errorReason()).isNull();
    assertThat(o.target()).isNull();
    assertThat(o.method()).isEqualTo("GET");
    assertThat(o.uri()).isEqualTo("/greeter/teapot");
  }

  @Test
  void everyLambdaErrorPage_isOneOfAlbsFourStatuses() {
    for (LambdaError e : LambdaError.values()) {
      assertThat(e.elbError()).isIn(ElbError.LAMBDA_REQUEST_TOO_LARGE, ElbError.LAMBDA_FAILED, ElbError.LAMBDA_TIMEOUT,
          ElbError.LAMBDA_WEBSOCKET);
      assertThat(e.code()).startsWith("Lambda");
    }
  }
}
