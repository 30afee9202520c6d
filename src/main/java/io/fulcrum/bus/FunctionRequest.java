package io.fulcrum.bus;

import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Map;

/**
 * A request for a function target, as the listener received it (or as the health checker makes
 * it), sent to the function invoker on {@link Addresses#FUNCTION_INVOKE} with a local codec. The
 * invoker turns it into the ALB event (SPEC §6.1). Immutable once sent: the sender never touches
 * {@code body} again.
 *
 * @param targetGroupArn     {@code requestContext.elb.targetGroupArn}
 * @param function           the target id: a function name or ARN of the registry
 * @param multiValueHeaders  {@code lambda.multi_value_headers.enabled}
 * @param method             the HTTP method
 * @param path               the raw path, without the query string
 * @param rawQuery           the raw query string (after {@code ?}), or {@code null} when there is none
 * @param headers            every header in arrival order, names as received, the load balancer's own
 *                           ({@code x-forwarded-*}, {@code x-amzn-trace-id}) included
 * @param body               the request body, at most {@link #MAX_BODY_BYTES}; empty when there is none
 */
public record FunctionRequest(
    String targetGroupArn,
    String function,
    boolean multiValueHeaders,
    String method,
    String path,
    String rawQuery,
    List<Map.Entry<String, String>> headers,
    Buffer body) {

  /** ALB's limit on a request body for a Lambda target (SPEC §6.3): 1 MB. */
  public static final int MAX_BODY_BYTES = 1024 * 1024;

  public FunctionRequest {
    headers = List.copyOf(headers);
    body = body == null ? Buffer.buffer() : body;
  }
}
