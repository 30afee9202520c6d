package io.fulcrum.model;

/**
 * A server certificate of an HTTPS listener, from PEM files or a PKCS#12 keystore. With neither,
 * Fulcrum generates a self-signed certificate into the data dir.
 *
 * @param arn             its identity as the API reports it ({@code arn:aws:acm:...}), derived from the files
 * @param certificateFile a PEM file holding the certificate (and its chain), or null
 * @param privateKeyFile  a PEM file holding its private key, or null
 * @param pkcs12File      a PKCS#12 keystore, or null
 * @param password        the keystore's password, or null
 */
public record Certificate(String arn, String certificateFile, String privateKeyFile, String pkcs12File, String password) {

  public boolean pem() {
    return certificateFile != null;
  }

  @Override
  public String toString() {
    return "Certificate[" + (pem() ? certificateFile : pkcs12File) + "]";
  }
}
