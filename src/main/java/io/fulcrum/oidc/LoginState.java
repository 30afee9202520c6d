package io.fulcrum.oidc;

import java.nio.ByteBuffer;

/**
 * The {@code state} of an authorization request, sealed: which action sent the user to the IdP,
 * where the user was going, when, and the nonce that the browser holds in its
 * {@code AWSALBAuthNonce} cookie (a state is only redeemed by the browser it was given to).
 *
 * @param routeId the rule's ARN, or the listener's for its default actions
 * @param url     the URL to send the user back to once signed in
 * @param nonce   base64url, as the nonce cookie carries it
 */
public record LoginState(long issuedAtMillis, String routeId, String clientId, String nonce, String url) {

  /** How long a user may take at the IdP (Fulcrum's choice; AWS states none). */
  public static final long LIFETIME_MILLIS = 15 * 60 * 1000L;
  /** The cookie that binds a state to the browser it was given to (ALB's name). */
  public static final String NONCE_COOKIE = "AWSALBAuthNonce";

  private static final byte VERSION = 1;

  public boolean expired(long nowMillis) {
    return nowMillis - issuedAtMillis > LIFETIME_MILLIS || nowMillis < issuedAtMillis - 60_000;
  }

  public byte[] encode() {
    return Session.Bytes.write(VERSION, issuedAtMillis, routeId, clientId, nonce, url);
  }

  /** The state in sealed bytes, or null when they are not one. */
  public static LoginState decode(byte[] bytes) {
    try {
      ByteBuffer in = ByteBuffer.wrap(bytes);
      if (in.get() != VERSION) {
        return null;
      }
      long issued = in.getLong();
      LoginState s = new LoginState(issued, Session.Bytes.string(in), Session.Bytes.string(in),
          Session.Bytes.string(in), Session.Bytes.string(in));
      return in.hasRemaining() ? null : s;
    } catch (RuntimeException e) {
      return null;
    }
  }
}
