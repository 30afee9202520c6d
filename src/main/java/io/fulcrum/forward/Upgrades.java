package io.fulcrum.forward;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;
import java.util.List;

/**
 * WebSocket upgrades (RFC 6455 §4, RFC 9110 §7.8), the one protocol switch ALB passes on: an
 * HTTP/1.1 {@code GET} without a body whose {@code Connection} header has the {@code upgrade}
 * token and whose {@code Upgrade} header names {@code websocket}. Any other {@code Upgrade} is a
 * hop-by-hop header like the rest, and leaves the request.
 */
public final class Upgrades {

  /** The header names as the load balancer writes them (Vert.x's constants are lower-case). */
  static final CharSequence UPGRADE = HttpHeaders.createOptimized("Upgrade");
  static final CharSequence CONNECTION = HttpHeaders.createOptimized("Connection");

  private Upgrades() {
  }

  /**
   * The request's {@code Upgrade} value when it asks for a WebSocket (to be passed to the target
   * as it came), else null. Read before the hop-by-hop headers leave the request.
   */
  public static String webSocket(HttpServerRequest request) {
    if (request.version() != HttpVersion.HTTP_1_1 || request.method() != HttpMethod.GET) {
      return null;
    }
    MultiMap headers = request.headers();
    String upgrade = headers.get(HttpHeaders.UPGRADE);
    if (upgrade == null || !hasToken(List.of(upgrade), "websocket")
        || !hasToken(headers.getAll(HttpHeaders.CONNECTION), "upgrade")
        || headers.contains(HttpHeaders.TRANSFER_ENCODING)) {
      return null;
    }
    String length = headers.get(HttpHeaders.CONTENT_LENGTH);
    return length == null || length.trim().equals("0") ? upgrade : null;
  }

  /** Whether {@code protocols} (an Upgrade value) names the WebSocket protocol. */
  static boolean isWebSocket(String protocols) {
    return protocols != null && hasToken(List.of(protocols), "websocket");
  }

  /**
   * Whether one of the comma-separated lists in {@code values} has {@code token}, in any case; a
   * protocol's version ({@code websocket/13}) does not count as the token.
   */
  static boolean hasToken(List<String> values, String token) {
    for (String value : values) {
      int start = 0;
      while (start <= value.length()) {
        int comma = value.indexOf(',', start);
        int end = comma < 0 ? value.length() : comma;
        if (value.substring(start, end).trim().equalsIgnoreCase(token)) {
          return true;
        }
        start = end + 1;
      }
    }
    return false;
  }
}
