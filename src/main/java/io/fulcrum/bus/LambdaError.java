package io.fulcrum.bus;

import io.fulcrum.forward.ElbError;

/**
 * Why a request to a Lambda target failed, with the client status and the access log's
 * {@code error_reason} (SPEC §6.3, §11.5). The codes are ALB's.
 */
public enum LambdaError {
  REQUEST_TOO_LARGE("LambdaRequestTooLarge", true, ElbError.LAMBDA_REQUEST_TOO_LARGE),
  RESPONSE_TOO_LARGE("LambdaResponseTooLarge", true, ElbError.LAMBDA_FAILED),
  INVALID_RESPONSE("LambdaInvalidResponse", true, ElbError.LAMBDA_FAILED),
  UNHANDLED("LambdaUnhandled", true, ElbError.LAMBDA_FAILED),
  THROTTLING("LambdaThrottling", true, ElbError.LAMBDA_FAILED),
  ACCESS_DENIED("LambdaAccessDenied", true, ElbError.LAMBDA_FAILED),
  BAD_REQUEST("LambdaBadRequest", true, ElbError.LAMBDA_FAILED),
  RESOURCE_NOT_FOUND("LambdaResourceNotFound", true, ElbError.LAMBDA_FAILED),
  WEBSOCKET_NOT_SUPPORTED("LambdaWebsocketNotSupported", true, ElbError.LAMBDA_WEBSOCKET),
  CONNECTION_TIMEOUT("LambdaConnectionTimeout", false, ElbError.LAMBDA_TIMEOUT),
  CONNECTION_ERROR("LambdaConnectionError", false, ElbError.LAMBDA_FAILED),
  SERVICE_EXCEPTION("LambdaServiceException", false, ElbError.LAMBDA_FAILED),
  UNHANDLED_EXCEPTION("LambdaUnhandledException", false, ElbError.LAMBDA_FAILED);

  private final String code;
  private final boolean userError;
  private final ElbError elbError;

  LambdaError(String code, boolean userError, ElbError elbError) {
    this.code = code;
    this.userError = userError;
    this.elbError = elbError;
  }

  /** The access log's {@code error_reason}, e.g. {@code LambdaInvalidResponse}. */
  public String code() {
    return code;
  }

  /** The CloudWatch metric it counts in: {@code LambdaUserError} or {@code LambdaInternalError}. */
  public String metric() {
    return userError ? "LambdaUserError" : "LambdaInternalError";
  }

  /** Whether the function is to blame (not the load balancer or Lambda itself). */
  public boolean userError() {
    return userError;
  }

  /** The page the client gets (413, 502, 504 or 400). */
  public ElbError elbError() {
    return elbError;
  }

  public int status() {
    return elbError.status();
  }
}
