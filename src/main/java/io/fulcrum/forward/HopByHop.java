package io.fulcrum.forward;

import io.vertx.core.MultiMap;
import io.vertx.core.http.HttpHeaders;
import java.util.List;

/**
 * Removes hop-by-hop headers (RFC 9110 §7.6.1), including those a Connection header names, except
 * the ones that frame the message or name its host: a Connection that names Content-Length would
 * leave the body to go on without its length, and the next hop would read it as the next request
 * on the connection (request smuggling); Host is the one header every HTTP/1.1 request needs. RFC
 * 9110 has a sender never name such a header ("intended for all recipients"); a receiver keeps it.
 */
public final class HopByHop {

  private static final CharSequence[] ALWAYS = {
      HttpHeaders.CONNECTION, HttpHeaders.KEEP_ALIVE, HttpHeaders.createOptimized("proxy-connection"),
      HttpHeaders.createOptimized("te"), HttpHeaders.createOptimized("trailer"), HttpHeaders.TRANSFER_ENCODING, HttpHeaders.UPGRADE};

  private HopByHop() {
  }

  public static void strip(MultiMap headers) {
    List<String> connection =
        headers.contains(HttpHeaders.CONNECTION) ? headers.getAll(HttpHeaders.CONNECTION) : List.of();
    for (int i = 0; i < connection.size(); i++) {
      String value = connection.get(i);
      int start = 0;
      while (start < value.length()) {
        int comma = value.indexOf(',', start);
        int end = comma < 0 ? value.length() : comma;
        String token = value.substring(start, end).trim();
        if (!token.isEmpty() && !token.equalsIgnoreCase("content-length") && !token.equalsIgnoreCase("host")) {
          headers.remove(token);
        }
        start = end + 1;
      }
    }
    for (CharSequence name : ALWAYS) {
      headers.remove(name);
    }
  }
}
