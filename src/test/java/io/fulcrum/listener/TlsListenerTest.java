package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fulcrum.testing.Gateway;
import io.fulcrum.testing.Interop;
import io.fulcrum.testing.Ports;
import io.fulcrum.testing.TestCertificates;
import io.fulcrum.testing.TestVertx;
import io.fulcrum.testing.Tool;
import io.fulcrum.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * HTTPS listeners as a TLS client sees them: the certificate chosen by SNI (PEM pairs and a
 * PKCS#12 keystore), the ELB security policy's protocol versions and cipher suites, ALPN (h2 only
 * while routing.http2.enabled), and the self-signed certificate generated into the data dir and
 * reused on the next start. Handshakes are made with the JDK's SSLSocket, trusting anything, so
 * that what the server presents can be looked at.
 */
class TlsListenerTest {

  private static Path dir;
  private static TestCertificates.Pem certA;
  private static TestCertificates.Pem certB;
  private static Gateway gateway;
  private static int sniPort;
  private static int pkcs12Port;
  private static int tls13OnlyPort;
  private static int policy201608Port;
  private static int gcmOnlyPort;
  private static int noHttp2Port;
  private static int manyPort;
  private static List<TestCertificates.Pem> many;
  private static TestCertificates.Pem siteEc;
  private static TestCertificates.Pem siteRsa;

