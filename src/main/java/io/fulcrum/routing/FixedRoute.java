package io.fulcrum.routing;

import io.vertx.core.buffer.Buffer;

/** A fixed response: status, content type and body, built once. */
public final class FixedRoute implements RouteAction {

  private final int priority;
  private final int statusCode;
  private final String contentType;
  private final Buffer body;

  FixedRoute(int priority, int statusCode, String contentType, String body) {
    this.priority = priority;
    this.statusCode = statusCode;
    this.contentType = contentType;
    this.body = Buffer.buffer(body);
  }

  @Override
  public int priority() {
    return priority;
  }

  @Override
  public String executed() {
    return "fixed-response";
  }

  public int statusCode() {
    return statusCode;
  }

  public String contentType() {
    return contentType;
  }

  /** The body; shared, so callers must not modify it. */
  public Buffer body() {
    return body;
  }
}
