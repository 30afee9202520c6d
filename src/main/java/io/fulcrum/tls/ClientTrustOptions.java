package io.fulcrum.tls;

import io.fulcrum.model.MutualAuthentication;
import io.vertx.core.Vertx;
import io.vertx.core.net.TrustOptions;
import java.net.Socket;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.util.function.Function;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509ExtendedTrustManager;

/**
 * How an HTTPS listener with mutual TLS judges its clients' certificates, as Vert.x's trust
 * options: passthrough takes any certificate, verify checks it against the trust store
 * ({@link ClientCertificateVerifier}). Vert.x asks for the trust manager off the event loop as it
 * builds the listener's TLS context, and that is when the trust store's files are read. Equal for
 * equal settings, so that an unchanged listener keeps its context.
 */
public record ClientTrustOptions(MutualAuthentication mutualAuthentication, Clock clock) implements TrustOptions {

  @Override
  public TrustOptions copy() {
    return this;
  }

  @Override
  public TrustManagerFactory getTrustManagerFactory(Vertx vertx) throws Exception {
    return TrustOptions.wrap(trustManager()).getTrustManagerFactory(vertx);
  }

  @Override
  public Function<String, TrustManager[]> trustManagerMapper(Vertx vertx) {
    return null; // one trust manager whatever name the client asks for
  }

  private TrustManager trustManager() {
    MutualAuthentication m = mutualAuthentication;
    return switch (m.mode()) {
      case VERIFY -> ClientCertificateVerifier.load(m.trustStore(), m.ignoreClientCertificateExpiry(),
          m.advertiseTrustStoreCaNames(), clock);
      case PASSTHROUGH -> AnyCertificate.INSTANCE;
      case OFF -> throw new IllegalStateException("a listener without mutual TLS asks for no client certificate");
    };
  }

  /** Passthrough: any certificate the client sends is taken (the target judges it), and none is named. */
  private static final class AnyCertificate extends X509ExtendedTrustManager {
    static final AnyCertificate INSTANCE = new AnyCertificate();
    private static final X509Certificate[] NONE = new X509Certificate[0];

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) {
    }

    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) {
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) throws java.security.cert.CertificateException {
      throw new java.security.cert.CertificateException("a listener's client certificates only");
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket)
        throws java.security.cert.CertificateException {
      checkServerTrusted(chain, authType);
    }

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine)
        throws java.security.cert.CertificateException {
      checkServerTrusted(chain, authType);
    }

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return NONE;
    }
  }
}
