package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.testing.Backend;
import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Http;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.Scrape;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestPki;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.testing.WebSocketTarget;
import io.fulcrum.tls.TlsEngine;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.security.auth.x500.X500Principal;
import org.awaitility.Awaitility;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * ALB's mutual TLS on a running HTTPS listener, checked with the JDK's HTTP client and Debian's
 * curl: verify mode lets through only clients whose certificates chain to the trust store (not
 * expired, not revoked) and tells the target who they are; passthrough takes any certificate, or
 * none, and hands the target the chain. Values a client sends under those names never reach a
 * target. HTTP/1.1 on the direct path and on Vert.x's, HTTP/2, an HTTP2 target group, a Lambda
 * target's event, renamed headers.
 */
class MutualTlsTest {

  private final Vertx backends = TestVertx.create();
  private Gateway gateway;
  private Backend backend;
  private WebSocketTarget chat;
  private Path dir;
  private TestCertificates.Pem server;
  private int verifyPort;
  private int passthroughPort;
  private int renamedPort;

  private final TestPki.Issued root = TestPki.root("Clients Root");
  private final TestPki.Issued issuing = TestPki.intermediate(root, "Clients Issuing CA");
  private final TestPki.Issued alice = TestPki.client(issuing, "alice");
  private final TestPki.Issued revoked = TestPki.client(issuing, "revoked");

  private final TlsEngine engine = TlsEngine.current();

  /** Tests named {@code jdkEngine...} run the listeners on the JDK's TLS engine rather than BoringSSL. */
  @BeforeEach
  void start(TestInfo test) throws Exception {
    if (test.getTestMethod().orElseThrow().getName().startsWith("jdkEngine")) {
      TlsEngine.use(TlsEngine.JDK);
    }
    dir = Files.createTempDirectory("mtls");
    server = TestCertificates.pem(dir, "lb", "127.0.0.1");
    Path bundle = TestPki.bundle(dir.resolve("clients-ca.pem"), root.certificate(), issuing.certificate());
    Path crl = TestPki.crl(dir.resolve("issuing.crl"), issuing, revoked.certificate());
    backend = Backend.start(backends, "b");
    chat = WebSocketTarget.start(backends, "chat", null);
    verifyPort = Ports.free();
    passthroughPort = Ports.free();
    renamedPort = Ports.free();
    gateway = Gateway.start(TestVertx.create(), """
        functions:
          echo-event: {handler: io.fulcrum.demo.EchoEventFunction}
        trust-stores:
          - name: clients
            ca-certificates: '%s'
            revocations: ['%s']
        load-balancers:
          - name: lb
            listeners:
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                mutual-authentication: {mode: verify, trust-store: clients}
                default-actions: [{type: forward, target-group: tg}]
                rules:
                  - priority: 1
                    conditions: [{field: path-pattern, values: [/lambda]}]
                    actions: [{type: forward, target-group: fn}]
                  - priority: 2
                    conditions: [{field: path-pattern, values: [/h2]}]
                    actions: [{type: forward, target-group: h2}]
                  - priority: 3
                    conditions: [{field: path-pattern, values: [/chat]}]
                    actions: [{type: forward, target-group: chat}]
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                mutual-authentication: {mode: passthrough}
                default-actions: [{type: forward, target-group: tg}]
              - protocol: HTTPS
                port: %d
                certificates: [{certificate: '%s', private-key: '%s'}]
                mutual-authentication: {mode: verify, trust-store: clients, advertise-trust-store-ca-names: on}
                attributes:
                  routing.http.request.x_amzn_mtls_clientcert_subject.header_name: X-Client-Subject
                default-actions: [{type: forward, target-group: tg}]
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
          - name: chat
            target-type: ip
            protocol: HTTP
            port: 80
            targets: [{id: 127.0.0.1, port: %d}]
        """.formatted(bundle, crl, verifyPort, server.certificate(), server.privateKey(), passthroughPort,
        server.certificate(), server.privateKey(), renamedPort, server.certificate(), server.privateKey(),
        backend.port(), backend.port(), chat.port()));
  }

  @AfterEach
  void tearDown() {
    if (gateway != null) {
      gateway.close();
    }
    backends.close();
    System.clearProperty("fulcrum.directPath");
    TlsEngine.use(engine);
  }

