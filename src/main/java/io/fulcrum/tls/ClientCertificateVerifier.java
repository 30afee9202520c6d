package io.fulcrum.tls;

import io.fulcrum.model.TrustStore;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.cert.CertPathBuilder;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertStore;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.CollectionCertStoreParameters;
import java.security.cert.PKIXBuilderParameters;
import java.security.cert.PKIXCertPathBuilderResult;
import java.security.cert.TrustAnchor;
import java.security.cert.X509CRL;
import java.security.cert.X509CRLEntry;
import java.security.cert.X509CertSelector;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Date;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.X509ExtendedTrustManager;
import javax.security.auth.x500.X500Principal;

/**
 * ALB's mutual TLS verify mode: a client's certificate must be an X.509v3 certificate meant for
 * client authentication (its key usage and extended key usage, when it has them, allow it, as
 * OpenSSL's purpose check has it), chain, through the intermediates it sends, to a certificate of
 * the trust store (roots and intermediates of the CA bundle alike are trusted), be within its
 * validity (unless expiry is ignored) and not be on a revocation list of the trust store. Anything
 * else fails the handshake. The client's chain may come in any order and may include the trusted
 * certificate itself.
 *
 * <p>Built once per listener setup, off the event loop (the files are read then); a check runs on
 * the event loop during the handshake and reads nothing. The verdict's reason is named as ALB's
 * connection log names it ({@code ClientCertExpired}, {@code ClientCertCrlHit}, ...).
 */
public final class ClientCertificateVerifier extends X509ExtendedTrustManager {

  /** Why a client certificate was refused, as ALB's connection log names it. */
  public enum Failure {
    /** No certificate was sent (ALB names no code for it; BoringSSL refuses such a handshake before asking). */
    ClientCertMissing,
    /** It does not chain to the trust store, or a signature in the chain is wrong. */
    ClientCertUntrusted,
    /** It is past its validity. */
    ClientCertExpired,
    /** Its validity has not begun. */
    ClientCertNotYetValid,
    /** It, or a certificate between it and the trust store, is on a revocation list. */
    ClientCertCrlHit,
    /** It is not an X.509v3 certificate. */
    ClientCertTypeUnsupported,
    /** Its key usage or extended key usage does not allow client authentication. */
    ClientCertPurposeInvalid
  }

  /** The extended key usages that allow TLS client authentication: clientAuth, and any. */
  private static final Set<String> CLIENT_AUTH_USAGES = Set.of("1.3.6.1.5.5.7.3.2", "2.5.29.37.0");
  private static final int DIGITAL_SIGNATURE = 0;
  private static final int KEY_AGREEMENT = 4;

  /** A refused client certificate: a handshake failure that names its reason. */
  public static final class Refused extends CertificateException {
    private final Failure failure;
    /** The client's certificate, or null when it sent none. */
    private transient X509Certificate leaf;
    /** The TLS version and cipher suite (OpenSSL's name) the handshake had agreed on, or null. */
    private transient String protocol;
    private transient String cipherSuite;

    Refused(Failure failure, String detail) {
      super(failure + ": " + detail);
      this.failure = failure;
    }

    public Failure failure() {
      return failure;
    }

    /** The certificate the client sent, refused; null when it sent none (the connection log names it). */
    public X509Certificate leaf() {
      return leaf;
    }

    /** The TLS version the handshake had agreed on when the certificate was refused, or null. */
    public String protocol() {
      return protocol;
    }

    /** The cipher suite (OpenSSL's name, as ALB writes it) the handshake had agreed on when the certificate was refused, or null. */
    public String cipherSuite() {
      return cipherSuite;
    }
  }

  private final List<X509Certificate> authorities;
  private final Set<TrustAnchor> anchors;
  private final List<X509CRL> revocations;
  private final List<Integer> revokedPerList;
  private final boolean ignoreExpiry;
  private final X509Certificate[] advertised;
  private final Clock clock;

