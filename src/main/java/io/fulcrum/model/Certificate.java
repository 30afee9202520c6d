package io.fulcrum.model;

/**
 * A server certificate of an HTTPS listener, from PEM files or a PKCS#12 keystore, or the
 * self-signed certificate that Fulcrum generates into its data dir (no files: see {@link #selfSigned()}).
 *
 * @param arn             its identity as the API reports it ({@code arn:aws:acm:...}), derived from the files
 * @param certificateFile a PEM file holding the certificate (and its chain), or null
 * @param privateKeyFile  a PEM file holding its private key, or null
 * @param pkcs12File      a PKCS#12 keystore, or null
 * @param password        the keystore's password, or null
 */
public record Certificate(String arn, String certificateFile, String privateKeyFile, String pkcs12File, String password) {

  /** The self-signed certificate of this deployment, known by {@code arn} (see {@link Arns#selfSignedCertificate()}). */
  public static Certificate selfSigned(String arn) {
    return new Certificate(arn, null, null, null, null);
  }

  public boolean pem() {
    return certificateFile != null;
  }

  /** The files it is read from, in a fixed order (none for the self-signed certificate). */
  public java.util.List<String> files() {
    return pem() ? java.util.List.of(certificateFile, privateKeyFile)
        : pkcs12File == null ? java.util.List.of() : java.util.List.of(pkcs12File);
  }

  /** Whether this is the generated self-signed certificate rather than one from files. */
  public boolean selfSigned() {
    return certificateFile == null && pkcs12File == null;
  }

  @Override
  public String toString() {
    return "Certificate[" + (pem() ? certificateFile : selfSigned() ? "self-signed" : pkcs12File) + "]";
  }
}
