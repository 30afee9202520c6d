package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A listener's header modification (its attributes) on every kind of answer, over HTTP/1.1 on the
 * direct path and on Vert.x's, and over HTTP/2 (the JDK's client, TLS with ALPN): the inserted
 * headers on a target's response (over the target's own value), a function's, a fixed response
 * and an error page; no {@code Server: awselb/2.0} on the load balancer's own answers, while a
 * target's Server header passes; the TLS headers under the names the listener gives them.
 */
class ListenerHeaderModificationTest {

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private Backend backend;
  private int port;
  private HttpClient client;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
    System.clearProperty("fulcrum.directPath");
  }

  private void start(boolean directPath, HttpClient.Version version) throws Exception {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    Path dir = Files.createTempDirectory("listener-headers");
    TestCertificates.Pem cert = TestCertificates.pem(dir, "lb", "127.0.0.1");
    backend = Backend.start(backends, "b", "127.0.0.1", req -> req.response().putHeader("Server", "target/1.0")
        .putHeader("X-Frame-Options", "SAMEORIGIN").end("from the target"));
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          greeter: {handler: io.fulcrum.function.handlers.GreetingHandler}
        load-balancers:
          - name: lb
            attributes: {routing.http.x_amzn_tls_version_and_cipher_suite.enabled: "true"}
            listeners:
              - protocol: HTTPS
                port: %d
                ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06
                certificates: [{certificate: '%s', private-key: '%s'}]
                attributes:
                  routing.http.response.server.enabled: "false"
                  routing.http.response.strict_transport_security.header_value: max-age=31536000; includeSubDomains
                  routing.http.response.x_frame_options.header_value: DENY
                  routing.http.response.access_control_allow_origin.header_value: https://app.example.com
                  routing.http.request.x_amzn_tls_version.header_name: X-Tls-Version
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - {priority: 1, conditions: [{field: path-pattern, values: [/hello]}], actions: [{type: forward, target-group: fn}]}
                  - {priority: 2, conditions: [{field: path-pattern, values: [/fixed]}],
                     actions: [{type: fixed-response, status-code: 200, content-type: text/plain, message-body: fixed}]}
                  - {priority: 3, conditions: [{field: path-pattern, values: [/empty]}], actions: [{type: forward, target-group: empty}]}
        target-groups:
          - {name: tg, target-type: ip, protocol: HTTP, port: 80, targets: [{id: 127.0.0.1, port: %d}]}
          - {name: fn, target-type: lambda, targets: [{id: greeter}]}
          - {name: empty, target-type: ip, protocol: HTTP, port: 80, targets: []}
        """.formatted(port, cert.certificate(), cert.privateKey(), backend.port()));
    client = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5))
        .sslContext(TestCertificates.trusting(TestCertificates.read(cert.certificate()))).build();
  }

  private HttpResponse<String> get(String path, HttpClient.Version version) throws Exception {
    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.version()).isEqualTo(version);
    return r;
  }

  private static void inserted(HttpResponse<String> r) {
    assertThat(r.headers().allValues("strict-transport-security")).containsExactly("max-age=31536000; includeSubDomains");
    assertThat(r.headers().allValues("x-frame-options")).containsExactly("DENY");
    assertThat(r.headers().allValues("access-control-allow-origin")).containsExactly("https://app.example.com");
  }

  @ParameterizedTest(name = "{0}, direct path {1}")
  @CsvSource({"HTTP_1_1, true", "HTTP_1_1, false", "HTTP_2, true"})
  void everyAnswerGetsTheInsertedHeaders_andTheLoadBalancersOwnHaveNoServerHeader(HttpClient.Version version,
      boolean directPath) throws Exception {
    start(directPath, version);

    HttpResponse<String> forwarded = get("/", version);
    assertThat(forwarded.body()).isEqualTo("from the target");
    inserted(forwarded);
    assertThat(forwarded.headers().allValues("server")).as("a target's own passes").containsExactly("target/1.0");

    HttpResponse<String> function = get("/hello", version);
    assertThat(function.statusCode()).isEqualTo(200);
    inserted(function);

    HttpResponse<String> fixed = get("/fixed", version);
    assertThat(fixed.body()).isEqualTo("fixed");
    inserted(fixed);
    assertThat(fixed.headers().firstValue("server")).isEmpty();

    HttpResponse<String> error = get("/empty", version);
    assertThat(error.statusCode()).isEqualTo(503);
    inserted(error);
    assertThat(error.headers().firstValue("server")).isEmpty();
  }

  @ParameterizedTest(name = "{0}, direct path {1}")
  @CsvSource({"HTTP_1_1, true", "HTTP_1_1, false", "HTTP_2, true"})
  void tlsVersionHeader_goesUnderTheListenersName_andTheCipherSuiteUnderAlbs(HttpClient.Version version,
      boolean directPath) throws Exception {
    start(directPath, version);

    get("/", version);

    JsonObject headers = backend.lastRequest().getJsonObject("headers");
    assertThat(headers.getString("x-tls-version")).isEqualTo("TLSv1.3");
    assertThat(headers.containsKey("x-amzn-tls-version")).isFalse();
    assertThat(headers.getString("x-amzn-tls-cipher-suite")).startsWith("TLS_");
  }
}
