package io.fulcrum.testing;

import io.fulcrum.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * Certificates for TLS tests, made with the same code Fulcrum uses for its self-signed one:
 * PEM pairs (valid or expired), PKCS#12 keystores, and client trust that accepts exactly the
 * certificates given (or anything, to look at what a server presents).
 */
public final class TestCertificates {

  private TestCertificates() {
  }

  /** A certificate and its key as PEM files, and the certificate itself. */
  public record Pem(Path certificate, Path privateKey, X509Certificate x509) {
  }

  /** An EC certificate for {@code names} valid from yesterday for a year, written into {@code dir}. */
  public static Pem pem(Path dir, String fileStem, String... names) {
    return pem(dir, fileStem, "EC", Instant.now().minus(Duration.ofDays(1)), Instant.now().plus(Duration.ofDays(365)),
        names);
  }

  /** A certificate that expired yesterday (valid the 30 days before). */
  public static Pem expired(Path dir, String fileStem, String... names) {
    return pem(dir, fileStem, "EC", Instant.now().minus(Duration.ofDays(31)), Instant.now().minus(Duration.ofDays(1)),
        names);
  }

  public static Pem pem(Path dir, String fileStem, String algorithm, Instant notBefore, Instant notAfter,
      String... names) {
    try {
      KeyPair pair = keyPair(algorithm);
      X509Certificate x509 = SelfSignedCertificate.certificate(pair, List.of(names), notBefore, notAfter);
      Path cert = dir.resolve(fileStem + "-cert.pem");
      Path key = dir.resolve(fileStem + "-key.pem");
      Files.writeString(cert, SelfSignedCertificate.pem(x509), StandardCharsets.US_ASCII);
      Files.writeString(key, SelfSignedCertificate.pkcs8(pair.getPrivate()), StandardCharsets.US_ASCII);
      return new Pem(cert, key, x509);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A PKCS#12 keystore with one entry per {@code names} group (alias = first name), each its own certificate. */
  public static Path pkcs12(Path file, String password, List<List<String>> entries) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      for (List<String> names : entries) {
        KeyPair pair = keyPair("EC");
        X509Certificate x509 = SelfSignedCertificate.certificate(pair, names, Instant.now().minus(Duration.ofDays(1)),
            Instant.now().plus(Duration.ofDays(365)));
        ks.setKeyEntry(names.get(0), pair.getPrivate(), password.toCharArray(), new Certificate[] {x509});
      }
      try (OutputStream out = Files.newOutputStream(file)) {
        ks.store(out, password.toCharArray());
      }
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair keyPair(String algorithm) throws Exception {
    KeyPairGenerator gen = KeyPairGenerator.getInstance(algorithm);
    gen.initialize(algorithm.equals("EC") ? 256 : 2048, new SecureRandom());
    return gen.generateKeyPair();
  }

  /** Reads the first certificate of a PEM file. */
  public static X509Certificate read(Path pem) {
    try (InputStream in = Files.newInputStream(pem)) {
      return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A client context that trusts exactly {@code trusted} (host names are still checked by the client). */
  public static SSLContext trusting(X509Certificate... trusted) {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      for (int i = 0; i < trusted.length; i++) {
        ks.setCertificateEntry("trusted-" + i, trusted[i]);
      }
      TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(ks);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), new SecureRandom());
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** A client context that accepts any server certificate: for looking at what a server presents. */
  public static SSLContext trustingAnything() {
    try {
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, new TrustManager[] {new TrustAll()}, new SecureRandom());
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static final class TrustAll extends X509ExtendedTrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