  private ClientCertificateVerifier(List<X509Certificate> authorities, List<X509CRL> revocations,
      List<Integer> revokedPerList, boolean ignoreExpiry, boolean advertise, Clock clock) {
    this.authorities = List.copyOf(authorities);
    Set<TrustAnchor> a = new HashSet<>();
    authorities.forEach(c -> a.add(new TrustAnchor(c, null)));
    this.anchors = Set.copyOf(a);
    this.revocations = List.copyOf(revocations);
    this.revokedPerList = List.copyOf(revokedPerList);
    this.ignoreExpiry = ignoreExpiry;
    this.advertised = advertise ? authorities.toArray(X509Certificate[]::new) : new X509Certificate[0];
    this.clock = clock;
  }

  /**
   * Reads a trust store's files: its CA certificates (PEM, at least one) and its revocation lists
   * (PEM or DER), each of which must be signed by one of those CAs.
   *
   * @throws IllegalArgumentException naming the file and what is wrong with it
   */
  public static ClientCertificateVerifier load(TrustStore store, boolean ignoreExpiry, boolean advertise, Clock clock) {
    return load(readAuthorities(store.caCertificates()), store, ignoreExpiry, advertise, clock);
  }

  /**
   * As {@link #load(TrustStore, boolean, boolean, Clock)}, with the CA certificates already read
   * from the bundle ({@link #readAuthorities}): only the revocation lists are read.
   */
  public static ClientCertificateVerifier load(List<X509Certificate> cas, TrustStore store, boolean ignoreExpiry,
      boolean advertise, Clock clock) {
    List<X509CRL> crls = new ArrayList<>();
    List<Integer> perList = new ArrayList<>();
    for (String file : store.revocationFiles()) {
      List<X509CRL> read = readRevocations(file, cas);
      crls.addAll(read);
      perList.add(read.stream().mapToInt(c -> c.getRevokedCertificates() == null ? 0 : c.getRevokedCertificates().size())
          .sum());
    }
    return new ClientCertificateVerifier(cas, crls, perList, ignoreExpiry, advertise, clock);
  }

  /**
   * A digest of a trust store's files as they are now (SHA-256 of each, in order), or of what could
   * not be read: a changed bundle or list gives another.
   */
  public static String digest(TrustStore store) {
    List<String> files = new ArrayList<>();
    files.add(store.caCertificates());
    files.addAll(store.revocationFiles());
    return FileDigest.of(files);
  }

  /** The CA certificates of a PEM bundle. */
  public static List<X509Certificate> readAuthorities(String file) {
    byte[] bytes = read(file);
    List<X509Certificate> cas = new ArrayList<>();
    try {
      for (java.security.cert.Certificate c : CertificateFactory.getInstance("X.509")
          .generateCertificates(new ByteArrayInputStream(bytes))) {
        cas.add((X509Certificate) c);
      }
    } catch (CertificateException e) {
      throw new IllegalArgumentException("'" + file + "' is not a PEM bundle of CA certificates: " + e.getMessage());
    }
    if (cas.isEmpty()) {
      throw new IllegalArgumentException("'" + file + "' holds no certificate (expected PEM CA certificates)");
    }
    return cas; // an old X.509v1 root is trusted too, as OpenSSL trusts one; the clients' certificates must be v3
  }

  /** The revocation lists of a file, each checked against the CA that issued it. */
  private static List<X509CRL> readRevocations(String file, List<X509Certificate> cas) {
    byte[] bytes = read(file);
    Collection<? extends java.security.cert.CRL> read;
    try {
      read = CertificateFactory.getInstance("X.509").generateCRLs(new ByteArrayInputStream(bytes));
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("'" + file + "' is not a certificate revocation list: " + e.getMessage());
    }
    if (read.isEmpty()) {
      throw new IllegalArgumentException("'" + file + "' holds no certificate revocation list (expected PEM or DER)");
    }
    List<X509CRL> out = new ArrayList<>();
    for (java.security.cert.CRL c : read) {
      X509CRL crl = (X509CRL) c;
      X509Certificate issuer = cas.stream().filter(ca -> ca.getSubjectX500Principal().equals(crl.getIssuerX500Principal()))
          .filter(ca -> signedBy(crl, ca)).findFirst().orElse(null);
      if (issuer == null) {
        throw new IllegalArgumentException("'" + file + "': the revocation list of " + crl.getIssuerX500Principal()
            .getName(X500Principal.RFC2253) + " is not signed by a CA of the trust store");
      }
      out.add(crl);
    }
    return out;
  }

