package io.fulcrum.bus;

import io.vertx.core.buffer.Buffer;
import java.util.List;
import java.util.Map;

/**
 * The function invoker's answer to a {@link FunctionRequest}: the HTTP response made from the
 * function's response (SPEC §6.2), or why there is none (SPEC §6.3). Immutable.
 *
 * @param error         why the invocation failed, or {@code null}
 * @param statusCode    the function's {@code statusCode}; -1 on error
 * @param statusMessage the reason phrase
 * @param headers       the response headers in order, hop-by-hop and Content-Length removed
 * @param body          the decoded body
 * @param processedBytes the bytes of the event the function took and of the response it gave
 *                       ({@code LambdaTargetProcessedBytes}); 0 when it took none
 */
public record FunctionReply(LambdaError error, int statusCode, String statusMessage,
    List<Map.Entry<String, String>> headers, Buffer body, long processedBytes) {

  public FunctionReply {
    headers = headers == null ? List.of() : List.copyOf(headers);
    body = body == null ? Buffer.buffer() : body;
  }

  public static FunctionReply failed(LambdaError error) {
    return new FunctionReply(error, -1, null, List.of(), null, 0);
  }

  /** This reply, from a function that took and gave {@code bytes} in all. */
  public FunctionReply processed(long bytes) {
    return new FunctionReply(error, statusCode, statusMessage, headers, body, bytes);
  }

  public boolean ok() {
    return error == null;
  }
}
