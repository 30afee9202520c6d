package io.fulcrum.model;

import java.util.List;

/**
 * A trust store (ALB's mutual TLS verify mode): the certificate authorities a listener trusts to
 * have issued its clients' certificates, and the revocation lists it checks them against. Files,
 * read when a listener that uses it binds.
 *
 * @param arn             its identity as the API reports it, derived from its name
 * @param name            its name (1-32 letters, digits and hyphens)
 * @param caCertificates  a PEM file holding the CA certificates (roots and intermediates alike are trusted)
 * @param revocationFiles certificate revocation lists (PEM or DER), each signed by one of the CAs
 * @param caCount         how many CA certificates the bundle held when it was read
 * @param revokedPerList  how many revoked certificates each of its lists named when they were read,
 *                        in the order of {@code revocationFiles}
 * @param digest          a digest of the files' contents when they were read (a changed file makes
 *                        another trust store, which listeners using it take up); null when not known
 */
public record TrustStore(String arn, String name, String caCertificates, List<String> revocationFiles, int caCount,
    List<Integer> revokedPerList, String digest) {

  public TrustStore {
    revocationFiles = List.copyOf(revocationFiles);
    revokedPerList = List.copyOf(revokedPerList);
  }

  /** A trust store whose files have not been read. */
  public TrustStore(String arn, String name, String caCertificates, List<String> revocationFiles) {
    this(arn, name, caCertificates, revocationFiles, 0, List.of(), null);
  }

  /** How many revoked certificates its lists name in all. */
  public int revokedCount() {
    return revokedPerList.stream().mapToInt(Integer::intValue).sum();
  }
}
