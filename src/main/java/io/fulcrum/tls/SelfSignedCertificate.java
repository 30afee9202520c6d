package io.fulcrum.tls;

import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A self-signed certificate for HTTPS listeners configured without one: generated once into
 * {@code <data dir>/tls/} (PEM certificate and PKCS#8 key, the key readable by its owner only) and
 * reused on later starts. Blocking file I/O: call it from a worker thread.
 */
public final class SelfSignedCertificate {

  public static final String CERT_FILE = "self-signed-cert.pem";
  public static final String KEY_FILE = "self-signed-key.pem";

  private SelfSignedCertificate() {
  }

  /** The PEM certificate and key files, generated when missing. */
  public record PemFiles(Path certificate, Path privateKey) {
  }

  /**
   * Ensures the certificate exists.
   *
   * @param names DNS names and IP addresses it is for (subject alternative names)
   */
  public static PemFiles ensure(Path dataDir, List<String> names) {
    Path dir = dataDir.resolve("tls");
    Path cert = dir.resolve(CERT_FILE);
    Path key = dir.resolve(KEY_FILE);
    if (Files.isReadable(cert) && Files.isReadable(key)) {
      return new PemFiles(cert, key);
    }
    try {
      Files.createDirectories(dir);
      KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
      gen.initialize(256, new SecureRandom());
      KeyPair pair = gen.generateKeyPair();
      X509Certificate x509 = certificate(pair, names, Instant.now().minus(Duration.ofDays(1)),
          Instant.now().plus(Duration.ofDays(825)));
      write(key, pkcs8(pair.getPrivate()), true);
      write(cert, pem(x509), false);
      return new PemFiles(cert, key);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the self-signed certificate into " + dir + ": " + e.getMessage(), e);
    } catch (Exception e) {
      throw new IllegalStateException("cannot generate a self-signed certificate: " + e.getMessage(), e);
    }
  }

  /** A self-signed certificate for {@code names}, valid from {@code notBefore} to {@code notAfter}. */
  public static X509Certificate certificate(KeyPair pair, List<String> names, Instant notBefore, Instant notAfter)
      throws Exception {
    X500Name subject = new X500Name("CN=" + (names.isEmpty() ? "fulcrum" : names.get(0)) + ",O=Fulcrum self-signed");
    X509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(subject, new BigInteger(64, new SecureRandom()),
        Date.from(notBefore), Date.from(notAfter), subject, pair.getPublic());
    List<GeneralName> sans = new ArrayList<>();
    for (String n : names) {
      boolean ip = io.fulcrum.model.IpAddresses.isLiteral(n);
      sans.add(new GeneralName(ip ? GeneralName.iPAddress : GeneralName.dNSName, n));
    }
    b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(sans.toArray(GeneralName[]::new)));
    b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
    String alg = pair.getPrivate().getAlgorithm().equals("EC") ? "SHA256withECDSA" : "SHA256withRSA";
    ContentSigner signer = new JcaContentSignerBuilder(alg).build(pair.getPrivate());
    return new JcaX509CertificateConverter().getCertificate(b.build(signer));
  }

  /** A private key as PEM {@code PRIVATE KEY} (PKCS#8), the form every TLS stack reads. */
  public static String pkcs8(java.security.PrivateKey key) {
    String b64 = java.util.Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded());
    return "-----BEGIN PRIVATE KEY-----\n" + b64 + "\n-----END PRIVATE KEY-----\n";
  }

  public static String pem(Object o) throws IOException {
    StringWriter w = new StringWriter();
    try (JcaPEMWriter p = new JcaPEMWriter(w)) {
      p.writeObject(o);
    }
    return w.toString();
  }

  private static void write(Path file, String content, boolean secret) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.writeString(tmp, content, StandardCharsets.US_ASCII);
    if (secret) {
      try {
        Files.setPosixFilePermissions(tmp, PosixFilePermissions.fromString("rw-------"));
      } catch (UnsupportedOperationException e) {
        // not a POSIX file system
      }
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
