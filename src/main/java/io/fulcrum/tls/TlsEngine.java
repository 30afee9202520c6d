package io.fulcrum.tls;

import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SslProvider;
import io.vertx.core.net.SSLEngineOptions;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import javax.net.ssl.SSLContext;

/**
 * The TLS implementation under every TLS session the data plane ends or opens (HTTPS and TLS
 * listeners, HTTPS, TLS, HTTP2 and gRPC targets, HTTPS health checks), chosen by
 * {@code FULCRUM_TLS_ENGINE}:
 * <ul>
 *   <li>{@code auto} (the default): BoringSSL through Netty's tcnative, which the jar carries for
 *   Linux x86_64 and aarch64, where it loads; the JDK's TLS elsewhere;</li>
 *   <li>{@code openssl}: BoringSSL, or start-up stops;</li>
 *   <li>{@code jdk}: the JDK's TLS (JSSE).</li>
 * </ul>
 * Through a TLS listener, BoringSSL takes less than half the JDK's CPU for a new session and four
 * fifths for a request on an open one (loadtest/RESULTS.md). It does not offer the CBC suites with SHA-256 and SHA-384 MACs that older
 * ELB policies list; those are left out of what a listener offers.
 */
public enum TlsEngine {
  OPENSSL, JDK;

  public static final String ENV = "FULCRUM_TLS_ENGINE";
  static final List<String> VALUES = List.of("auto", "openssl", "jdk");

  private static final Set<String> JDK_CIPHERS;

  static {
    try {
      JDK_CIPHERS = Set.of(SSLContext.getDefault().getSupportedSSLParameters().getCipherSuites());
    } catch (Exception e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** The engine in use; {@code auto}'s choice until {@link #use} says otherwise. */
  private static volatile TlsEngine current = OpenSsl.isAvailable() ? OPENSSL : JDK;

  /** The engine every TLS session of the process uses. */
  public static TlsEngine current() {
    return current;
  }

  /** Makes {@code engine} the process's, before anything uses TLS (start-up). */
  public static void use(TlsEngine engine) {
    current = engine;
  }

  /**
   * The engine {@code env} asks for.
   *
   * @throws IllegalArgumentException naming the variable, when its value is not one of
   *                                  {@link #VALUES}, or asks for BoringSSL where it does not load
   */
  public static TlsEngine choose(Map<String, String> env) {
    String value = env.get(ENV);
    String name = value == null || value.isBlank() ? "auto" : value.trim().toLowerCase(Locale.ROOT);
    switch (name) {
      case "auto":
        return OpenSsl.isAvailable() ? OPENSSL : JDK;
      case "openssl":
        if (!OpenSsl.isAvailable()) {
          Throwable cause = OpenSsl.unavailabilityCause();
          throw new IllegalArgumentException(ENV + "=" + value + ": BoringSSL does not load here"
              + (cause == null ? "" : " (" + cause.getMessage() + ")"));
        }
        return OPENSSL;
      case "jdk":
        return JDK;
      default:
        throw new IllegalArgumentException(ENV + "=" + value + ": not a TLS engine; use one of " + String.join(", ", VALUES));
    }
  }

  /** For Vert.x's servers and clients: cipher suites offered in ELB's order of preference ({@link OrderedCiphers}). */
  public SSLEngineOptions vertxOptions() {
    return this == OPENSSL ? new OrderedCiphers.OpenSsl() : new OrderedCiphers.Jdk();
  }

  /** For Netty's contexts. */
  public SslProvider nettyProvider() {
    return this == OPENSSL ? SslProvider.OPENSSL : SslProvider.JDK;
  }

  /** The cipher suites it can offer, by their Java names. */
  public Set<String> cipherSuites() {
    return this == OPENSSL ? OpenSsl.availableJavaCipherSuites() : JDK_CIPHERS;
  }

  /** What the banner and the log call it. */
  public String description() {
    return this == OPENSSL ? OpenSsl.versionString() : "JDK " + System.getProperty("java.version");
  }
}
