package io.fulcrum.forward;

/**
 * A response the load balancer makes itself (SPEC §11.3): its status, reason phrase and the
 * reason Fulcrum records for it.
 */
public enum ElbError {
  BAD_REQUEST(400, "Bad Request", "malformed request"),
  HEADER_TOO_LARGE(400, "Bad Request", "request header too large"),
  TOKEN_MISSING(401, "Authorization Required", "no bearer token for the rule's jwt-validation action"),
  TOKEN_INVALID(401, "Authorization Required", "the bearer token failed the rule's jwt-validation action"),
  AUTH_DENIED(401, "Authorization Required", "no session for the rule's authenticate-oidc action, which denies"),
  AUTH_REFUSED(401, "Authorization Required", "a sign-in's way back from the IdP could not be used"),
  AUTH_IDP_ERROR(561, "", "the IdP returned an error to a sign-in"),
  AUTH_FAILED(500, "Internal Server Error", "the IdP could not be reached, or answered a sign-in unusably"),
  METHOD_NOT_ALLOWED(405, "Method Not Allowed", "TRACE is not supported"),
  CLIENT_TIMEOUT(408, "Request Time-out", "client sent nothing before the idle timeout"),
  XFF_TOO_LONG(463, "", "X-Forwarded-For holds more than 30 addresses"),
  PROTOCOL_MISMATCH(464, "", "request protocol incompatible with the target group protocol version"),
  UNSUPPORTED_TRANSFER_ENCODING(501, "Not Implemented", "unsupported Transfer-Encoding"),
  TRANSFORM_FAILED(500, "Internal Server Error", "a rule's transform gave no valid URL or host"),
  JWKS_UNAVAILABLE(500, "Internal Server Error", "the jwt-validation action's JWKS could not be read"),
  TARGET_REFUSED(502, "Bad Gateway", "target refused the connection"),
  TARGET_RESET(502, "Bad Gateway", "target reset or closed the connection"),
  TARGET_MALFORMED(502, "Bad Gateway", "malformed response from target"),
  TARGET_TLS(502, "Bad Gateway", "TLS handshake with the target failed"),
  DEREGISTRATION_TIMEOUT(502, "Bad Gateway", "deregistration delay ended during the request"),
  NO_TARGETS(503, "Service Temporarily Unavailable", "no registered targets"),
  NO_TARGETS_IN_ZONE(503, "Service Temporarily Unavailable", "no targets in this zone"),
  NO_TARGET_GROUP(503, "Service Temporarily Unavailable", "no target group to forward to"),
  NO_TARGET_READY(503, "Service Temporarily Unavailable", "no target's agent has room for another request"),
  CONNECT_TIMEOUT(504, "Gateway Time-out", "connecting to the target timed out"),
  TARGET_TIMEOUT(504, "Gateway Time-out", "target sent nothing before the idle timeout"),
  GRPC_DEADLINE_EXCEEDED(504, "Gateway Time-out", "the gRPC call's grpc-timeout passed"),
  SHUTTING_DOWN(503, "Service Temporarily Unavailable", "load balancer is shutting down"),
  LAMBDA_REQUEST_TOO_LARGE(413, "Request Entity Too Large", "request body larger than 1 MB for a Lambda target"),
  LAMBDA_FAILED(502, "Bad Gateway", "Lambda function failed, was throttled, or answered invalidly"),
  LAMBDA_TIMEOUT(504, "Gateway Time-out", "Lambda did not answer before the connection timeout"),
  LAMBDA_WEBSOCKET(400, "Bad Request", "WebSocket upgrade toward a Lambda target"),
  VERSION_NOT_SUPPORTED(505, "HTTP Version Not Supported", "unexpected HTTP version");

  private final int status;
  private final String phrase;
  private final String reason;

  ElbError(int status, String phrase, String reason) {
    this.status = status;
    this.phrase = phrase;
    this.reason = reason;
  }

  public int status() {
    return status;
  }

  /** The reason phrase, empty for ALB's own codes (463, 464). */
  public String phrase() {
    return phrase;
  }

  /**
   * Whether the target is to blame (anomaly detection counts it): it refused, reset or closed the
   * connection, failed TLS, answered malformed, or went silent.
   */
  public boolean targetFault() {
    return this == TARGET_REFUSED || this == TARGET_RESET || this == TARGET_MALFORMED || this == TARGET_TLS
        || this == CONNECT_TIMEOUT || this == TARGET_TIMEOUT;
  }

  /**
   * The {@code grpc-status} a gRPC client gets for this answer: UNAVAILABLE (14) when no target
   * could serve, DEADLINE_EXCEEDED (4) for timeouts, UNIMPLEMENTED (12) for protocol mismatches
   * and unsupported methods, INTERNAL (13) for malformed requests and target errors,
   * RESOURCE_EXHAUSTED (8) for limits, UNAUTHENTICATED (16) for a token a jwt-validation action refused
   * and for authenticate-oidc's refusals.
   */
  public int grpcStatus() {
    return switch (this) {
      case NO_TARGETS, NO_TARGETS_IN_ZONE, NO_TARGET_GROUP, NO_TARGET_READY, SHUTTING_DOWN, TARGET_REFUSED, TARGET_RESET, TARGET_TLS,
          DEREGISTRATION_TIMEOUT -> 14;
      case CONNECT_TIMEOUT, TARGET_TIMEOUT, GRPC_DEADLINE_EXCEEDED -> 4;
      case PROTOCOL_MISMATCH, METHOD_NOT_ALLOWED, UNSUPPORTED_TRANSFER_ENCODING, VERSION_NOT_SUPPORTED -> 12;
      case XFF_TOO_LONG, HEADER_TOO_LARGE -> 8;
      case TOKEN_MISSING, TOKEN_INVALID, AUTH_DENIED, AUTH_REFUSED, AUTH_IDP_ERROR -> 16;
      default -> 13;
    };
  }

  /**
   * The {@code WWW-Authenticate} challenge of a 401 (RFC 6750 §3): {@code Bearer} when no token came,
   * with {@code error="invalid_token"} when one did and failed; null for other answers.
   */
  public String challenge() {
    return this == TOKEN_MISSING ? "Bearer" : this == TOKEN_INVALID ? "Bearer error=\"invalid_token\"" : null;
  }

  /** What happened, in words (logs, journal). */
  public String reason() {
    return reason;
  }
}