  @BeforeAll
  static void start() throws Exception {
    dir = Files.createTempDirectory("tls-listener");
    certA = TestCertificates.pem(dir, "a", "a.example.com", "127.0.0.1");
    certB = TestCertificates.pem(dir, "b", "b.example.com", "*.b.example.com");
    Path p12 = TestCertificates.pkcs12(dir.resolve("pq.p12"), "secret",
        List.of(List.of("p.example.com"), List.of("q.example.com")));
    sniPort = Ports.free();
    pkcs12Port = Ports.free();
    tls13OnlyPort = Ports.free();
    policy201608Port = Ports.free();
    gcmOnlyPort = Ports.free();
    noHttp2Port = Ports.free();
    manyPort = Ports.free();
    many = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      many.add(TestCertificates.pem(dir, "many" + i, "many" + i + ".example.com"));
    }
    java.time.Instant now = java.time.Instant.now();
    siteEc = TestCertificates.pem(dir, "site-ec", "EC", now.minusSeconds(60), now.plusSeconds(86_400), "site.example.com");
    siteRsa = TestCertificates.pem(dir, "site-rsa", "RSA", now.minusSeconds(60), now.plusSeconds(86_400),
        "site.example.com");
    StringBuilder manyCerts = new StringBuilder();
    for (TestCertificates.Pem c : List.of(many.get(0), many.get(1), many.get(2), siteRsa, many.get(3), siteEc,
        many.get(4), many.get(5), many.get(6), many.get(7))) {
      manyCerts.append(manyCerts.length() == 0 ? "" : ", ")
          .append("{certificate: '%s', private-key: '%s'}".formatted(c.certificate(), c.privateKey()));
    }
    String pemA = "{certificate: '%s', private-key: '%s'}".formatted(certA.certificate(), certA.privateKey());
    String pemB = "{certificate: '%s', private-key: '%s'}".formatted(certB.certificate(), certB.privateKey());
    String fixed = "default-actions: [{type: fixed-response, status-code: 200, content-type: text/plain, message-body: ok}]";
    gateway = Gateway.start(TestVertx.create(), """
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTPS, port: %d, certificates: [%s, %s], %s}
              - {protocol: HTTPS, port: %d, certificates: [{pkcs12: '%s', password: secret}], %4$s}
              - {protocol: HTTPS, port: %d, ssl-policy: ELBSecurityPolicy-TLS13-1-3-2021-06, certificates: [%2$s], %4$s}
              - {protocol: HTTPS, port: %d, ssl-policy: ELBSecurityPolicy-2016-08, certificates: [%2$s], %4$s}
              - {protocol: HTTPS, port: %d, ssl-policy: ELBSecurityPolicy-FS-1-2-Res-2020-10, certificates: [%2$s], %4$s}
              - {protocol: HTTPS, port: %d, certificates: [%s], %4$s}
          - name: no-h2
            attributes: {routing.http2.enabled: false}
            listeners:
              - {protocol: HTTPS, port: %d, certificates: [%2$s], %4$s}
        """.formatted(sniPort, pemA, pemB, fixed, pkcs12Port, p12, tls13OnlyPort, policy201608Port, gcmOnlyPort,
        manyPort, manyCerts, noHttp2Port));
  }

  @AfterAll
  static void stop() {
    gateway.close();
  }

  /** What a client got from a handshake. */
  private record Handshake(String protocol, String cipher, X509Certificate certificate, String alpn) {
  }

  /**
   * A handshake with {@code protocols} (and {@code ciphers}, {@code sni}, {@code alpn} when not
   * null); throws the client's SSLException when the server refuses.
   */
  private static Handshake handshake(int port, String sni, String[] protocols, String[] ciphers, String... alpn)
      throws SSLException {
    try (SSLSocket s = (SSLSocket) TestCertificates.trustingAnything().getSocketFactory().createSocket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
      s.setSoTimeout(10_000);
      SSLParameters p = s.getSSLParameters();
      p.setProtocols(protocols);
      if (ciphers != null) {
        p.setCipherSuites(ciphers);
      }
      if (sni != null) {
        p.setServerNames(List.of(new SNIHostName(sni)));
      }
      if (alpn.length > 0) {
        p.setApplicationProtocols(alpn);
      }
      s.setSSLParameters(p);
      s.startHandshake();
      SSLSession session = s.getSession();
      return new Handshake(session.getProtocol(), session.getCipherSuite(),
          (X509Certificate) session.getPeerCertificates()[0], s.getApplicationProtocol());
    } catch (SSLException e) {
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static final String[] TLS12_AND_13 = {"TLSv1.3", "TLSv1.2"};

  @Test
  void sni_choosesTheCertificateForTheName_andTheFirstWithoutOne() throws Exception {
    assertThat(handshake(sniPort, "a.example.com", TLS12_AND_13, null).certificate()).isEqualTo(certA.x509());
    assertThat(handshake(sniPort, "b.example.com", TLS12_AND_13, null).certificate()).isEqualTo(certB.x509());
    assertThat(handshake(sniPort, "www.b.example.com", TLS12_AND_13, null).certificate())
        .as("a wildcard name").isEqualTo(certB.x509());
    assertThat(handshake(sniPort, null, TLS12_AND_13, null).certificate()).as("no SNI: the default")
        .isEqualTo(certA.x509());
    assertThat(handshake(sniPort, "unknown.example.org", TLS12_AND_13, null).certificate())
        .as("an unknown name: the default").isEqualTo(certA.x509());
  }

  /**
   * Ten certificates: a client without SNI, or with a name none has, gets the first listed (it got
   * one chosen by a hash map's order), and each name its own.
   */
  @Test
  void manyCertificates_theDefaultIsTheFirstListed_andEachNameItsOwn() throws Exception {
    String[] tls12 = {"TLSv1.2"};
    assertThat(handshake(manyPort, null, TLS12_AND_13, null).certificate()).isEqualTo(many.get(0).x509());
    assertThat(handshake(manyPort, "other.example.org", TLS12_AND_13, null).certificate())
        .isEqualTo(many.get(0).x509());
    for (int i = 0; i < many.size(); i++) {
      assertThat(handshake(manyPort, "many" + i + ".example.com", TLS12_AND_13, null).certificate())
          .isEqualTo(many.get(i).x509());
    }
    assertThat(handshake(manyPort, "SITE.example.com", tls12, null).certificate())
        .as("a client that verifies either (the JDK's): ECDSA").isEqualTo(siteEc.x509());
  }

  /**
   * The certificate a client offering only {@code sigalgs} (OpenSSL's names) is served for
   * {@code sni} over TLS 1.2, by {@code openssl s_client}: the JDK's client cannot be told which
   * signature algorithms to offer.
   */
  private static X509Certificate servedTo(String sigalgs, String sni, int port) throws Exception {
    Path openssl = Interop.require("/usr/bin/openssl", "openssl");
    Tool.Result r = Tool.run(dir, java.time.Duration.ofSeconds(30), List.of(openssl.toString(), "s_client",
        "-connect", "127.0.0.1:" + port, "-servername", sni, "-tls1_2", "-sigalgs", sigalgs));
    int begin = r.output().indexOf("-----BEGIN CERTIFICATE-----");
    int end = r.output().indexOf("-----END CERTIFICATE-----");
    assertThat(begin).as("a certificate in%n%s", r.output()).isNotNegative();
    return (X509Certificate) java.security.cert.CertificateFactory.getInstance("X.509").generateCertificate(
        new java.io.ByteArrayInputStream(r.output().substring(begin, end + 25).getBytes(StandardCharsets.US_ASCII)));
  }

  /** ALB's smart certificate selection: a name with an RSA and an ECDSA certificate, served what the client verifies. */
  @Test
  void aNameWithRsaAndEcdsaCertificates_isServedTheOneTheClientCanVerify() throws Exception {
    assertThat(servedTo("RSA+SHA256:RSA-PSS+SHA256", "site.example.com", manyPort)).isEqualTo(siteRsa.x509());
    assertThat(servedTo("ECDSA+SHA256", "site.example.com", manyPort)).isEqualTo(siteEc.x509());
    assertThat(servedTo("ECDSA+SHA256:RSA+SHA256", "site.example.com", manyPort)).isEqualTo(siteEc.x509());
  }

  @Test
  void pkcs12Keystore_servesItsCertificates_chosenBySni() throws Exception {
    X509Certificate p = handshake(pkcs12Port, "p.example.com", TLS12_AND_13, null).certificate();
    X509Certificate q = handshake(pkcs12Port, "q.example.com", TLS12_AND_13, null).certificate();

    assertThat(p.getSubjectX500Principal().getName()).contains("CN=p.example.com");
    assertThat(q.getSubjectX500Principal().getName()).contains("CN=q.example.com");
  }

  @Test
  void tls13OnlyPolicy_refusesATls12Client_andAcceptsTls13() throws Exception {
    assertThatThrownBy(() -> handshake(tls13OnlyPort, null, new String[] {"TLSv1.2"}, null))
        .isInstanceOf(SSLException.class);

    Handshake h = handshake(tls13OnlyPort, null, TLS12_AND_13, null);
    assertThat(h.protocol()).isEqualTo("TLSv1.3");
    assertThat(h.cipher()).isIn("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256");
  }

  @Test
  void policy201608_acceptsTls12_andRefusesATls13OnlyClient() throws Exception {
    assertThat(handshake(policy201608Port, null, new String[] {"TLSv1.2"}, null).protocol()).isEqualTo("TLSv1.2");
    assertThat(handshake(policy201608Port, null, TLS12_AND_13, null).protocol())
        .as("TLS 1.3 is not in the 2016-08 policy").isEqualTo("TLSv1.2");

    assertThatThrownBy(() -> handshake(policy201608Port, null, new String[] {"TLSv1.3"}, null))
        .isInstanceOf(SSLException.class);
  }

  @Test
  void cipherSuites_followThePolicy_cbcIn201608_gcmOnlyInFs12Res202010() throws Exception {
    String[] cbc = {"TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"};
    String[] gcm = {"TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"};
    String[] tls12 = {"TLSv1.2"};

    assertThat(handshake(policy201608Port, null, tls12, cbc).cipher()).isEqualTo(cbc[0]);
    assertThatThrownBy(() -> handshake(gcmOnlyPort, null, tls12, cbc)).isInstanceOf(SSLException.class);
    assertThat(handshake(gcmOnlyPort, null, tls12, gcm).cipher()).isEqualTo(gcm[0]);
  }

  /**
   * The server prefers the policy's suites in ELB's order, whatever order the client offers them
   * in: ECDHE-ECDSA-AES128-GCM-SHA256 first, then (2016-08 lists them so) AES128 with SHA-1 before
   * AES256-GCM.
   */
  @Test
  void cipherSuites_areChosenInThePolicysOrder_notTheClients() throws Exception {
    String gcm128 = "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256";
    String cbc128 = "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA";
    String gcm256 = "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384";
    String cbc256 = "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA";
    String[] tls12 = {"TLSv1.2"};

    for (String[] offered : List.of(new String[] {cbc256, gcm256, cbc128, gcm128}, new String[] {cbc128, gcm128},
        new String[] {gcm256, gcm128, cbc256})) {
      assertThat(handshake(policy201608Port, null, tls12, offered).cipher()).as(String.join(" ", offered))
          .isEqualTo(gcm128);
    }
    assertThat(handshake(policy201608Port, null, tls12, new String[] {cbc256, gcm256, cbc128}).cipher())
        .isEqualTo(cbc128);
    assertThat(handshake(policy201608Port, null, tls12, new String[] {cbc256, gcm256}).cipher()).isEqualTo(gcm256);
    assertThat(handshake(gcmOnlyPort, null, tls12, new String[] {gcm256, gcm128}).cipher()).isEqualTo(gcm128);
  }

  @Test
  void alpn_offersH2AndHttp11_whileHttp2IsEnabled() throws Exception {
    assertThat(handshake(sniPort, null, TLS12_AND_13, null, "h2", "http/1.1").alpn()).isEqualTo("h2");
    assertThat(handshake(sniPort, null, TLS12_AND_13, null, "http/1.1").alpn()).isEqualTo("http/1.1");
  }

  @Test
  void alpn_offersOnlyHttp11_whenRoutingHttp2EnabledIsFalse() throws Exception {
    assertThat(handshake(noHttp2Port, null, TLS12_AND_13, null, "h2", "http/1.1").alpn()).isEqualTo("http/1.1");

    HttpClient jdk = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2)
        .sslContext(TestCertificates.trusting(certA.x509())).build();
    HttpResponse<String> r = jdk.send(HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + noHttp2Port + "/")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.version()).as("an HTTP/2 client falls back to HTTP/1.1").isEqualTo(HttpClient.Version.HTTP_1_1);
  }

  @Test
  void selfSignedCertificate_isGeneratedIntoTheDataDir_andReusedOnRestart(@TempDir Path data) throws Exception {
    int port = Ports.free();
    String yaml = """
        data-dir: '%s'
        load-balancers:
          - name: lb
            listeners:
              - {protocol: HTTPS, port: %d, default-actions: [{type: fixed-response, status-code: 200}]}
        """.formatted(data, port);
    Path certFile = data.resolve("tls").resolve(SelfSignedCertificate.CERT_FILE);
    Path keyFile = data.resolve("tls").resolve(SelfSignedCertificate.KEY_FILE);

    X509Certificate first;
    try (Gateway g = Gateway.start(TestVertx.create(), yaml)) {
      first = handshake(port, null, TLS12_AND_13, null).certificate();
    }
    assertThat(certFile).exists();
    assertThat(first).isEqualTo(TestCertificates.read(certFile));
    assertThat(first.getSubjectAlternativeNames()).as("names: localhost, the load balancer, the node address")
        .anySatisfy(n -> assertThat(n.get(1)).isEqualTo("localhost"))
        .anySatisfy(n -> assertThat(n.get(1)).isEqualTo("127.0.0.1"));
    assertThat(Files.getPosixFilePermissions(keyFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    long written = Files.getLastModifiedTime(certFile).toMillis();

    try (Gateway g = Gateway.start(TestVertx.create(), yaml)) {
      assertThat(handshake(port, null, TLS12_AND_13, null).certificate()).as("the same certificate after a restart")
          .isEqualTo(first);
    }
    assertThat(Files.getLastModifiedTime(certFile).toMillis()).isEqualTo(written);
  }
}
