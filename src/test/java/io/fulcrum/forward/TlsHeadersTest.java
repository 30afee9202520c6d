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
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code routing.http.x_amzn_tls_version_and_cipher_suite.enabled} (SPEC §11.2): requests that
 * came over an HTTPS listener reach the target with {@code x-amzn-tls-version} and
 * {@code x-amzn-tls-cipher-suite} (OpenSSL's cipher names) of the client's connection, whatever a
 * client sent under those names; without the attribute, nothing is added. HTTP/1.1 on the direct
 * path and on Vert.x's, HTTP/2, TLS 1.2 and 1.3, and a Lambda target's event; the JDK's HTTP client.
 */
class TlsHeadersTest {

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private Backend backend;
  private int port;
  private TestCertificates.Pem cert;

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
    System.clearProperty("fulcrum.directPath");
  }

  private void start(boolean enabled) throws Exception {
    Path dir = Files.createTempDirectory("tls-headers");
    cert = TestCertificates.pem(dir, "lb", "127.0.0.1");
    backend = Backend.start(backends, "b");
    port = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          echo-event: {handler: io.fulcrum.demo.EchoEventFunction}
        load-balancers:
          - name: lb
            attributes: {routing.http.x_amzn_tls_version_and_cipher_suite.enabled: "%s"}
            listeners:
              - protocol: HTTPS
                port: %d
                ssl-policy: ELBSecurityPolicy-TLS13-1-2-2021-06
                certificates: [{certificate: '%s', private-key: '%s'}]
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: [/lambda]}]
                    actions: [{type: forward, target-group: fn}]
                  - priority: 2
                    conditions: [{field: path-pattern, values: [/h2]}]
                    actions: [{type: forward, target-group: h2}]
        target-groups:
          - name: tg
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}]
          - name: fn
            target-type: lambda
            targets: [{id: echo-event}]
          - name: h2
            target-type: ip
            protocol: HTTP
            port: 80
            protocol-version: HTTP2
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(enabled, port, cert.certificate(), cert.privateKey(), backend.port(), backend.port()));
  }

  /** What the target received for a GET sent with {@code version} over {@code tls} with {@code cipher}. */
  private JsonObject send(HttpClient.Version version, String tls, String cipher, String spoofed) throws Exception {
    SSLParameters params = new SSLParameters(new String[] {cipher}, new String[] {tls});
    HttpClient client = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5))
        .sslContext(TestCertificates.trusting(TestCertificates.read(cert.certificate()))).sslParameters(params).build();
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/p"))
        .timeout(Duration.ofSeconds(10));
    if (spoofed != null) {
      request.header("x-amzn-tls-version", spoofed).header("x-amzn-tls-cipher-suite", spoofed);
    }
    HttpResponse<String> r = client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.version()).isEqualTo(version);
    return backend.lastRequest().getJsonObject("headers");
  }

  @ParameterizedTest(name = "{0} over {1}, direct path {4}")
  @CsvSource({
      "HTTP_1_1, TLSv1.2, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, ECDHE-ECDSA-AES128-GCM-SHA256, true",
      "HTTP_1_1, TLSv1.2, TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384, ECDHE-ECDSA-AES256-GCM-SHA384, false",
      "HTTP_1_1, TLSv1.3, TLS_AES_256_GCM_SHA384, TLS_AES_256_GCM_SHA384, true",
      "HTTP_2, TLSv1.3, TLS_AES_128_GCM_SHA256, TLS_AES_128_GCM_SHA256, true",
      "HTTP_2, TLSv1.2, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, ECDHE-ECDSA-AES128-GCM-SHA256, false"})
  void enabled_theTargetGetsTheClientConnectionsTlsVersionAndCipherSuite_inOpenSslNames(HttpClient.Version version,
      String tls, String cipher, String openssl, boolean directPath) throws Exception {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    start(true);

    JsonObject headers = send(version, tls, cipher, null);

    assertThat(headers.getString("x-amzn-tls-version")).isEqualTo(tls);
    assertThat(headers.getString("x-amzn-tls-cipher-suite")).isEqualTo(openssl);
  }

  @Test
  void enabled_anHttp2TargetGroupsTargetGetsThem_overTheRelay() throws Exception {
    start(true);
    SSLParameters params = new SSLParameters(new String[] {"TLS_AES_256_GCM_SHA384"}, new String[] {"TLSv1.3"});
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).connectTimeout(Duration.ofSeconds(5))
        .sslContext(TestCertificates.trusting(TestCertificates.read(cert.certificate()))).sslParameters(params).build();

    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/h2"))
        .header("x-amzn-tls-version", "spoofed").timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).isEqualTo(200);
    JsonObject received = backend.lastRequest();
    assertThat(received.getString("version")).as("HTTP/2 to the target").isEqualTo("HTTP_2");
    assertThat(received.getJsonObject("headers").getString("x-amzn-tls-version")).isEqualTo("TLSv1.3");
    assertThat(received.getJsonObject("headers").getString("x-amzn-tls-cipher-suite"))
        .isEqualTo("TLS_AES_256_GCM_SHA384");
  }

  @Test
  void enabled_aLambdaTargetsEventHasThemToo() throws Exception {
    start(true);
    SSLParameters params = new SSLParameters(new String[] {"TLS_AES_128_GCM_SHA256"}, new String[] {"TLSv1.3"});
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
        .sslContext(TestCertificates.trusting(TestCertificates.read(cert.certificate()))).sslParameters(params).build();

    HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + "/lambda"))
        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());

    assertThat(r.statusCode()).isEqualTo(200);
    JsonObject headers = new JsonObject(r.body()).getJsonObject("headers");
    assertThat(headers.getString("x-amzn-tls-version")).isEqualTo("TLSv1.3");
    assertThat(headers.getString("x-amzn-tls-cipher-suite")).isEqualTo("TLS_AES_128_GCM_SHA256");
  }

  @Test
  void enabled_whatAClientSentUnderThoseNames_isReplaced() throws Exception {
    start(true);

    JsonObject headers = send(HttpClient.Version.HTTP_1_1, "TLSv1.3", "TLS_AES_128_GCM_SHA256", "SSLv2");

    assertThat(headers.getString("x-amzn-tls-version")).isEqualTo("TLSv1.3");
    assertThat(headers.getString("x-amzn-tls-cipher-suite")).isEqualTo("TLS_AES_128_GCM_SHA256");
  }

  @Test
  void disabled_nothingIsAdded() throws Exception {
    start(false);

    JsonObject headers = send(HttpClient.Version.HTTP_2, "TLSv1.3", "TLS_AES_128_GCM_SHA256", null);

    assertThat(headers.containsKey("x-amzn-tls-version")).isFalse();
    assertThat(headers.containsKey("x-amzn-tls-cipher-suite")).isFalse();
  }
}
