package io.fulcrum.function.handlers;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerRequestEvent;
import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerResponseEvent;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;

/**
 * A Lambda handler as its author writes it for ALB, against aws-lambda-java-events' types and
 * nothing of Fulcrum's: it routes on the last path segment and answers in the form its event came
 * in (single-value or multi-value headers).
 */
public class GreetingHandler implements RequestHandler<ApplicationLoadBalancerRequestEvent,
    ApplicationLoadBalancerResponseEvent> {

  @Override
  public ApplicationLoadBalancerResponseEvent handleRequest(ApplicationLoadBalancerRequestEvent event, Context context) {
    context.getLogger().log("handling " + event.getHttpMethod() + " " + event.getPath());
    boolean multi = event.getMultiValueHeaders() != null;
    String action = event.getPath().substring(event.getPath().lastIndexOf('/') + 1);
    ApplicationLoadBalancerResponseEvent r = new ApplicationLoadBalancerResponseEvent();
    switch (action) {
      case "hello" -> {
        String name = multi ? last(event.getMultiValueQueryStringParameters().get("name"))
            : event.getQueryStringParameters().get("name");
        r.setStatusCode(200);
        r.setStatusDescription("200 OK");
        headers(r, multi, Map.of("Content-Type", List.of("text/plain; charset=utf-8"),
            "X-Function", List.of(context.getFunctionName())));
        r.setBody("Hello, " + (name == null ? "world" : name) + "!\n");
      }
      case "echo" -> {
        // The request body back, as the bytes it was.
        r.setStatusCode(201);
        r.setStatusDescription("201 Created");
        headers(r, multi, Map.of("Content-Type", List.of("application/octet-stream")));
        r.setIsBase64Encoded(true);
        r.setBody(event.getIsBase64Encoded() ? event.getBody()
            : Base64.getEncoder().encodeToString(event.getBody().getBytes(StandardCharsets.UTF_8)));
      }
      case "cookies" -> {
        r.setStatusCode(200);
        headers(r, multi, Map.of("Set-Cookie", List.of("a=1; Path=/", "b=2; Path=/"), "Connection", List.of("close"),
            "Content-Length", List.of("999")));
        r.setBody("two cookies");
      }
      case "teapot" -> {
        r.setStatusCode(418);
        r.setStatusDescription("418 I'm a teapot");
        r.setBody("short and stout");
      }
      case "fail" -> throw new IllegalStateException("the greeter failed on purpose");
      default -> {
        r.setStatusCode(404);
        r.setStatusDescription("404 Not Found");
        headers(r, multi, Map.of("Content-Type", List.of("text/plain")));
        r.setBody("no such greeting: " + action);
      }
    }
    return r;
  }

  private static String last(List<String> values) {
    return values == null || values.isEmpty() ? null : values.get(values.size() - 1);
  }

  private static void headers(ApplicationLoadBalancerResponseEvent r, boolean multi, Map<String, List<String>> h) {
    if (multi) {
      r.setMultiValueHeaders(new java.util.TreeMap<>(h));
    } else {
      Map<String, String> single = new java.util.TreeMap<>();
      h.forEach((k, v) -> single.put(k, v.get(v.size() - 1)));
      r.setHeaders(single);
    }
  }
}
