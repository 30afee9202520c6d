package io.fulcrum.sticky;

import java.nio.charset.StandardCharsets;

/**
 * The three kinds of stickiness cookie. The kind's name is bound into each sealed value as
 * associated data, so a value cannot be moved from one kind of cookie to another.
 */
public enum CookieKind {
  /** Duration-based target stickiness: {@code AWSALB} and its CORS twin {@code AWSALBCORS}. */
  LB("AWSALB", "AWSALBCORS"),
  /** Application-based target stickiness: {@code AWSALBAPP-0} .. {@code AWSALBAPP-3} (shards of one value). */
  APP("AWSALBAPP", null),
  /** Target-group stickiness of weighted forward actions: {@code AWSALBTG} and {@code AWSALBTGCORS}. */
  TG("AWSALBTG", "AWSALBTGCORS");

  private final String cookie;
  private final String cors;
  private final byte[] aad;

  CookieKind(String cookie, String cors) {
    this.cookie = cookie;
    this.cors = cors;
    this.aad = cookie.getBytes(StandardCharsets.US_ASCII);
  }

  /** The cookie's name ({@code AWSALBAPP}: the shards' common prefix). */
  public String cookieName() {
    return cookie;
  }

  /** The name of the CORS twin ({@code SameSite=None; Secure}), or null. */
  public String corsName() {
    return cors;
  }

  byte[] aad() {
    return aad;
  }
}
