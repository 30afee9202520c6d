package io.fulcrum.forward;

import io.netty.util.AsciiString;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

/** What makes a request gRPC, and gRPC's view of the load balancer's own answers. */
public final class Grpc {

  private Grpc() {
  }

  /** HTTP/2 with {@code content-type: application/grpc...} (SPEC §7.1). */
  public static boolean isGrpc(HttpServerRequest request) {
    if (request.version() != HttpVersion.HTTP_2) {
      return false;
    }
    return isGrpc(request.headers().get(HttpHeaders.CONTENT_TYPE));
  }

  /**
   * Whether a Content-Type value is gRPC's: {@code application/grpc}, alone or with a message
   * format ({@code +proto}, {@code +json}, any other) or parameters. Not gRPC-Web
   * ({@code application/grpc-web}, {@code application/grpc-web-text}): another protocol, of browsers,
   * carried by plain HTTP to a proxy or server that speaks it; nor a type that only starts with the
   * same letters.
   */
  public static boolean isGrpc(CharSequence contentType) {
    if (contentType == null || !AsciiString.regionMatches(contentType, true, 0, "application/grpc", 0, 16)) {
      return false;
    }
    if (contentType.length() == 16) {
      return true;
    }
    char next = contentType.charAt(16);
    return next == '+' || next == ';' || next == ' ' || next == '\t';
  }

  /**
   * A gRPC deadline in milliseconds from a {@code grpc-timeout} header ({@code 100m}, {@code 5S},
   * {@code 1H}), or -1 when absent or malformed.
   */
  public static long timeoutMillis(String header) {
    if (header == null || header.length() < 2 || header.length() > 9) {
      return -1;
    }
    long n = 0;
    for (int i = 0; i < header.length() - 1; i++) {
      char c = header.charAt(i);
      if (c < '0' || c > '9') {
        return -1; // TimeoutValue is 1 to 8 ASCII digits: no sign, no space
      }
      n = n * 10 + (c - '0');
    }
    return switch (header.charAt(header.length() - 1)) {
      case 'H' -> n * 3_600_000;
      case 'M' -> n * 60_000;
      case 'S' -> n * 1000;
      case 'm' -> n;
      case 'u' -> Math.max(1, n / 1000);
      case 'n' -> Math.max(1, n / 1_000_000);
      default -> -1;
    };
  }
}
