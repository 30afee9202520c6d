package io.fulcrum.testing;

import io.fulcrum.tls.SelfSignedCertificate;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.net.Socket;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.Principal;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.cert.X509CRL;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedKeyManager;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.CRLReason;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v1CertificateBuilder;
import org.bouncycastle.cert.X509v2CRLBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CRLConverter;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v1CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.ContentSigner;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * A small public key infrastructure for mutual TLS tests: certificate authorities (a root, and
 * intermediates under it), client certificates they issue (valid, expired, not yet valid),
 * revocation lists, the PEM files a trust store reads, and client TLS contexts that present a
 * certificate and its chain.
 */
public final class TestPki {

  private static final AtomicLong SERIALS = new AtomicLong(0x1000);

  private TestPki() {
  }

  /** A certificate with its key, and the certificates above it up to (not including) its root. */
  public record Issued(X509Certificate certificate, KeyPair keys, List<X509Certificate> chain) {

    /** Its subject, as RFC 2253 writes it. */
    public String subject() {
      return certificate.getSubjectX500Principal().getName(javax.security.auth.x500.X500Principal.RFC2253);
    }

    /** A client context presenting this certificate and its chain, trusting {@code server}. */
    public SSLContext clientContext(X509Certificate server) {
      return clientContext(server, issuers -> { });
    }

