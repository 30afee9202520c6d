package io.fulcrum.listener;

import io.fulcrum.forward.ClientCertHeaders;
import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.model.Arns;
import io.fulcrum.observe.LoopLog;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import javax.net.ssl.SSLSession;

/**
 * The TLS side of a network load balancer's flow, for its access log line: when the connection
 * was accepted, when its handshake ended, and what was agreed. Touched on the flow's loop only.
 */
final class TlsFlow {

  /** NLB's access log times: to the second, UTC, without a zone letter. */
  private static final DateTimeFormatter NLB_TIME =
      DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss").withZone(ZoneOffset.UTC);

  final long acceptedNanos;
  final long acceptedMillis;
  long handshakeNanos;
  SSLSession session;
  /** The server name the client indicated (SNI), or null. */
  String serverName;
  /** The application protocol agreed with the client (ALPN), or null. */
  String alpn;
  /** The protocols the client offered (ALPN), as the log has them, when the listener has an ALPN policy; or null. */
  String clientAlpn;
  /** The ARN of the listener's certificate the session was given, or null when not known. */
  private String chosenCertificate;

  TlsFlow(long acceptedNanos, long acceptedMillis) {
    this.acceptedNanos = acceptedNanos;
    this.acceptedMillis = acceptedMillis;
  }

  /** The handshake ended well, with {@code ssl}'s session, given one of {@code served}. */
  void established(SslHandler ssl, ServedCertificates served) {
    handshakeNanos = System.nanoTime();
    session = ssl.engine().getSession();
    alpn = ssl.applicationProtocol();
    chosenCertificate = served.arnOf(session);
  }

  /**
   * The connection's access log line, as it ends, in NLB's format (22 fields): {@code tls 2.0 time
   * elb listener client:port destination:port connection_time tls_handshake_time received_bytes
   * sent_bytes incoming_tls_alert chosen_cert_arn chosen_cert_serial tls_cipher tls_protocol_version
   * tls_named_group domain_name alpn_fe_protocol alpn_be_protocol alpn_client_preference_list
   * tls_connection_creation_time}; what Fulcrum does not know is {@code -}. Nothing for a connection
   * whose handshake did not end well.
   *
   * @param listenerArn the listener that accepted it
   * @param destination the node's address and the listener's port
   * @param received    bytes relayed from the client, and {@code sent} to it
   */
  void write(LoopLog.Lines lines, long nowMillis, String listenerArn, InetSocketAddress client,
      InetSocketAddress destination, long received, long sent) {
    if (session == null) {
      return;
    }
    StringBuilder line = lines.start(nowMillis).append("tls 2.0 ")
        .append(NLB_TIME.format(Instant.ofEpochMilli(nowMillis))).append(' ')
        .append(Arns.loadBalancerDimension(listenerArn)).append(' ')
        .append(listenerArn, listenerArn.lastIndexOf('/') + 1, listenerArn.length()).append(' ');
    if (client == null) {
      line.append('-');
    } else {
      line.append(client.getAddress().getHostAddress()).append(':').append(client.getPort());
    }
    line.append(' ').append(destination.getAddress().getHostAddress()).append(':').append(destination.getPort())
        .append(' ').append((System.nanoTime() - acceptedNanos) / 1_000_000).append(' ')
        .append((handshakeNanos - acceptedNanos) / 1_000_000).append(' ')
        .append(received).append(' ').append(sent).append(" - ")
        .append(chosenCertificate == null ? "-" : chosenCertificate).append(' ');
    Certificate[] local = session.getLocalCertificates();
    line.append(local != null && local.length > 0 && local[0] instanceof X509Certificate x
        ? ClientCertHeaders.serial(x) : "-").append(' ');
    ForwardHeaders.Tls agreed = ForwardHeaders.Tls.of(session);
    line.append(agreed.cipherSuite()).append(' ')
        .append(agreed.version().toLowerCase(Locale.ROOT).replace(".", "")).append(" - ")
        .append(serverName == null ? "-" : serverName).append(' ')
        .append(alpn == null ? "-" : alpn).append(" - ").append(clientAlpn == null ? "-" : clientAlpn).append(' ')
        .append(NLB_TIME.format(Instant.ofEpochMilli(acceptedMillis)));
    lines.end();
  }
}
