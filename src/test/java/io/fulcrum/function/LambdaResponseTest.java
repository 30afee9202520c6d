package io.fulcrum.function;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.RawConnection.Framing;
import io.fulcrum.testing.TestVertx;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The response a client gets from a function's answer (SPEC §6.2): status and reason phrase,
 * single-value or multi-value headers as the target group says, hop-by-hop headers dropped,
 * Content-Length computed, base64 bodies decoded, and a bare {@code {"statusCode":200}}.
 */
class LambdaResponseTest {

  private static Gateway gateway;
  private static int port;

  @BeforeAll
  static void start() {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          greeter: {handler: io.fulcrum.function.handlers.GreetingHandler}
          raw: {handler: io.fulcrum.function.handlers.RawResponseHandler}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: greeter}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: ["/multi/*"]}], actions: [{type: forward, target-group: greeter-multi}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: ["/raw/*"]}], actions: [{type: forward, target-group: raw}]}
                  - {priority: 3, conditions: [{field: path-pattern, values: ["/raw-multi/*"]}], actions: [{type: forward, target-group: raw-multi}]}
        target-groups:
          - {name: greeter, target-type: lambda, targets: [{id: greeter}]}
          - {name: greeter-multi, target-type: lambda, attributes: {lambda.multi_value_headers.enabled: "true"}, targets: [{id: greeter}]}
          - {name: raw, target-type: lambda, targets: [{id: raw}]}
          - {name: raw-multi, target-type: lambda, attributes: {lambda.multi_value_headers.enabled: "true"}, targets: [{id: raw}]}
        """.formatted(port));
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  private static RawConnection.Response get(RawConnection c, String uri) {
    return c.send("GET " + uri + " HTTP/1.1\r\nHost: fn.example.com\r\n\r\n").read();
  }

  /** Makes the raw function answer with {@code json}. */
  private static RawConnection.Response answer(String route, String json) {
    byte[] body = json.getBytes(StandardCharsets.UTF_8);
    try (RawConnection c = RawConnection.open(port)) {
      return c.send(("POST /" + route + "/answer HTTP/1.1\r\nHost: fn.example.com\r\nContent-Type: application/json\r\n"
          + "Content-Length: " + body.length + "\r\n\r\n" + json).getBytes(StandardCharsets.UTF_8)).read();
    }
  }

  @Test
  void statusDescription_isTheReasonPhrase_andContentLengthIsComputed() {
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = get(c, "/hello?name=Ada");

      assertThat(r.statusLine()).isEqualTo("HTTP/1.1 200 OK");
      assertThat(r.header("Content-Type")).isEqualTo("text/plain; charset=utf-8");
      assertThat(r.framing()).isEqualTo(Framing.CONTENT_LENGTH);
      assertThat(r.header("Content-Length")).isEqualTo("12");
      assertThat(r.bodyText()).isEqualTo("Hello, Ada!\n");

      RawConnection.Response teapot = get(c, "/teapot");
      assertThat(teapot.statusLine()).isEqualTo("HTTP/1.1 418 I'm a teapot");
      assertThat(teapot.bodyText()).isEqualTo("short and stout");
    }
  }

  @Test
  void multiValueHeaders_carryEveryValue_andHopByHopHeadersAndTheFunctionsContentLengthAreDropped() {
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = get(c, "/multi/cookies");

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.headers().stream().filter(h -> h[0].equalsIgnoreCase("Set-Cookie")).map(h -> h[1]))
          .containsExactly("a=1; Path=/", "b=2; Path=/");
      assertThat(r.header("Content-Length")).isEqualTo("11");
      assertThat(r.header("Connection")).isNull();
      assertThat(r.bodyText()).isEqualTo("two cookies");
      // The function's "Connection: close" did not close the client's connection.
      assertThat(get(c, "/multi/hello?name=Ada&name=Grace").bodyText()).isEqualTo("Hello, Grace!\n");
    }
  }

  @Test
  void singleValueHeaders_carryOneValuePerName() {
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = get(c, "/cookies");

      assertThat(r.headers().stream().filter(h -> h[0].equalsIgnoreCase("Set-Cookie")).map(h -> h[1]))
          .containsExactly("b=2; Path=/");
    }
  }

  @Test
  void base64Body_reachesTheClientAsItsBytes() {
    byte[] bytes = {0, 1, 2, (byte) 0xfe, (byte) 0xff};
    try (RawConnection c = RawConnection.open(port)) {
      c.send(("POST /echo HTTP/1.1\r\nHost: fn.example.com\r\nContent-Type: application/octet-stream\r\n"
          + "Content-Length: 5\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)).send(bytes);
      RawConnection.Response r = c.read();

      assertThat(r.statusLine()).isEqualTo("HTTP/1.1 201 Created");
      assertThat(r.body()).isEqualTo(bytes);
    }
  }

  @Test
  void bareStatusCode_isAWholeResponse() {
    RawConnection.Response r = answer("raw", "{\"statusCode\":200}");

    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 200 OK");
    assertThat(r.header("Content-Length")).isEqualTo("0");
    assertThat(r.header("Content-Type")).isNull();
    assertThat(r.body()).isEmpty();
  }

  @Test
  void responseWithoutContentType_isSentAsOctetStream() {
    RawConnection.Response r = answer("raw", "{\"statusCode\":202,\"body\":\"queued\"}");

    assertThat(r.statusLine()).isEqualTo("HTTP/1.1 202 Accepted");
    assertThat(r.header("Content-Type")).isEqualTo("application/octet-stream");
    assertThat(r.bodyText()).isEqualTo("queued");
  }

  @Test
  void transferEncodingFromTheFunction_isDropped_andTheBodyIsFramedByLength() {
    RawConnection.Response r = answer("raw", """
        {"statusCode":200,"headers":{"Transfer-Encoding":"chunked","Keep-Alive":"timeout=5","X-Kept":"yes"},"body":"abc"}""");

    assertThat(r.framing()).isEqualTo(Framing.CONTENT_LENGTH);
    assertThat(r.header("Transfer-Encoding")).isNull();
    assertThat(r.header("Keep-Alive")).isNull();
    assertThat(r.header("X-Kept")).isEqualTo("yes");
    assertThat(r.bodyText()).isEqualTo("abc");
  }

  @Test
  void headersFormThatDoesNotMatchTheAttribute_isIgnored() {
    RawConnection.Response single = answer("raw", """
        {"statusCode":200,"headers":{"X-Single":"1"},"multiValueHeaders":{"X-Multi":["1"]}}""");
    RawConnection.Response multi = answer("raw-multi", """
        {"statusCode":200,"headers":{"X-Single":"1"},"multiValueHeaders":{"X-Multi":["1","2"]}}""");

    assertThat(single.headerNames()).contains("x-single").doesNotContain("x-multi");
    assertThat(multi.headerNames()).contains("x-multi").doesNotContain("x-single");
    assertThat(multi.headers().stream().filter(h -> h[0].equalsIgnoreCase("X-Multi")).map(h -> h[1]).toList())
        .isEqualTo(List.of("1", "2"));
  }

  @Test
  void utf8HeaderValuesAndBodies_reachTheClientAsUtf8() {
    RawConnection.Response r = answer("raw", """
        {"statusCode":200,"headers":{"X-Name":"Jürgen","Content-Type":"text/plain; charset=utf-8"},"body":"größer"}""");

    assertThat(new String(r.header("X-Name").getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8))
        .isEqualTo("Jürgen");
    assertThat(new String(r.body(), StandardCharsets.UTF_8)).isEqualTo("größer");
    assertThat(r.header("Content-Length")).isEqualTo(Integer.toString("größer".getBytes(StandardCharsets.UTF_8).length));
  }

  @Test
  void headRequest_getsTheLengthWithoutTheBody() {
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = c.send("HEAD /hello HTTP/1.1\r\nHost: fn.example.com\r\n\r\n").read(true);

      assertThat(r.status()).isEqualTo(200);
      assertThat(r.header("Content-Length")).isEqualTo("14");
      // The connection is still in step: the next response is the next request's.
      assertThat(get(c, "/hello?name=Bo").bodyText()).isEqualTo("Hello, Bo!\n");
    }
  }
}
