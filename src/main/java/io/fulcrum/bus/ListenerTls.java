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
 */
public record ListenerTls(List<String> certificateFiles, List<String> keyFiles, String pkcs12File, String password,
    List<String> certificateArns, SecurityPolicy policy, List<String> alpn, MutualAuthentication mutualAuthentication) {

  public ListenerTls {
    certificateFiles = List.copyOf(certificateFiles);
    keyFiles = List.copyOf(keyFiles);
    certificateArns = List.copyOf(certificateArns);
    alpn = List.copyOf(alpn);
    mutualAuthentication = mutualAuthentication == null ? MutualAuthentication.OFF : mutualAuthentication;
  }
}