  private HttpResponse<String> get(SSLContext tls, HttpClient.Version version, int port, String path, String... headers)
      throws Exception {
    HttpClient client = HttpClient.newBuilder().version(version).connectTimeout(Duration.ofSeconds(5))
        .sslContext(tls).build();
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + port + path))
        .timeout(Duration.ofSeconds(10));
    if (headers.length > 0) {
      request.headers(headers);
    }
    return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
  }

  private JsonObject received(SSLContext tls, HttpClient.Version version, int port, String... headers) throws Exception {
    HttpResponse<String> r = get(tls, version, port, "/p", headers);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.version()).isEqualTo(version);
    return backend.lastRequest().getJsonObject("headers");
  }

  private static List<X509Certificate> decoded(String urlEncodedPem) throws Exception {
    List<X509Certificate> out = new ArrayList<>();
    // '+' is kept as it is by ALB's encoding; URLDecoder would read it as a space.
    byte[] pem = URLDecoder.decode(urlEncodedPem.replace("+", "%2B"), StandardCharsets.US_ASCII)
        .getBytes(StandardCharsets.US_ASCII);
    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(pem))
        .forEach(c -> out.add((X509Certificate) c));
    return out;
  }

  @ParameterizedTest(name = "{0}, direct path {1}")
  @CsvSource({"HTTP_1_1, true", "HTTP_1_1, false", "HTTP_2, true", "HTTP_2, false"})
  void verify_aTrustedClient_reachesTheTarget_whichLearnsWhoItIs(HttpClient.Version version, boolean directPath)
      throws Exception {
    System.setProperty("fulcrum.directPath", Boolean.toString(directPath));
    X509Certificate cert = alice.certificate();

    JsonObject headers = received(alice.clientContext(server.x509()), version, verifyPort,
        "X-Amzn-Mtls-Clientcert-Subject", "CN=admin", "X-Amzn-Mtls-Clientcert", "forged");

    assertThat(headers.getString("x-amzn-mtls-clientcert-subject")).isEqualTo("CN=alice,O=Fulcrum Tests,C=US")
        .isEqualTo(cert.getSubjectX500Principal().getName(X500Principal.RFC2253));
    assertThat(headers.getString("x-amzn-mtls-clientcert-issuer"))
        .isEqualTo("CN=Clients Issuing CA,O=Fulcrum Tests,C=US");
    assertThat(headers.getString("x-amzn-mtls-clientcert-serial-number"))
        .isEqualToIgnoringCase(String.format("%04x", cert.getSerialNumber())).matches("([0-9A-F]{2})+");
    assertThat(headers.getString("x-amzn-mtls-clientcert-validity")).isEqualTo("NotBefore="
        + cert.getNotBefore().toInstant() + ";NotAfter=" + cert.getNotAfter().toInstant()).doesNotContain(".");
    assertThat(decoded(headers.getString("x-amzn-mtls-clientcert-leaf"))).containsExactly(cert);
    assertThat(headers.containsKey("x-amzn-mtls-clientcert")).as("the chain is passthrough's; the forged one dropped")
        .isFalse();
  }

  @Test
  void verify_anHttp2TargetGroupsTarget_andALambdaTarget_getThemToo() throws Exception {
    SSLContext tls = alice.clientContext(server.x509());

    HttpResponse<String> h2 = get(tls, HttpClient.Version.HTTP_2, verifyPort, "/h2");
    assertThat(h2.statusCode()).isEqualTo(200);
    JsonObject received = backend.lastRequest();
    assertThat(received.getString("version")).isEqualTo("HTTP_2");
    assertThat(received.getJsonObject("headers").getString("x-amzn-mtls-clientcert-subject"))
        .isEqualTo("CN=alice,O=Fulcrum Tests,C=US");

    HttpResponse<String> lambda = get(tls, HttpClient.Version.HTTP_1_1, verifyPort, "/lambda");
    assertThat(lambda.statusCode()).isEqualTo(200);
    assertThat(new JsonObject(lambda.body()).getJsonObject("headers").getString("x-amzn-mtls-clientcert-subject"))
        .isEqualTo("CN=alice,O=Fulcrum Tests,C=US");
  }

  @Test
  void verify_aClientWithoutACertificate_orAnUntrustedExpiredRevokedOrServerOnlyOne_failsItsHandshake()
      throws Exception {
    TestPki.Issued stranger = TestPki.client(TestPki.root("Other Root"), "mallory");
    TestPki.Issued expired = TestPki.client(issuing, "expired", Instant.now().minus(Duration.ofDays(30)),
        Instant.now().minus(Duration.ofDays(1)));
    TestPki.Issued serverOnly = TestPki.client(issuing, "server-only", KeyUsage.digitalSignature,
        KeyPurposeId.id_kp_serverAuth);
    SSLContext anonymous = TestCertificates.trusting(server.x509());

    for (SSLContext refused : List.of(anonymous, stranger.clientContext(server.x509()),
        expired.clientContext(server.x509()), revoked.clientContext(server.x509()),
        serverOnly.clientContext(server.x509()))) {
      assertThatThrownBy(() -> get(refused, HttpClient.Version.HTTP_1_1, verifyPort, "/p"))
          .isInstanceOf(IOException.class);
    }
    assertThat(backend.hits()).as("nothing reached the target").isZero();
    Http http = new Http(backends);
    Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
        Scrape.of(http, gateway.controlPort()).sum("ClientTLSNegotiationErrorCount", Map.of())).isEqualTo(5));
    assertThat(get(alice.clientContext(server.x509()), HttpClient.Version.HTTP_1_1, verifyPort, "/p").statusCode())
        .isEqualTo(200);
  }

  @Test
  void verify_aWebSocketsHandshake_carriesTheHeadersToo_andNoneTheClientForged() throws Exception {
    HttpClient client = HttpClient.newBuilder().sslContext(alice.clientContext(server.x509())).build();
    WebSocket ws = client.newWebSocketBuilder().header("X-Amzn-Mtls-Clientcert-Subject", "CN=admin")
        .buildAsync(URI.create("wss://127.0.0.1:" + verifyPort + "/chat"), new WebSocket.Listener() { })
        .get(10, TimeUnit.SECONDS);
    ws.abort();

    JsonObject handshake = chat.handshakes().get(0);
    assertThat(handshake.getString("x-amzn-mtls-clientcert-subject")).isEqualTo("CN=alice,O=Fulcrum Tests,C=US");
    assertThat(handshake.getString("x-amzn-mtls-clientcert-serial-number")).isNotBlank();
  }

  @Test
  void passthrough_anyCertificate_isTaken_andItsChainGoesToTheTarget() throws Exception {
    TestPki.Issued stranger = TestPki.client(TestPki.intermediate(TestPki.root("Other Root"), "Other CA"), "mallory");

    JsonObject headers = received(stranger.clientContext(server.x509()), HttpClient.Version.HTTP_1_1, passthroughPort,
        "X-Amzn-Mtls-Clientcert-Subject", "CN=admin");

    List<X509Certificate> chain = decoded(headers.getString("x-amzn-mtls-clientcert"));
    assertThat(chain).containsExactly(stranger.certificate(), stranger.chain().get(0));
    assertThat(headers.fieldNames()).as("verify mode's headers are not sent, a client's dropped")
        .noneMatch(n -> n.startsWith("x-amzn-mtls-clientcert-"));
  }

  @Test
  void passthrough_aClientWithoutACertificate_getsThrough_withNoHeader_andNoneItForged() throws Exception {
    JsonObject headers = received(TestCertificates.trusting(server.x509()), HttpClient.Version.HTTP_2,
        passthroughPort, "X-Amzn-Mtls-Clientcert", "forged");

    assertThat(headers.fieldNames()).noneMatch(n -> n.startsWith("x-amzn-mtls"));
  }

  @Test
  void renamedHeaders_goUnderTheirNewNames() throws Exception {
    JsonObject headers = received(alice.clientContext(server.x509()), HttpClient.Version.HTTP_1_1, renamedPort,
        "X-Client-Subject", "CN=admin");

    assertThat(headers.getString("x-client-subject")).isEqualTo("CN=alice,O=Fulcrum Tests,C=US");
    assertThat(headers.containsKey("x-amzn-mtls-clientcert-subject")).isFalse();
    assertThat(headers.getString("x-amzn-mtls-clientcert-issuer")).isEqualTo("CN=Clients Issuing CA,O=Fulcrum Tests,C=US");
  }

  @Test
  void caNames_areInTheCertificateRequestOnlyWhereAdvertised() throws Exception {
    List<List<Principal>> requests = new CopyOnWriteArrayList<>();

    received(alice.clientContext(server.x509(), requests::add), HttpClient.Version.HTTP_1_1, renamedPort);
    received(alice.clientContext(server.x509(), requests::add), HttpClient.Version.HTTP_1_1, verifyPort);

    assertThat(requests).hasSize(2);
    assertThat(requests.get(0)).extracting(p -> p.getName())
        .containsExactlyInAnyOrder(root.certificate().getSubjectX500Principal().getName(),
            issuing.certificate().getSubjectX500Principal().getName());
    assertThat(requests.get(1)).as("advertise-trust-store-ca-names off, the default").isEmpty();
  }

  @Test
  void aSecondConnection_mayResumeTheSession_andStillCarriesTheCertificatesHeaders() throws Exception {
    SSLContext tls = alice.clientContext(server.x509());
    for (int i = 0; i < 3; i++) {
      // A new client each time: a new connection, which resumes the context's session where it can.
      JsonObject headers = received(tls, HttpClient.Version.HTTP_1_1, verifyPort);
      assertThat(headers.getString("x-amzn-mtls-clientcert-subject")).as("connection %d", i)
          .isEqualTo("CN=alice,O=Fulcrum Tests,C=US");
    }
  }

  @Test
  void jdkEngine_verifiesAndPassesThroughAlike() throws Exception {
    assertThat(TlsEngine.current()).isEqualTo(TlsEngine.JDK);
    List<List<Principal>> requests = new CopyOnWriteArrayList<>();

    JsonObject verified = received(alice.clientContext(server.x509(), requests::add), HttpClient.Version.HTTP_2,
        renamedPort);
    assertThat(verified.getString("x-client-subject")).isEqualTo("CN=alice,O=Fulcrum Tests,C=US");
    assertThat(requests).singleElement().asList().hasSize(2);
    assertThatThrownBy(() -> get(revoked.clientContext(server.x509()), HttpClient.Version.HTTP_1_1, verifyPort, "/p"))
        .isInstanceOf(IOException.class);
    assertThatThrownBy(() -> get(TestCertificates.trusting(server.x509()), HttpClient.Version.HTTP_1_1, verifyPort,
        "/p")).isInstanceOf(IOException.class);
    JsonObject passedThrough = received(alice.clientContext(server.x509()), HttpClient.Version.HTTP_1_1,
        passthroughPort);
    assertThat(decoded(passedThrough.getString("x-amzn-mtls-clientcert"))).containsExactly(alice.certificate(),
        issuing.certificate());
  }

  @Test
  void curl_withAndWithoutItsCertificate() throws Exception {
    Path curl = Interop.require("/usr/bin/curl", "curl");
    TestCertificates.Pem client = alice.write(dir, "alice");
    List<String> base = List.of(curl.toString(), "-s", "--cacert", server.certificate().toString(), "-o", "/dev/null",
        "-w", "%{http_code}", "https://127.0.0.1:" + verifyPort + "/curl");

    List<String> withCert = new ArrayList<>(base);
    withCert.addAll(1, List.of("--cert", client.certificate().toString(), "--key", client.privateKey().toString()));
    Tool.Result ok = Tool.run(dir, Duration.ofSeconds(30), withCert);
    assertThat(ok.output()).isEqualTo("200");
    assertThat(backend.lastRequest().getJsonObject("headers").getString("x-amzn-mtls-clientcert-subject"))
        .isEqualTo("CN=alice,O=Fulcrum Tests,C=US");

    Tool.Result refused = Tool.run(dir, Duration.ofSeconds(30), base);
    assertThat(refused.exitCode()).as("curl: the handshake fails without a certificate").isNotZero();
    assertThat(refused.output()).isEqualTo("000");
  }
}
