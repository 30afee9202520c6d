package io.fulcrum.function;

import io.fulcrum.bus.FunctionRequest;
import io.fulcrum.model.HealthCheck;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** Builds {@link FunctionRequest}s: from a client's HTTP request, and the health check's (SPEC §1.5). */
public final class FunctionRequests {

  /** The health checker's User-Agent, in the health-check event too. */
  public static final String HEALTH_CHECK_USER_AGENT = "ELB-HealthChecker/2.0";

  private FunctionRequests() {
  }

  /**
   * A client's request, whose headers the load balancer has already prepared (forwarding headers
   * and trace id added). HTTP/2 and HTTP/1.1 alike: pseudo-headers are left out, and an HTTP/2
   * request's {@code :authority} becomes its {@code host} when it has no Host header.
   *
   * @param uri  the request target in origin form ({@code /path?query}), raw
   * @param body the whole body (at most {@link FunctionRequest#MAX_BODY_BYTES})
   */
  public static FunctionRequest of(HttpServerRequest request, String uri, String targetGroupArn, String function,
      boolean multiValueHeaders, Buffer body) {
    List<Map.Entry<String, String>> headers = new ArrayList<>(request.headers().size() + 1);
    boolean host = request.headers().contains("host");
    if (!host && request.authority() != null) {
      headers.add(Map.entry("host", request.authority().toString()));
    }
    request.headers().forEach(h -> headers.add(Map.entry(h.getKey(), h.getValue())));
    int q = uri.indexOf('?');
    String path = q < 0 ? uri : uri.substring(0, q);
    String query = q < 0 ? null : uri.substring(q + 1);
    return new FunctionRequest(targetGroupArn, function, multiValueHeaders, request.method().name(),
        path.isEmpty() ? "/" : path, query, headers, body);
  }

  /**
   * The health-check event's request (SPEC §1.5): {@code GET} on the check's path, no query, only
   * {@code user-agent: ELB-HealthChecker/2.0}, an empty body; always in the single-value form.
   */
  public static FunctionRequest healthCheck(String targetGroupArn, String function, HealthCheck check) {
    return new FunctionRequest(targetGroupArn, function, false, "GET",
        check.path() == null ? HealthCheck.DEFAULT_PATH : check.path(), null,
        List.of(Map.entry("user-agent", HEALTH_CHECK_USER_AGENT)), Buffer.buffer());
  }
}
