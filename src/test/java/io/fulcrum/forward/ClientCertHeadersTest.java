package io.fulcrum.forward;

import static org.assertj.core.api.Assertions.assertThat;

import io.fulcrum.testing.TestPki;
import java.io.ByteArrayInputStream;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How the mutual TLS header values are written: OpenSSL's serial numbers, ALB's URL encoding of PEM. */
class ClientCertHeadersTest {

  @Test
  void urlEncoding_keepsLettersDigitsAndPlusEqualsSlash_encodesTheRest() {
    assertThat(ClientCertHeaders.urlEncoded("-----BEGIN CERTIFICATE-----\nMIIB+a/b==\n"))
        .isEqualTo("-----BEGIN%20CERTIFICATE-----%0AMIIB+a/b==%0A");
    assertThat(ClientCertHeaders.urlEncoded("a_b.c~d:e;f%")).isEqualTo("a_b.c~d%3Ae%3Bf%25");
  }

  @Test
  void thePemOfAChain_decodesBackToItsCertificates_inOrder() throws Exception {
    TestPki.Issued root = TestPki.root("Root");
    TestPki.Issued ca = TestPki.intermediate(root, "CA");
    TestPki.Issued client = TestPki.client(ca, "client");

    String header = ClientCertHeaders.urlEncoded(ClientCertHeaders.pem(client.certificate())
        + ClientCertHeaders.pem(ca.certificate()));

    assertThat(header).doesNotContain("\n", " ");
    List<X509Certificate> decoded = new ArrayList<>();
    CertificateFactory.getInstance("X.509").generateCertificates(new ByteArrayInputStream(
        URLDecoder.decode(header.replace("+", "%2B"), StandardCharsets.US_ASCII).getBytes(StandardCharsets.US_ASCII)))
        .forEach(c -> decoded.add((X509Certificate) c));
    assertThat(decoded).containsExactly(client.certificate(), ca.certificate());
  }

  @Test
  void serialNumbers_areUpperCaseHex_twoDigitsAByte() {
    TestPki.Issued root = TestPki.root("Root");
    X509Certificate c = TestPki.client(root, "client").certificate();
    String expected = c.getSerialNumber().toString(16).toUpperCase();
    if (expected.length() % 2 == 1) {
      expected = "0" + expected;
    }

    assertThat(ClientCertHeaders.serial(c)).isEqualTo(expected).matches("([0-9A-F]{2})+");
  }
}
