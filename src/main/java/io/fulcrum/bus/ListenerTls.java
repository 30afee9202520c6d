package io.fulcrum.bus;

import io.fulcrum.model.MutualAuthentication;
import io.fulcrum.model.SecurityPolicy;
import java.util.List;

/**
 * The TLS side of an HTTPS or TLS listener: where its certificates are (PEM pairs, or one PKCS#12
 * keystore; the first certificate is the default, the others are chosen by SNI) and its security
 * policy. The files are read by Vert.x off the event loop when the server binds.
 *
 * @param certificateArns the certificates' ARNs, in the order of {@code certificateFiles} (one for a
 *             keystore), which the access logs name as the one a session was given
 * @param alpn a TLS listener's ALPN protocol ids, most preferred first (its ALPN policy's); empty:
 *             none negotiated (an HTTPS listener's come from its HTTP/2 setting instead)
 * @param mutualAuthentication an HTTPS listener's mutual TLS (its trust store's files are read when
 *             the listener binds); {@link MutualAuthentication#OFF} for none
 * @param filesDigest the digests of the certificates' files as they were last checked, in order (empty
 *             when not known): files replaced in place make other TLS settings, which the listener
 *             reads again for its new connections
 */
public record ListenerTls(List<String> certificateFiles, List<String> keyFiles, String pkcs12File, String password,
    List<String> certificateArns, SecurityPolicy policy, List<String> alpn, MutualAuthentication mutualAuthentication,
    String filesDigest) {

  public ListenerTls {
    certificateFiles = List.copyOf(certificateFiles);
    keyFiles = List.copyOf(keyFiles);
    certificateArns = List.copyOf(certificateArns);
    alpn = List.copyOf(alpn);
    mutualAuthentication = mutualAuthentication == null ? MutualAuthentication.OFF : mutualAuthentication;
    filesDigest = filesDigest == null ? "" : filesDigest;
  }

  /** The same settings, whatever their files' contents: what stays one TLS setup across their changes. */
  public ListenerTls setup() {
    return filesDigest.isEmpty() ? this : new ListenerTls(certificateFiles, keyFiles, pkcs12File, password,
        certificateArns, policy, alpn, mutualAuthentication, "");
  }
}
