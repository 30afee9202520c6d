package io.fulcrum.listener;

import io.netty.handler.ssl.SslHandler;
import javax.net.ssl.SSLSession;

/**
 * The TLS side of a network load balancer's flow, for its access log line: when the connection
 * was accepted, when its handshake ended, and what was agreed. Touched on the flow's loop only.
 */
final class TlsFlow {

  final long acceptedNanos;
  final long acceptedMillis;
  long handshakeNanos;
  SSLSession session;
  /** The server name the client indicated (SNI), or null. */
  String serverName;
  /** The application protocol agreed with the client (ALPN), or null. */
  String alpn;

  TlsFlow(long acceptedNanos, long acceptedMillis) {
    this.acceptedNanos = acceptedNanos;
    this.acceptedMillis = acceptedMillis;
  }

  /** The handshake ended well, with {@code ssl}'s session. */
  void established(SslHandler ssl) {
    handshakeNanos = System.nanoTime();
    session = ssl.engine().getSession();
    alpn = ssl.applicationProtocol();
  }
}