    /**
     * As {@link #clientContext(X509Certificate)}, telling {@code certificateRequest} the CA names
     * each server's certificate request carries (none: an empty list).
     */
    public SSLContext clientContext(X509Certificate server, Consumer<List<Principal>> certificateRequest) {
      try {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(null, null);
        X509Certificate[] presented = new X509Certificate[chain.size() + 1];
        presented[0] = certificate;
        for (int i = 0; i < chain.size(); i++) {
          presented[i + 1] = chain.get(i);
        }
        ks.setKeyEntry("client", keys.getPrivate(), new char[0], presented);
        KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
        kmf.init(ks, new char[0]);
        X509ExtendedKeyManager keys = (X509ExtendedKeyManager) kmf.getKeyManagers()[0];
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(new KeyManager[] {new Recording(keys, certificateRequest)}, trustManagers(server), new SecureRandom());
        return ctx;
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    }

    /** Writes the certificate and its chain, and its key, as PEM files {@code <stem>-cert.pem} and {@code <stem>-key.pem}. */
    public TestCertificates.Pem write(Path dir, String stem) {
      try {
        StringBuilder pem = new StringBuilder(SelfSignedCertificate.pem(certificate));
        for (X509Certificate c : chain) {
          pem.append(SelfSignedCertificate.pem(c));
        }
        Path cert = dir.resolve(stem + "-cert.pem");
        Path key = dir.resolve(stem + "-key.pem");
        Files.writeString(cert, pem, StandardCharsets.US_ASCII);
        Files.writeString(key, SelfSignedCertificate.pkcs8(keys.getPrivate()), StandardCharsets.US_ASCII);
        return new TestCertificates.Pem(cert, key, certificate);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  /** A client's key manager that tells what CA names the server asked for, then answers as {@code keys} does. */
  private static final class Recording extends X509ExtendedKeyManager {
    private final X509ExtendedKeyManager keys;
    private final Consumer<List<Principal>> certificateRequest;

    Recording(X509ExtendedKeyManager keys, Consumer<List<Principal>> certificateRequest) {
      this.keys = keys;
      this.certificateRequest = certificateRequest;
    }

    @Override
    public String chooseEngineClientAlias(String[] keyType, Principal[] issuers, SSLEngine engine) {
      certificateRequest.accept(issuers == null ? List.of() : List.of(issuers));
      return keys.chooseEngineClientAlias(keyType, null, engine);
    }

    @Override
    public String chooseClientAlias(String[] keyType, Principal[] issuers, Socket socket) {
      certificateRequest.accept(issuers == null ? List.of() : List.of(issuers));
      return keys.chooseClientAlias(keyType, null, socket);
    }

    @Override
    public String[] getClientAliases(String keyType, Principal[] issuers) {
      return keys.getClientAliases(keyType, issuers);
    }

    @Override
    public String[] getServerAliases(String keyType, Principal[] issuers) {
      return keys.getServerAliases(keyType, issuers);
    }

    @Override
    public String chooseServerAlias(String keyType, Principal[] issuers, Socket socket) {
      return keys.chooseServerAlias(keyType, issuers, socket);
    }

    @Override
    public X509Certificate[] getCertificateChain(String alias) {
      return keys.getCertificateChain(alias);
    }

    @Override
    public PrivateKey getPrivateKey(String alias) {
      return keys.getPrivateKey(alias);
    }
  }

  private static TrustManager[] trustManagers(X509Certificate server) throws Exception {
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setCertificateEntry("server", server);
    javax.net.ssl.TrustManagerFactory tmf =
        javax.net.ssl.TrustManagerFactory.getInstance(javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    return tmf.getTrustManagers();
  }

  /** A self-signed root CA valid from yesterday for ten years. */
  public static Issued root(String cn) {
    KeyPair keys = keyPair();
    return new Issued(sign(cn, keys, null, keys, true, Instant.now().minus(Duration.ofDays(1)),
        Instant.now().plus(Duration.ofDays(3650))), keys, List.of());
  }

  /** An intermediate CA under {@code issuer}. */
  public static Issued intermediate(Issued issuer, String cn) {
    KeyPair keys = keyPair();
    X509Certificate c = sign(cn, keys, name(issuer), issuer.keys(), true, Instant.now().minus(Duration.ofDays(1)),
        Instant.now().plus(Duration.ofDays(3650)));
    return new Issued(c, keys, chainOf(issuer));
  }

  /** A client certificate issued by {@code issuer}, valid from yesterday for a year. */
  public static Issued client(Issued issuer, String cn) {
    return client(issuer, cn, Instant.now().minus(Duration.ofDays(1)), Instant.now().plus(Duration.ofDays(365)));
  }

  /** A client certificate issued by {@code issuer}, valid between the two instants. */
  public static Issued client(Issued issuer, String cn, Instant notBefore, Instant notAfter) {
    KeyPair keys = keyPair();
    X509Certificate c = sign(cn, keys, name(issuer), issuer.keys(), false, notBefore, notAfter);
    return new Issued(c, keys, chainOf(issuer));
  }

  /**
   * A client certificate of {@code issuer} with the given key usage bits (BouncyCastle's
   * {@link KeyUsage} constants) and extended key usages (none: no such extension).
   */
  public static Issued client(Issued issuer, String cn, int keyUsage, KeyPurposeId... extendedKeyUsages) {
    KeyPair keys = keyPair();
    X509Certificate c = sign(cn, keys, name(issuer), issuer.keys(), false, Instant.now().minus(Duration.ofDays(1)),
        Instant.now().plus(Duration.ofDays(365)), keyUsage, extendedKeyUsages);
    return new Issued(c, keys, chainOf(issuer));
  }

  /** An X.509v1 client certificate of {@code issuer}: no extensions at all. */
  public static Issued v1Client(Issued issuer, String cn) {
    try {
      KeyPair keys = keyPair();
      X509v1CertificateBuilder b = new JcaX509v1CertificateBuilder(dn(name(issuer)),
          BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(Instant.now().minus(Duration.ofDays(1))),
          Date.from(Instant.now().plus(Duration.ofDays(365))), dn(cn), keys.getPublic());
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.keys().getPrivate());
      return new Issued(new JcaX509CertificateConverter().getCertificate(b.build(signer)), keys, chainOf(issuer));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The issuer's certificate and the intermediates above it (not the root). */
  private static List<X509Certificate> chainOf(Issued issuer) {
    if (issuer.chain().isEmpty() && issuer.certificate().getSubjectX500Principal()
        .equals(issuer.certificate().getIssuerX500Principal())) {
      return List.of(); // the issuer is the root: the client's chain stops below it
    }
    java.util.ArrayList<X509Certificate> chain = new java.util.ArrayList<>();
    chain.add(issuer.certificate());
    chain.addAll(issuer.chain());
    return List.copyOf(chain);
  }

  /** A revocation list of {@code issuer} naming {@code revoked}, written as PEM. */
  public static Path crl(Path file, Issued issuer, X509Certificate... revoked) {
    try {
      Instant now = Instant.now();
      X509v2CRLBuilder b = new X509v2CRLBuilder(dn(name(issuer)), Date.from(now.minus(Duration.ofHours(1))));
      b.setNextUpdate(Date.from(now.plus(Duration.ofDays(7))));
      for (X509Certificate c : revoked) {
        b.addCRLEntry(c.getSerialNumber(), Date.from(now.minus(Duration.ofMinutes(30))), CRLReason.keyCompromise);
      }
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.keys().getPrivate());
      X509CRL crl = new JcaX509CRLConverter().getCRL(b.build(signer));
      Files.writeString(file, SelfSignedCertificate.pem(crl), StandardCharsets.US_ASCII);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** The certificates as one PEM bundle file (a trust store's CA certificates). */
  public static Path bundle(Path file, X509Certificate... certificates) {
    try {
      StringBuilder pem = new StringBuilder();
      for (X509Certificate c : certificates) {
        pem.append(SelfSignedCertificate.pem(c));
      }
      Files.writeString(file, pem, StandardCharsets.US_ASCII);
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The issuer's subject, exactly as encoded in its certificate. */
  private static String name(Issued issued) {
    return "#" + java.util.HexFormat.of().formatHex(issued.certificate().getSubjectX500Principal().getEncoded());
  }

  /** A name: {@code #hex} (an encoded one, kept as it is) or a common name under {@code O=Fulcrum Tests, C=US}. */
  private static X500Name dn(String name) {
    if (name.startsWith("#")) {
      return X500Name.getInstance(java.util.HexFormat.of().parseHex(name.substring(1)));
    }
    return new X500Name("C=US,O=Fulcrum Tests,CN=" + name);
  }

  private static X509Certificate sign(String subjectCn, KeyPair subject, String issuerName, KeyPair issuer, boolean ca,
      Instant notBefore, Instant notAfter) {
    return sign(subjectCn, subject, issuerName, issuer, ca, notBefore, notAfter,
        ca ? KeyUsage.keyCertSign | KeyUsage.cRLSign : KeyUsage.digitalSignature);
  }

  private static X509Certificate sign(String subjectCn, KeyPair subject, String issuerName, KeyPair issuer, boolean ca,
      Instant notBefore, Instant notAfter, int keyUsage, KeyPurposeId... extendedKeyUsages) {
    try {
      X500Name subjectName = dn(subjectCn);
      X500Name issuerDn = issuerName == null ? subjectName : dn(issuerName);
      JcaX509v3CertificateBuilder b = new JcaX509v3CertificateBuilder(issuerDn,
          BigInteger.valueOf(SERIALS.incrementAndGet()), Date.from(notBefore), Date.from(notAfter),
          subjectName, subject.getPublic());
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(keyUsage));
      if (extendedKeyUsages.length > 0) {
        b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(extendedKeyUsages));
      }
      ContentSigner signer = new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate());
      return new JcaX509CertificateConverter().getCertificate(b.build(signer));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static KeyPair keyPair() {
    try {
      KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
      gen.initialize(256, new SecureRandom());
      return gen.generateKeyPair();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