  private static boolean signedBy(X509CRL crl, X509Certificate ca) {
    try {
      crl.verify(ca.getPublicKey());
      return true;
    } catch (GeneralSecurityException e) {
      return false;
    }
  }

  private static byte[] read(String file) {
    try {
      return Files.readAllBytes(Path.of(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("'" + file + "' cannot be read (paths are relative to the working directory)");
    }
  }

  private static String name(X509Certificate c) {
    return c.getSubjectX500Principal().getName(X500Principal.RFC2253);
  }

  /** How many CA certificates the trust store holds. */
  public int authorities() {
    return authorities.size();
  }

  /** How many certificates each of its revocation lists names, in the order of the trust store's files. */
  public List<Integer> revokedPerList() {
    return revokedPerList;
  }

  /**
   * Checks a client's chain (its own certificate first).
   *
   * @throws Refused naming why it is refused
   */
  public void verify(X509Certificate[] chain) throws Refused {
    if (chain == null || chain.length == 0) {
      throw new Refused(Failure.ClientCertMissing, "the client sent no certificate");
    }
    try {
      check(chain);
    } catch (Refused r) {
      r.leaf = chain[0];
      throw r;
    }
  }

  private void check(X509Certificate[] chain) throws Refused {
    X509Certificate leaf = chain[0];
    if (leaf.getVersion() != 3) {
      throw new Refused(Failure.ClientCertTypeUnsupported, name(leaf) + " is an X.509v" + leaf.getVersion()
          + " certificate (X.509v3 expected)");
    }
    Instant now = clock.instant();
    // Validity is judged here, so that the reason is exact; the path is then built at a moment the
    // client's certificate is valid (now, or with expiry ignored the nearest end of its validity).
    Date at = Date.from(now);
    if (now.isAfter(leaf.getNotAfter().toInstant())) {
      if (!ignoreExpiry) {
        throw new Refused(Failure.ClientCertExpired, name(leaf) + " expired at " + leaf.getNotAfter().toInstant());
      }
      at = leaf.getNotAfter();
    } else if (now.isBefore(leaf.getNotBefore().toInstant())) {
      if (!ignoreExpiry) {
        throw new Refused(Failure.ClientCertNotYetValid, name(leaf) + " is valid from " + leaf.getNotBefore().toInstant());
      }
      at = leaf.getNotBefore();
    }
    List<X509Certificate> path = path(leaf, Arrays.asList(chain).subList(1, chain.length), at);
    // As OpenSSL, the purpose is judged once the chain is: a stranger's certificate is untrusted, whatever it is for.
    String purpose = purposeProblem(leaf);
    if (purpose != null) {
      throw new Refused(Failure.ClientCertPurposeInvalid, name(leaf) + ": " + purpose);
    }
    for (X509Certificate c : path) {
      X509CRLEntry revoked = revokedEntry(c);
      if (revoked != null) {
        throw new Refused(Failure.ClientCertCrlHit, name(c) + " (serial " + c.getSerialNumber().toString(16)
            + ") was revoked at " + revoked.getRevocationDate().toInstant());
      }
    }
  }

  /**
   * Why a certificate may not authenticate a TLS client, or null: an extended key usage without
   * clientAuth (or any), a key usage without digitalSignature (or keyAgreement).
   */
  private static String purposeProblem(X509Certificate c) {
    try {
      List<String> extended = c.getExtendedKeyUsage();
      if (extended != null && extended.stream().noneMatch(CLIENT_AUTH_USAGES::contains)) {
        return "its extended key usage " + extended + " does not include clientAuth (1.3.6.1.5.5.7.3.2)";
      }
    } catch (java.security.cert.CertificateParsingException e) {
      return "its extended key usage cannot be read";
    }
    boolean[] usage = c.getKeyUsage();
    if (usage != null && !usage[DIGITAL_SIGNATURE] && !(usage.length > KEY_AGREEMENT && usage[KEY_AGREEMENT])) {
      return "its key usage allows neither digitalSignature nor keyAgreement";
    }
    return null;
  }

  /** The certificates from the leaf up to, not including, the trusted one. */
  private List<X509Certificate> path(X509Certificate leaf, List<X509Certificate> intermediates, Date at) throws Refused {
    X509CertSelector target = new X509CertSelector();
    target.setCertificate(leaf);
    try {
      PKIXBuilderParameters params = new PKIXBuilderParameters(anchors, target);
      params.setRevocationEnabled(false); // the trust store's own lists are checked after
      params.setDate(at);
      List<X509Certificate> pool = new ArrayList<>(intermediates);
      pool.add(leaf);
      params.addCertStore(CertStore.getInstance("Collection", new CollectionCertStoreParameters(pool)));
      PKIXCertPathBuilderResult result = (PKIXCertPathBuilderResult) CertPathBuilder.getInstance("PKIX").build(params);
      List<X509Certificate> certs = new ArrayList<>();
      result.getCertPath().getCertificates().forEach(c -> certs.add((X509Certificate) c));
      if (certs.isEmpty()) {
        certs.add(leaf); // the client's certificate is itself in the trust store
      }
      // The trusted certificate can be revoked by a list of its own issuer, when that issuer is in the trust store too.
      certs.add(result.getTrustAnchor().getTrustedCert());
      return certs;
    } catch (CertPathBuilderException e) {
      throw new Refused(Failure.ClientCertUntrusted, name(leaf) + " does not chain to the trust store"
          + (e.getMessage() == null ? "" : " (" + e.getMessage() + ")"));
    } catch (GeneralSecurityException e) {
      throw new Refused(Failure.ClientCertUntrusted, name(leaf) + ": " + e.getMessage());
    }
  }

  private X509CRLEntry revokedEntry(X509Certificate c) {
    BigInteger serial = c.getSerialNumber();
    X500Principal issuer = c.getIssuerX500Principal();
    for (X509CRL crl : revocations) {
      if (crl.getIssuerX500Principal().equals(issuer)) {
        X509CRLEntry e = crl.getRevokedCertificate(serial);
        if (e != null) {
          return e;
        }
      }
    }
    return null;
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    verify(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    verify(chain);
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    try {
      verify(chain);
    } catch (Refused r) {
      agreed(r, engine); // read now, while the handshake is alive: its connection log line names them
      throw r;
    }
  }

  /** Notes on {@code r} the version and cipher suite {@code engine}'s handshake has agreed on, when it tells. */
  private static void agreed(Refused r, SSLEngine engine) {
    if (engine instanceof io.netty.handler.ssl.ReferenceCountedOpenSslEngine openssl) {
      // BoringSSL: its handshake session names no suite before the handshake ends; the SSL does.
      long ssl = openssl.sslPointer();
      if (ssl != 0) {
        r.protocol = io.netty.internal.tcnative.SSL.getVersion(ssl);
        r.cipherSuite = io.netty.internal.tcnative.SSL.getCipherForSSL(ssl);
      }
      return;
    }
    javax.net.ssl.SSLSession session = engine.getHandshakeSession();
    String java = session == null ? null : session.getCipherSuite();
    if (java != null && !java.startsWith("SSL_NULL")) {
      String openssl = io.netty.handler.ssl.CipherSuiteConverter.toOpenSsl(java, false);
      r.protocol = session.getProtocol();
      r.cipherSuite = openssl != null ? openssl : java;
    }
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    throw new CertificateException("a listener's trust store checks clients only");
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
    checkServerTrusted(chain, authType);
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
    checkServerTrusted(chain, authType);
  }

  /** The CAs named in the handshake's certificate request: the trust store's when advertised, else none. */
  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return advertised.clone();
  }
}
