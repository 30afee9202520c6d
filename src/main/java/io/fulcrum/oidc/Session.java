package io.fulcrum.oidc;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * What an authenticate-oidc session cookie holds, sealed: the user's claims as the IdP's user info
 * endpoint gave them, the access token and when it expires, the refresh token, and when the
 * session ends; with the issuer and client id it was made for, so that a cookie made for one action
 * is no session for another.
 *
 * @param claims               the user info endpoint's JSON object, as it came
 * @param refreshToken         the refresh token, or empty when the IdP gave none
 * @param accessExpiresAtMillis when the access token expires (0: the IdP did not say)
 * @param expiresAtMillis      when the session ends (its start plus the action's session timeout)
 */
public record Session(String issuer, String clientId, String subject, String accessToken, String claims,
    String refreshToken, long accessExpiresAtMillis, long expiresAtMillis) {

  private static final byte VERSION = 1;

  /** Whether it is a live session for an action with this issuer and client id at {@code nowMillis}. */
  public boolean validFor(String issuer, String clientId, long nowMillis) {
    return nowMillis < expiresAtMillis && this.issuer.equals(issuer) && this.clientId.equals(clientId);
  }

  /**
   * Whether the claims are to be read again before the session serves another request: its access
   * token expired and a refresh token can get another (without one, the claims serve until the
   * session ends, as on ALB).
   */
  public boolean refreshDue(long nowMillis) {
    return !refreshToken.isEmpty() && accessExpiresAtMillis > 0 && nowMillis >= accessExpiresAtMillis;
  }

  /** The same session with the tokens and claims of a refresh. */
  public Session refreshed(String accessToken, String claims, String refreshToken, long accessExpiresAtMillis) {
    return new Session(issuer, clientId, subject, accessToken, claims, refreshToken, accessExpiresAtMillis,
        expiresAtMillis);
  }

  /** The bytes to seal. */
  public byte[] encode() {
    return Bytes.write(VERSION, expiresAtMillis, issuer, clientId, subject, accessToken, claims, refreshToken,
        Long.toString(accessExpiresAtMillis));
  }

  /** The session in sealed bytes, or null when they are not one (another version, truncated). */
  public static Session decode(byte[] bytes) {
    try {
      ByteBuffer in = ByteBuffer.wrap(bytes);
      if (in.get() != VERSION) {
        return null;
      }
      long expires = in.getLong();
      Session s = new Session(Bytes.string(in), Bytes.string(in), Bytes.string(in), Bytes.string(in),
          Bytes.string(in), Bytes.string(in), Long.parseLong(Bytes.string(in)), expires);
      return in.hasRemaining() ? null : s;
    } catch (RuntimeException e) {
      return null;
    }
  }

  /** Length-prefixed UTF-8 strings after a version byte and a time. */
  static final class Bytes {
    private Bytes() {
    }

    static byte[] write(byte version, long time, String... strings) {
      byte[][] encoded = new byte[strings.length][];
      int size = 1 + 8;
      for (int i = 0; i < strings.length; i++) {
        encoded[i] = strings[i].getBytes(StandardCharsets.UTF_8);
        size += 4 + encoded[i].length;
      }
      ByteBuffer out = ByteBuffer.allocate(size).put(version).putLong(time);
      for (byte[] e : encoded) {
        out.putInt(e.length).put(e);
      }
      return out.array();
    }

    static String string(ByteBuffer in) {
      int length = in.getInt();
      if (length < 0 || length > in.remaining()) {
        throw new IllegalArgumentException("truncated");
      }
      String s = new String(in.array(), in.position(), length, StandardCharsets.UTF_8);
      in.position(in.position() + length);
      return s;
    }
  }
}
