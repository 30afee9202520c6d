package io.fulcrum.listener;

/** What a listening socket's failures were, read from an exception and its causes. */
final class SocketFailures {

  private SocketFailures() {
  }

  /**
   * Whether {@code e} (or a cause) is a TLS failure: a handshake that did not establish a session,
   * or bytes that are not TLS at all (cleartext HTTP on an HTTPS port).
   */
  static boolean tlsFailure(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException || t instanceof io.netty.handler.ssl.NotSslRecordException) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code e} (or a cause) says that the address to bind is in use. */
  static boolean addressInUse(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof java.net.BindException || String.valueOf(t.getMessage()).contains("Address already in use")) {
        return true;
      }
    }
    return false;
  }
}
