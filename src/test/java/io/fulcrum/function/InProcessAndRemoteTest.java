package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.bus.ExchangeOutcome;
import io.fulcrum.function.handlers.GreetingHandler;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Outcomes;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One handler class, unchanged, run two ways: in-process, and behind a real HTTP server speaking
 * the Lambda Invoke API. Every request gets the same response from both, byte for byte (status
 * line, headers, body), and the same recorded outcome; with multi-value headers off and on.
 */
class InProcessAndRemoteTest {

  private static final Vertx functions = TestVertx.create();
  private static InvokeApiServer server;
  private static Gateway gateway;
  private static Outcomes outcomes;
  private static int port;

  @BeforeAll
  static void start() {
    server = InvokeApiServer.start(functions).function("greeter", GreetingHandler.class);
    port = Ports.free();
    StringBuilder rules = new StringBuilder();
    StringBuilder groups = new StringBuilder();
    int priority = 1;
    for (String route : List.of("local", "remote", "local-multi", "remote-multi")) {
      rules.append("""
                  - priority: %d
                    conditions: [{field: path-pattern, values: ["/%s/*"]}]
                    actions: [{type: forward, target-group: %s}]
          """.formatted(priority++, route, route));
      groups.append("""
            - name: %s
              target-type: lambda
              attributes: {lambda.multi_value_headers.enabled: "%s"}
              targets: [{id: %s}]
          """.formatted(route, route.endsWith("multi"), route.startsWith("local") ? "greeter" : "greeter-remote"));
    }
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          greeter: {handler: io.fulcrum.function.handlers.GreetingHandler}
          greeter-remote: {endpoint: "%s", function-name: greeter}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: fixed-response, status-code: 404, content-type: text/plain}]
                rules:
        %s
        target-groups:
        %s
        """.formatted(server.endpoint(), port, rules, groups));
    outcomes = Outcomes.record(gateway);
  }

  @AfterAll
  static void stop() {
    outcomes.close();
    gateway.close();
    server.close();
    functions.close();
  }

  private record Exchange(String statusLine, List<String> headers, byte[] body, ExchangeOutcome outcome) {
  }

  private static Exchange send(String method, String route, String rest, byte[] body) {
    ByteArrayOutputStream request = new ByteArrayOutputStream();
    request.writeBytes(("%s /%s/%s HTTP/1.1\r\nHost: greeter.example.com\r\nX-Multi: 1\r\nX-Multi: 2\r\n%s\r\n"
        .formatted(method, route, rest, body == null ? "" : "Content-Type: application/octet-stream\r\nContent-Length: "
            + body.length + "\r\n")).getBytes(StandardCharsets.ISO_8859_1));
    if (body != null) {
      request.writeBytes(body);
    }
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = c.send(request.toByteArray()).read(method.equals("HEAD"));
      List<String> headers = r.headers().stream().map(h -> h[0].toLowerCase() + ": " + h[1])
          .sorted(Comparator.naturalOrder()).toList();
      return new Exchange(r.statusLine(), headers, r.body(), outcomes.next());
    }
  }

  @ParameterizedTest(name = "{0} {1} (multi-value {2})")
  @CsvSource({
      "GET, hello?name=Ada, false", "GET, hello?name=Ada&name=Grace, true", "HEAD, hello, false",
      "POST, echo, false", "POST, echo, true", "GET, cookies, false", "GET, cookies, true", "GET, teapot, false",
      "GET, unknown, true", "GET, fail, false", "GET, fail, true"})
  void sameHandler_inProcessAndBehindTheInvokeApi_givesTheClientTheSameResponse(String method, String rest,
      boolean multi) {
    byte[] body = method.equals("POST") ? new byte[] {0, 1, 2, (byte) 0xff, 'z'} : null;
    String suffix = multi ? "-multi" : "";

    Exchange local = send(method, "local" + suffix, rest, body);
    Exchange remote = send(method, "remote" + suffix, rest, body);

    assertThat(remote.statusLine()).isEqualTo(local.statusLine());
    assertThat(remote.headers()).isEqualTo(local.headers());
    assertThat(remote.body()).isEqualTo(local.body());
    assertThat(remote.outcome().elbStatusCode()).isEqualTo(local.outcome().elbStatusCode());
    assertThat(remote.outcome().targetStatusCode()).isEqualTo(local.outcome().targetStatusCode());
    assertThat(remote.outcome().errorReason()).isEqualTo(local.outcome().errorReason());
    assertThat(local.outcome().target()).as("a Lambda target has no address in the access log").isNull();
    // The answers are the handler's, not a shared failure.
    if (rest.equals("fail")) {
      assertThat(local.statusLine()).isEqualTo("HTTP/1.1 502 Bad Gateway");
      assertThat(local.outcome().errorReason()).isEqualTo("LambdaUnhandled");
    } else {
      assertThat(local.outcome().errorReason()).isNull();
      assertThat(local.outcome().targetStatusCode()).isEqualTo(Integer.parseInt(local.statusLine().substring(9, 12)));
    }
    if (rest.startsWith("hello")) {
      assertThat(local.headers()).contains("x-function: greeter");
    }
  }

  @ParameterizedTest(name = "multi-value {0}")
  @CsvSource({"false", "true"})
  void remoteFunction_getsTheEventAsARequestResponseInvocation(boolean multi) {
    int before = server.invocations.size();
    send("GET", multi ? "remote-multi" : "remote", "hello?name=Ada", null);

    InvokeApiServer.Invocation call = server.invocations.get(before);
    assertThat(call.function()).isEqualTo("greeter");
    assertThat(call.query()).isNull();
    assertThat(call.invocationType()).isEqualTo("RequestResponse");
    assertThat(call.contentType()).isEqualTo("application/json");
    assertThat(call.event().getJsonObject("requestContext").getJsonObject("elb").getString("targetGroupArn"))
        .endsWith(multi ? ":targetgroup/remote-multi/" + idOf("remote-multi") : ":targetgroup/remote/" + idOf("remote"));
    assertThat(call.event().containsKey("multiValueHeaders")).isEqualTo(multi);
    assertThat(call.event().containsKey("headers")).isEqualTo(!multi);
  }

  private static String idOf(String group) {
    String arn = gateway.fulcrum().config().resources().targetGroupByName(group).orElseThrow().arn();
    return arn.substring(arn.lastIndexOf('/') + 1);
  }
}
