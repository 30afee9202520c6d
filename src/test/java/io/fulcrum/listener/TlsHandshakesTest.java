package io.fulcrum.listener;

import static org.assertj.core.api.Assertions.assertThat;

import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;

/** The reason a failed handshake gets in the connection log, from whatever the TLS engine reports. */
class TlsHandshakesTest {

  private static Throwable wrapped(String rootMessage) {
    SSLHandshakeException outer = new SSLHandshakeException("handshake failed");
    outer.initCause(new IllegalStateException(rootMessage));
    return new io.netty.handler.codec.DecoderException(outer);
  }

  @Test
  void aRefusedCertificate_isNamedByTheVerifiersReason_whereverItIsInTheChain() {
    assertThat(TlsHandshakes.reason(wrapped("ClientCertCrlHit: CN=x is revoked"))).isEqualTo("ClientCertCrlHit");
    assertThat(TlsHandshakes.reason(new SSLHandshakeException("ClientCertExpired: CN=x expired")))
        .isEqualTo("ClientCertExpired");
  }

  @Test
  void noCertificate_isClientCertMissing_andAnythingElseUnmapped() {
    assertThat(TlsHandshakes.reason(
        wrapped("error:10000412:SSL routines:OPENSSL_internal:PEER_DID_NOT_RETURN_A_CERTIFICATE")))
        .isEqualTo("ClientCertMissing");
    assertThat(TlsHandshakes.reason(wrapped("error:100000f0:SSL routines:OPENSSL_internal:UNSUPPORTED_PROTOCOL")))
        .isEqualTo("UnmappedConnectionError");
    assertThat(TlsHandshakes.reason(new java.nio.channels.ClosedChannelException())).isEqualTo("UnmappedConnectionError");
  }
}
