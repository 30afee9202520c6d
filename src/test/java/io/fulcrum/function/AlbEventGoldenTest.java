package io.fulcrum.function;

import static io.fulcrum.function.EventAssertions.assertSameEvent;
import static io.fulcrum.function.EventAssertions.golden;
import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.model.TargetGroup;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.RawConnection;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The ALB event a function receives (SPEC §6.1), compared field by field with golden events, for
 * representative requests sent byte for byte through a gateway to the demo function that answers
 * with its event: multi-value headers off ({@code /lambda/*}) and on ({@code /multi/*}).
 */
class AlbEventGoldenTest {

  private static Gateway gateway;
  private static int port;
  private static Map<String, String> values;

  @BeforeAll
  static void start() {
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          echo: {handler: io.fulcrum.demo.EchoEventFunction}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %d
                default-actions: [{type: forward, target-group: single}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/multi/*"]}]
                    actions: [{type: forward, target-group: multi}]
        target-groups:
          - name: single
            target-type: lambda
            targets: [{id: echo}]
          - name: multi
            target-type: lambda
            attributes: {lambda.multi_value_headers.enabled: "true"}
            targets: [{id: echo}]
        """.formatted(port));
    Map<String, String> arns = new java.util.HashMap<>();
    for (TargetGroup g : gateway.fulcrum().config().resources().targetGroups()) {
      arns.put(g.name(), g.arn());
    }
    values = Map.of("port", Integer.toString(port), "single", arns.get("single"), "multi", arns.get("multi"));
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  /** Sends the request bytes and returns the event the function echoed. */
  private static JsonObject eventFor(byte[] request) {
    try (RawConnection c = RawConnection.open(port)) {
      RawConnection.Response r = c.send(request).read();
      assertThat(r.status()).as(r.statusLine() + " " + r.bodyText()).isEqualTo(200);
      assertThat(r.header("Content-Type")).isEqualTo("application/json");
      return new JsonObject(new String(r.body(), StandardCharsets.UTF_8));
    }
  }

  private static JsonObject eventFor(String head, byte[] body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(head.getBytes(StandardCharsets.ISO_8859_1));
    out.writeBytes(body);
    return eventFor(out.toByteArray());
  }

  private static final String REPEATED = """
      GET %s?color=red&size=10&color=blue&empty=&flag HTTP/1.1\r
      Host: Shop.Example.com\r
      User-Agent: golden/1.0\r
      Accept: */*\r
      X-Multi: one\r
      X-Multi: two\r
      Cookie: a=1\r
      Cookie: b=2\r
      Connection: keep-alive\r
      \r
      """;

  @Test
  void multiValueOff_lastValueOfRepeatedHeadersQueryKeysAndCookiesWins() {
    JsonObject event = eventFor(REPEATED.formatted("/lambda/items").getBytes(StandardCharsets.ISO_8859_1));

    assertSameEvent(golden("repeated_headers_and_query_single", values), event);
  }

  @Test
  void multiValueOn_everyValueInOrder_andNoSingleValueMaps() {
    JsonObject event = eventFor(REPEATED.formatted("/multi/items").getBytes(StandardCharsets.ISO_8859_1));

    assertSameEvent(golden("repeated_headers_and_query_multi", values), event);
  }

  @Test
  void urlEncodedQueryAndPath_arriveAsTheClientSentThem() {
    JsonObject event = eventFor(("""
        GET /lambda/search%20page?q=hello%20world&tag=a%2Bb&name=J%C3%BCrgen&plus=1+2&k%3Dx=v%26w HTTP/1.1\r
        Host: shop.example.com\r
        User-Agent: golden/1.0\r
        Connection: keep-alive\r
        \r
        """).getBytes(StandardCharsets.ISO_8859_1));

    assertSameEvent(golden("url_encoded_query", values), event);
  }

  @Test
  void jsonBody_isTextInTheEvent() {
    byte[] body = "{\"order\":42,\"name\":\"Jürgen\"}".getBytes(StandardCharsets.UTF_8);
    JsonObject event = eventFor("""
        POST /lambda/orders HTTP/1.1\r
        Host: api.example.com\r
        Content-Type: application/json; charset=utf-8\r
        Content-Length: %d\r
        Connection: keep-alive\r
        \r
        """.formatted(body.length), body);

    assertSameEvent(golden("json_body", values), event);
  }

  @Test
  void binaryBody_isBase64Encoded() {
    byte[] body = {0, 1, 2, (byte) 0xfe, (byte) 0xff, (byte) 0x80, 0x41};
    JsonObject event = eventFor("""
        POST /lambda/upload HTTP/1.1\r
        Host: api.example.com\r
        Content-Type: application/octet-stream\r
        Content-Length: 7\r
        Connection: keep-alive\r
        \r
        """, body);

    assertSameEvent(golden("binary_body", values), event);
  }

  @Test
  void compressedTextBody_isBase64Encoded_becauseOfItsContentEncoding() {
    byte[] gzip = HexFormat.of().parseHex(
        "1f8b0800000000000203cb48cdc9c9d75148cecf2d284a2d2e4e4d5128cf2fca49e102003fba393c18000000");
    JsonObject event = eventFor("""
        POST /lambda/upload HTTP/1.1\r
        Host: api.example.com\r
        Content-Type: text/plain\r
        Content-Encoding: gzip\r
        Content-Length: %d\r
        Connection: keep-alive\r
        \r
        """.formatted(gzip.length), gzip);

    assertSameEvent(golden("compressed_text_body", values), event);
  }

  @Test
  void bodyWithoutContentType_isBase64Encoded() {
    JsonObject event = eventFor("""
        POST /lambda/upload HTTP/1.1\r
        Host: api.example.com\r
        Content-Length: 11\r
        Connection: keep-alive\r
        \r
        """, "plain words".getBytes(StandardCharsets.US_ASCII));

    assertSameEvent(golden("body_without_content_type", values), event);
  }

  @Test
  void emptyBody_isAnEmptyString_notBase64_withEmptyMultiValueQuery() {
    JsonObject event = eventFor("""
        POST /multi/empty HTTP/1.1\r
        Host: api.example.com\r
        Content-Type: application/json\r
        Content-Length: 0\r
        Connection: keep-alive\r
        \r
        """, new byte[0]);

    assertSameEvent(golden("empty_json_body_multi", values), event);
  }
}
