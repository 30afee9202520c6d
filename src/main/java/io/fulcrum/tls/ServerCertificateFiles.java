package io.fulcrum.tls;

import io.fulcrum.model.Certificate;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.impl.KeyStoreHelper;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.UnrecoverableKeyException;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads a server certificate's files the way a listener will serve them (Vert.x's PEM and PKCS#12
 * readers) and checks that its private key belongs to it, so that a file that cannot be served is
 * named where it is configured: at start-up, and when it is replaced under a running listener (which
 * then keeps the certificate it has). Blocking: call it off the event loop.
 */
public final class ServerCertificateFiles {

  private static final byte[] PROBE = "fulcrum key pair check".getBytes(StandardCharsets.US_ASCII);

  /**
   * What is wrong with one of a certificate's files.
   *
   * @param key the configuration key naming the file: {@code certificate}, {@code private-key} or {@code pkcs12}
   */
  public record Problem(String key, String message) {
  }

  private ServerCertificateFiles() {
  }

  /** What keeps {@code c}'s files from being served, or null when nothing does (and for the self-signed one). */
  public static Problem check(Certificate c) {
    if (c.pem()) {
      return pem(c.certificateFile(), c.privateKeyFile());
    }
    return c.pkcs12File() == null ? null : pkcs12(c.pkcs12File(), c.password());
  }

  private static Problem pem(String certificateFile, String keyFile) {
    Buffer chain;
    Buffer key;
    try {
      chain = Buffer.buffer(Files.readAllBytes(Path.of(certificateFile)));
    } catch (IOException e) {
      return new Problem("certificate", "'" + certificateFile + "' cannot be read: " + e.getMessage());
    }
    try {
      key = Buffer.buffer(Files.readAllBytes(Path.of(keyFile)));
    } catch (IOException e) {
      return new Problem("private-key", "'" + keyFile + "' cannot be read: " + e.getMessage());
    }
    try {
      KeyStoreHelper.loadCA(Stream.of(chain));
    } catch (Exception e) {
      return new Problem("certificate", "'" + certificateFile + "' is not a PEM certificate chain: " + reason(e));
    }
    Problem mismatch = new Problem("private-key", "'" + keyFile + "' is not the private key of the certificate in '"
        + certificateFile + "' (the first one there)");
    KeyStore pair;
    try {
      pair = KeyStoreHelper.loadKeyCert(List.of(key), List.of(chain));
    } catch (IllegalArgumentException e) {
      return mismatch; // a key of another algorithm than the certificate's
    } catch (Exception e) {
      return new Problem("private-key", "'" + keyFile + "' is not a PEM private key (PKCS#8, PKCS#1 RSA or SEC 1 EC): "
          + reason(e));
    }
    try {
      String alias = pair.aliases().nextElement();
      Key privateKey = pair.getKey(alias, KeyStoreHelper.DUMMY_PASSWORD.toCharArray());
      PublicKey leaf = pair.getCertificateChain(alias)[0].getPublicKey();
      return belongs(privateKey, leaf) ? null : mismatch;
    } catch (GeneralSecurityException e) {
      return new Problem("private-key", "'" + keyFile + "' cannot be used: " + reason(e));
    }
  }

  private static Problem pkcs12(String file, String password) {
    char[] secret = password == null ? null : password.toCharArray();
    KeyStore store;
    try {
      store = KeyStore.getInstance("PKCS12");
      store.load(new ByteArrayInputStream(Files.readAllBytes(Path.of(file))), secret);
    } catch (IOException e) {
      return new Problem("pkcs12", e.getCause() instanceof UnrecoverableKeyException
          ? "'" + file + "' cannot be opened with the password given"
          : "'" + file + "' is not a PKCS#12 keystore: " + reason(e));
    } catch (GeneralSecurityException e) {
      return new Problem("pkcs12", "'" + file + "' is not a PKCS#12 keystore: " + reason(e));
    }
    try {
      for (String alias : Collections.list(store.aliases())) {
        if (store.isKeyEntry(alias)) {
          Key key = store.getKey(alias, secret);
          java.security.cert.Certificate[] chain = store.getCertificateChain(alias);
          if (chain == null || chain.length == 0) {
            return new Problem("pkcs12", "'" + file + "' holds a private key without its certificate");
          }
          return belongs(key, chain[0].getPublicKey()) ? null
              : new Problem("pkcs12", "'" + file + "' holds a private key that is not its certificate's");
        }
      }
      return new Problem("pkcs12", "'" + file + "' holds no private key");
    } catch (GeneralSecurityException e) {
      return new Problem("pkcs12", "'" + file + "' cannot be read with the password given: " + reason(e));
    }
  }

  /**
   * Whether {@code key} signs what {@code certified} verifies. Key types this check does not know
   * pass (the handshake is their test).
   */
  static boolean belongs(Key key, PublicKey certified) {
    if (!(key instanceof PrivateKey privateKey)) {
      return false;
    }
    String algorithm = switch (key.getAlgorithm()) {
      case "RSA" -> "SHA256withRSA";
      case "EC" -> "SHA256withECDSA";
      case "Ed25519", "EdDSA" -> "Ed25519";
      default -> null;
    };
    if (algorithm == null) {
      return true;
    }
    try {
      Signature signer = Signature.getInstance(algorithm);
      signer.initSign(privateKey);
      signer.update(PROBE);
      byte[] signature = signer.sign();
      Signature verifier = Signature.getInstance(algorithm);
      verifier.initVerify(certified);
      verifier.update(PROBE);
      return verifier.verify(signature);
    } catch (GeneralSecurityException | IllegalArgumentException e) {
      return false; // another key type or curve than the certificate's
    }
  }

  private static String reason(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getMessage() != null && cause.getMessage().startsWith(cause.getCause().getClass().getName())) {
      cause = cause.getCause();
    }
    return String.valueOf(cause.getMessage());
  }
}
