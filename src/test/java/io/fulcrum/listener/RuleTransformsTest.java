package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Await;
import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.SocketAddress;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A rule's transforms rewrite the URL and the Host of the requests it forwards, over HTTP/1.1 and
 * HTTP/2 and to a Lambda function, and leave the routing decision as the request came.
 */
class RuleTransformsTest {

  private static final Vertx BACKENDS = TestVertx.create();
  private static Backend app;
  private static Backend other;
  private static Backend h2;
  private static Gateway gateway;
  private static Http http;
  private static int port;

  @BeforeAll
  static void start() {
    app = Backend.start(BACKENDS, "app");
    other = Backend.start(BACKENDS, "other");
    // An HTTP/2 target (cleartext, prior knowledge) that answers with the :authority and path it got.
    h2 = Backend.start(BACKENDS, "h2", "127.0.0.1",
        req -> req.response().end(req.version() + " " + req.authority() + " " + req.uri()));
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          echo: {handler: io.fulcrum.demo.EchoEventFunction}
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTP
                port: %1$d
                h2c: true
                default-actions: [{type: forward, target-group: other}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: ["/api/*"]}]
                    transforms:
                      - {type: url-rewrite, regex: '^/api/v(\\d+)/(.*)$', replace: '/$2?version=$1'}
                      - {type: host-header-rewrite, regex: '^(.+)\\.example\\.com$', replace: '$1.internal'}
                    actions: [{type: forward, target-group: app}]
                  - priority: 2
                    conditions: [{field: path-pattern, values: ["/broken/*"]}]
                    transforms: [{type: url-rewrite, regex: '^/broken/(.*)$', replace: '$1'}]
                    actions: [{type: forward, target-group: app}]
                  - priority: 3
                    conditions: [{field: path-pattern, values: ["/fn/*"]}]
                    transforms: [{type: url-rewrite, regex: '^/fn/', replace: '/'}]
                    actions: [{type: forward, target-group: fn}]
                  - priority: 5
                    conditions: [{field: path-pattern, values: ["/h2/*"]}]
                    transforms:
                      - {type: url-rewrite, regex: '^/h2/', replace: '/'}
                      - {type: host-header-rewrite, regex: '^(.+)\\.example\\.com$', replace: '$1.internal'}
                    actions: [{type: forward, target-group: h2}]
                  - priority: 4
                    conditions: [{field: path-pattern, values: ["/up/*"]}]
                    transforms: [{type: url-rewrite, regex: '^/up/', replace: '/../'}]
                    actions: [{type: forward, target-group: app}]
        target-groups:
          - {name: app, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %2$d}]}
          - {name: other, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %3$d}]}
          - {name: fn, target-type: lambda, targets: [{id: echo}]}
          - {name: h2, target-type: ip, protocol: HTTP, protocol-version: HTTP2, port: 80,
             targets: [{id: 127.0.0.1, port: %4$d}]}
        """.formatted(port, app.port(), other.port(), h2.port()));
    http = new Http(BACKENDS);
  }

  @AfterAll
  static void stop() {
    http.close();
    gateway.close();
    BACKENDS.close();
  }

  @Test
  void theUrlAndHost_areRewrittenForTheTarget() {
    Http.Response r = http.get("127.0.0.1", port, "/api/v2/orders/7", Map.of("Host", "shop.example.com"));
    assertThat(r.status()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("app");
    JsonObject got = app.lastRequest();
    assertThat(got.getString("uri")).isEqualTo("/orders/7?version=2");
    assertThat(got.getJsonObject("headers").getString("host")).as("the listener's port added, as for any Host")
        .isEqualTo("shop.internal:" + port);
  }

  /** The expression sees the host name in lower case, as the load balancer forwards it, however the client wrote it. */
  @Test
  void theHostExpression_seesTheHostNameInLowerCase() {
    Http.Response r = http.get("127.0.0.1", port, "/api/v2/orders/7", Map.of("Host", "Shop.Example.COM"));
    assertThat(r.body()).isEqualTo("app");
    assertThat(app.lastRequest().getJsonObject("headers").getString("host")).isEqualTo("shop.internal:" + port);
  }

  @Test
  void aValueTheExpressionDoesNotMatch_goesOnAsItCame() {
    Http.Response r = http.get("127.0.0.1", port, "/api/orders", Map.of("Host", "shop.example.org"));
    assertThat(r.body()).isEqualTo("app");
    assertThat(app.lastRequest().getString("uri")).isEqualTo("/api/orders");
    assertThat(app.lastRequest().getJsonObject("headers").getString("host")).isEqualTo("shop.example.org:" + port);
  }

  @Test
  void aRewriteThatGivesNoUsableUrl_isAnswered500_andNothingReachesTheTarget() {
    int before = app.received().size();
    assertThat(http.get("127.0.0.1", port, "/broken/x", Map.of()).status()).as("no leading /").isEqualTo(500);
    assertThat(http.get("127.0.0.1", port, "/up/etc/passwd", Map.of()).status()).as("above the root").isEqualTo(500);
    assertThat(app.received()).hasSize(before);
  }

  @Test
  void overHttp2_theStreamCarriesTheRewrittenPathAndAuthority() {
    assertThat(h2("eu.example.com", "/api/v1/items")).isEqualTo("HTTP_2 app");
    assertThat(app.lastRequest().getString("uri")).isEqualTo("/items?version=1");
    assertThat(app.lastRequest().getJsonObject("headers").getString("host")).isEqualTo("eu.internal:" + port);
  }

  /** A request over HTTP/2 in clear (prior knowledge) with {@code :authority host:port}: the version and body of its answer. */
  private static String h2(String host, String uri) {
    HttpClientAgent client = BACKENDS.httpClientBuilder()
        .with(new HttpClientOptions().setProtocolVersion(HttpVersion.HTTP_2).setHttp2ClearTextUpgrade(false))
        .build();
    try {
      return Await.result(client.request(new RequestOptions()
              .setServer(SocketAddress.inetSocketAddress(port, "127.0.0.1")).setHost(host).setPort(port).setURI(uri))
          .compose(req -> req.send().compose(resp -> resp.body().map(b -> resp.version() + " " + b))));
    } finally {
      client.close();
    }
  }

  @Test
  void anHttp2Target_getsTheRewrittenPathAndAuthority() {
    assertThat(h2("eu.example.com", "/h2/items?a=1")).isEqualTo("HTTP_2 HTTP_2 eu.internal:" + port + " /items?a=1");
  }

  @Test
  void aLambdaFunction_getsTheRewrittenPath() {
    Http.Response r = http.get("127.0.0.1", port, "/fn/hello?a=1", Map.of());
    assertThat(r.status()).isEqualTo(200);
    JsonObject event = new JsonObject(r.body());
    assertThat(event.getString("path")).isEqualTo("/hello");
    assertThat(event.getJsonObject("queryStringParameters").getString("a")).isEqualTo("1");
  }
}
