package io.fulcrum.api;

/**
 * An error answered in ELBv2's {@code ErrorResponse} shape: the exact AWS code (no
 * {@code Exception} suffix), a message, the HTTP status and whose fault it is.
 */
public final class ApiError extends RuntimeException {

  private final String code;
  private final int status;

  public ApiError(String code, String message, int status) {
    super(message);
    this.code = code;
    this.status = status;
  }

  /** A client error (HTTP 400, {@code Type=Sender}). */
  public static ApiError sender(String code, String message) {
    return new ApiError(code, message, 400);
  }

  /** {@code ValidationError}, the generic constraint failure of the Query protocol. */
  public static ApiError validation(String message) {
    return sender("ValidationError", message);
  }

  /**
   * AWS's wording for a field constraint: {@code 1 validation error detected: Value '301' at
   * 'healthCheckIntervalSeconds' failed to satisfy constraint: Member must have value less than or
   * equal to 300}.
   */
  public static ApiError constraint(Object value, String member, String constraint) {
    return validation("1 validation error detected: Value '" + value + "' at '" + member
        + "' failed to satisfy constraint: Member must " + constraint);
  }

  public String code() {
    return code;
  }

  public int status() {
    return status;
  }

  /** {@code Sender} for 4xx, {@code Receiver} for 5xx. */
  public String type() {
    return status >= 500 ? "Receiver" : "Sender";
  }
}
