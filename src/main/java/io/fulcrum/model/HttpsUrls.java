package io.fulcrum.model;

import java.net.URI;
import java.net.URISyntaxException;

/** The full {@code https://} URLs that actions name (JWKS, identity provider endpoints). */
final class HttpsUrls {

  private HttpsUrls() {
  }

  /**
   * Records a problem unless {@code url} is a full {@code https://} URL with a host, without user
   * info or fragment, of at most {@code maxLength} characters.
   *
   * @param required the problem when it is missing or empty
   */
  static void check(String url, String required, int maxLength, Problems p) {
    if (url == null || url.isEmpty()) {
      p.add(required);
      return;
    }
    if (url.length() > maxLength) {
      p.add(url.length() + " characters is above the maximum " + maxLength);
      return;
    }
    try {
      URI uri = new URI(url);
      if (!"https".equalsIgnoreCase(uri.getScheme()) || uri.getHost() == null || uri.getRawUserInfo() != null
          || uri.getRawFragment() != null) {
        p.add("'" + url + "' is not a full https:// URL (expected https://host[:port]/path)");
      }
    } catch (URISyntaxException e) {
      p.add("'" + url + "' is not a URL: " + e.getReason());
    }
  }
}
