package io.fulcrum.listener;

import io.fulcrum.bus.ListenerTls;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLSession;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of a TLS listener's certificates a session was given, by ARN: the access logs'
 * {@code chosen_cert_arn}. A listener with one certificate gives it to every session; with several,
 * the client's server name chose among them, and the session's own certificate is looked up among
 * the listener's leaves, read from their files off the event loop ({@link #read}) when the
 * listener's TLS settings are taken up. Immutable: a loop reads it without locks.
 */
final class ServedCertificates {

  private static final Logger LOG = LoggerFactory.getLogger(ServedCertificates.class);

  /** Knows no certificate: every session's is unknown. */
  static final ServedCertificates NONE = new ServedCertificates(Map.of(), null);

  /** The listener's leaf certificates (each file's first), to their ARNs; empty with {@link #only}. */
  private final Map<X509Certificate, String> byLeaf;
  /** The ARN of the listener's one certificate, or null when it has several. */
  private final String only;

  private ServedCertificates(Map<X509Certificate, String> byLeaf, String only) {
    this.byLeaf = byLeaf;
    this.only = only;
  }

  /**
   * The certificates of {@code tls}, read on a worker thread; files that cannot be read (which the
   * listener's TLS context cannot load either) leave every session's certificate unknown, with a
   * warning naming {@code listenerArn}. Never fails.
   */
  static Future<ServedCertificates> load(Vertx vertx, ListenerTls tls, String listenerArn) {
    return vertx.executeBlocking(() -> read(tls)).otherwise(e -> {
      LOG.warn("{}: the listener's certificates cannot be read for its access log: {}", listenerArn, e.toString());
      return NONE;
    });
  }

  /**
   * The certificates of {@code tls}, each PEM file's leaf read when there are several (blocking:
   * call it off the event loop).
   *
   * @throws IOException          a certificate file cannot be read
   * @throws CertificateException one does not start with a certificate
   */
  static ServedCertificates read(ListenerTls tls) throws IOException, CertificateException {
    List<String> arns = tls.certificateArns();
    if (arns.size() == 1) {
      return new ServedCertificates(Map.of(), arns.get(0));
    }
    if (arns.isEmpty() || tls.certificateFiles().size() != arns.size()) {
      return NONE;
    }
    CertificateFactory x509 = CertificateFactory.getInstance("X.509");
    Map<X509Certificate, String> byLeaf = new HashMap<>();
    for (int i = 0; i < arns.size(); i++) {
      try (InputStream in = Files.newInputStream(Path.of(tls.certificateFiles().get(i)))) {
        // The same leaf listed twice is the first one's: that is the one the key manager finds first.
        byLeaf.putIfAbsent((X509Certificate) x509.generateCertificate(in), arns.get(i));
      }
    }
    return new ServedCertificates(Map.copyOf(byLeaf), null);
  }

  /**
   * The ARN of the certificate {@code session} presented, or null when that is not known (no
   * session, or a certificate the listener no longer has).
   */
  String arnOf(SSLSession session) {
    if (only != null) {
      return only;
    }
    Certificate[] local = session == null ? null : session.getLocalCertificates();
    return local == null || local.length == 0 ? null : byLeaf.get(local[0]);
  }
}
