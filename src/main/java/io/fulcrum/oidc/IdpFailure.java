package io.fulcrum.oidc;

/**
 * Why a sign-in failed, in ALB's words: the access log's {@code error_reason} ({@code Auth*}) and
 * the status the user gets (401 for what the browser brought, 561 for an error the IdP returned,
 * 500 for an IdP that could not be reached or answered what cannot be used).
 */
public final class IdpFailure extends RuntimeException {

  public static final int UNAUTHORIZED = 401;
  public static final int IDP_ERROR = 561;
  public static final int INTERNAL = 500;

  private final String reason;
  private final int status;

  /**
   * @param reason the access log's {@code error_reason}, e.g. {@code AuthInvalidStateParam}; null for
   *               none (an error the IdP sent back with the user, which ALB logs without one)
   * @param status the status the client gets
   * @param detail what went wrong, for Fulcrum's own log
   */
  public IdpFailure(String reason, int status, String detail) {
    super(reason == null ? detail : reason + ": " + detail, null, false, false);
    this.reason = reason;
    this.status = status;
  }

  /** The access log's {@code error_reason}, or null. */
  public String reason() {
    return reason;
  }

  public int status() {
    return status;
  }
}
