package io.fulcrum.listener;

import io.fulcrum.forward.ForwardHeaders;
import io.fulcrum.tls.ClientCertificateVerifier;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.concurrent.Future;
import java.net.InetSocketAddress;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Every TLS handshake of the connections of HTTPS listeners that keep a connection log, as it ends,
 * succeeded or failed: what ALB's connection log records, which Vert.x does not tell (a failed
 * handshake reaches a server's exception handler without the client's address, and nothing says
 * when the connection was accepted).
 *
 * <p>The network transport calls {@link #watch} for every connection a TLS server accepts; when a
 * listener of that address and port has asked for handshakes on the connection's event loop
 * ({@link #register}), a handler first in the pipeline notes the time and, once the TLS handler
 * has the client's hello, waits for its handshake, then hands the outcome to the listener on that
 * loop and leaves the pipeline. A connection nobody asked about is not touched.
 */
public final class TlsHandshakes {

  /** The connection's {@code conn_trace_id}, shared by its connection log line and its access log lines. */
  public static final AttributeKey<String> TRACE_ID = AttributeKey.valueOf("fulcrum.connTraceId");
  private static final String NAME = "fulcrum-tls-handshake";
  /** A refused certificate's reason, first in the message of the handshake's root cause. */
  private static final Pattern REASON = Pattern.compile("^(ClientCert[A-Za-z]+)\\b");

  /** Who asked, by event loop and listening address. */
  private static final ByListeningAddress<Consumer<Handshake>> LISTENERS = new ByListeningAddress<>();

  private TlsHandshakes() {
  }

  /**
   * A TLS handshake as it ended.
   *
   * @param client        the client's address
   * @param latencyNanos  from the connection's acceptance to the handshake's end
   * @param tls           the version and cipher suite agreed on (for a failed handshake, those it had
   *                      agreed on when the client's certificate was refused), or null
   * @param leaf          the client's certificate (one refused too), or null when it sent none
   * @param failure       null when it succeeded, else ALB's reason ({@code ClientCertUntrusted}, ...)
   * @param channel       the connection
   */
  public record Handshake(InetSocketAddress client, long latencyNanos, ForwardHeaders.Tls tls, X509Certificate leaf,
      String failure, Channel channel) {
  }

  /**
   * Hands the handshakes of the connections that {@code local} accepts on {@code loop} to
   * {@code listener}, which runs on that loop. Replaces an earlier registration of the same address
   * on that loop.
   */
  public static void register(EventExecutor loop, InetSocketAddress local, Consumer<Handshake> listener) {
    LISTENERS.register(loop, local, listener);
  }

  /** Stops handing over that address's handshakes on that loop. */
  public static void unregister(EventExecutor loop, InetSocketAddress local) {
    LISTENERS.unregister(loop, local);
  }

  /**
   * For a connection a TLS server has just accepted (its channel registered on its event loop, its
   * pipeline set up): watches its handshake when a listener asked for it.
   */
  public static void watch(Channel ch) {
    ByListeningAddress.Key key = LISTENERS.keyOf(ch);
    if (key != null) {
      ch.pipeline().addFirst(NAME, new Watch(System.nanoTime(), key));
    }
  }

  /** The reason ALB's connection log gives for a failed handshake. */
  static String reason(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof ClientCertificateVerifier.Refused refused) {
        return refused.failure().name();
      }
      Matcher m = t.getMessage() == null ? null : REASON.matcher(t.getMessage());
      if (m != null && m.find()) {
        return m.group(1);
      }
      String message = t.getMessage() == null ? "" : t.getMessage();
      if (message.contains("PEER_DID_NOT_RETURN_A_CERTIFICATE") || message.contains("Empty client certificate chain")
          || message.contains("Empty server certificate chain")) {
        return ClientCertificateVerifier.Failure.ClientCertMissing.name();
      }
    }
    return "UnmappedConnectionError";
  }

  /** First in the pipeline until the handshake ends. */
  private static final class Watch extends ChannelInboundHandlerAdapter {

    private final long acceptedNanos;
    private final ByListeningAddress.Key key;
    private boolean waiting;

    Watch(long acceptedNanos, ByListeningAddress.Key key) {
      this.acceptedNanos = acceptedNanos;
      this.key = key;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
      ctx.fireChannelRead(msg);
      if (!waiting) {
        // The TLS handler is there once the hello has been read (behind an SNI handler, which gives way to it).
        SslHandler ssl = ctx.pipeline().get(SslHandler.class);
        if (ssl != null) {
          waiting = true;
          ssl.handshakeFuture().addListener(f -> ended(ctx, ssl, f));
        }
      }
    }

    private void ended(ChannelHandlerContext ctx, SslHandler ssl, Future<? super Channel> f) {
      long latency = System.nanoTime() - acceptedNanos;
      if (ctx.pipeline().context(this) != null) {
        ctx.pipeline().remove(this);
      }
      Consumer<Handshake> listener = LISTENERS.get(key);
      if (listener == null || !(ctx.channel().remoteAddress() instanceof InetSocketAddress remote)) {
        return;
      }
      InetSocketAddress carried = CarriedClients.clientOf(remote);
      InetSocketAddress client = carried != null ? carried : remote;
      if (f.isSuccess()) {
        SSLSession session = ssl.engine().getSession();
        listener.accept(new Handshake(client, latency, ForwardHeaders.Tls.of(session), leaf(session), null,
            ctx.channel()));
      } else {
        // As ALB logs a refused client certificate: the version and suite agreed on, and the certificate.
        ClientCertificateVerifier.Refused refused = refused(f.cause());
        ForwardHeaders.Tls agreed = refused == null || refused.protocol() == null || refused.cipherSuite() == null
            ? null : new ForwardHeaders.Tls(refused.protocol(), refused.cipherSuite());
        listener.accept(new Handshake(client, latency, agreed, refused == null ? null : refused.leaf(),
            reason(f.cause()), ctx.channel()));
      }
    }

    /** The trust store's refusal of the client's certificate that failed the handshake, or null. */
    private static ClientCertificateVerifier.Refused refused(Throwable failure) {
      for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
        if (t instanceof ClientCertificateVerifier.Refused refused) {
          return refused;
        }
      }
      return null;
    }

    private static X509Certificate leaf(SSLSession session) {
      try {
        Certificate[] chain = session.getPeerCertificates();
        return chain != null && chain.length > 0 && chain[0] instanceof X509Certificate x ? x : null;
      } catch (SSLPeerUnverifiedException e) {
        return null;
      }
    }
  }
}
