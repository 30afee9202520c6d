package io.fulcrum.function;

import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerRequestEvent;
import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerResponseEvent;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Converts between the event JSON and aws-lambda-java-events' ALB types, as AWS's Java runtime
 * does: a field the JSON does not have stays {@code null}, and a {@code null} field of the
 * response is left out of its JSON (a {@code null} value inside a header map is kept, and ALB
 * refuses it). Stateless and thread-safe.
 */
public final class EventObjects {

  private EventObjects() {
  }

  /** The event as the object a {@code RequestHandler<ApplicationLoadBalancerRequestEvent, ...>} receives. */
  public static ApplicationLoadBalancerRequestEvent requestEvent(JsonObject json) {
    ApplicationLoadBalancerRequestEvent e = new ApplicationLoadBalancerRequestEvent();
    JsonObject rc = json.getJsonObject("requestContext");
    if (rc != null) {
      ApplicationLoadBalancerRequestEvent.RequestContext context = new ApplicationLoadBalancerRequestEvent.RequestContext();
      JsonObject elb = rc.getJsonObject("elb");
      if (elb != null) {
        ApplicationLoadBalancerRequestEvent.Elb e2 = new ApplicationLoadBalancerRequestEvent.Elb();
        e2.setTargetGroupArn(elb.getString("targetGroupArn"));
        context.setElb(e2);
      }
      e.setRequestContext(context);
    }
    e.setHttpMethod(json.getString("httpMethod"));
    e.setPath(json.getString("path"));
    e.setQueryStringParameters(single(json.getJsonObject("queryStringParameters")));
    e.setMultiValueQueryStringParameters(multi(json.getJsonObject("multiValueQueryStringParameters")));
    e.setHeaders(single(json.getJsonObject("headers")));
    e.setMultiValueHeaders(multi(json.getJsonObject("multiValueHeaders")));
    e.setBody(json.getString("body"));
    e.setIsBase64Encoded(json.getBoolean("isBase64Encoded", false));
    return e;
  }

  /** The event's JSON from the object (what a function behind the Invoke API receives, as a handler saw it). */
  public static JsonObject requestJson(ApplicationLoadBalancerRequestEvent e) {
    JsonObject o = new JsonObject();
    if (e.getRequestContext() != null) {
      JsonObject elb = new JsonObject();
      if (e.getRequestContext().getElb() != null) {
        putIfSet(elb, "targetGroupArn", e.getRequestContext().getElb().getTargetGroupArn());
      }
      o.put("requestContext", new JsonObject().put("elb", elb));
    }
    putIfSet(o, "httpMethod", e.getHttpMethod());
    putIfSet(o, "path", e.getPath());
    putIfSet(o, "queryStringParameters", e.getQueryStringParameters() == null ? null : mapJson(e.getQueryStringParameters()));
    putIfSet(o, "multiValueQueryStringParameters",
        e.getMultiValueQueryStringParameters() == null ? null : mapJson(e.getMultiValueQueryStringParameters()));
    putIfSet(o, "headers", e.getHeaders() == null ? null : mapJson(e.getHeaders()));
    putIfSet(o, "multiValueHeaders", e.getMultiValueHeaders() == null ? null : mapJson(e.getMultiValueHeaders()));
    putIfSet(o, "body", e.getBody());
    o.put("isBase64Encoded", e.getIsBase64Encoded());
    return o;
  }

  /** The response object's JSON, as AWS's Java runtime writes it. */
  public static JsonObject responseJson(ApplicationLoadBalancerResponseEvent r) {
    JsonObject o = new JsonObject().put("statusCode", r.getStatusCode());
    putIfSet(o, "statusDescription", r.getStatusDescription());
    o.put("isBase64Encoded", r.getIsBase64Encoded());
    putIfSet(o, "headers", r.getHeaders() == null ? null : mapJson(r.getHeaders()));
    putIfSet(o, "multiValueHeaders", r.getMultiValueHeaders() == null ? null : mapJson(r.getMultiValueHeaders()));
    putIfSet(o, "body", r.getBody());
    return o;
  }

  private static void putIfSet(JsonObject o, String key, Object value) {
    if (value != null) {
      o.put(key, value);
    }
  }

  private static JsonObject mapJson(Map<String, ?> map) {
    JsonObject o = new JsonObject();
    map.forEach((k, v) -> o.put(k, v instanceof List<?> l ? new JsonArray(new ArrayList<>(l)) : v));
    return o;
  }

  private static Map<String, String> single(JsonObject o) {
    if (o == null) {
      return null;
    }
    Map<String, String> out = new LinkedHashMap<>();
    o.forEach(e -> out.put(e.getKey(), e.getValue() == null ? null : e.getValue().toString()));
    return out;
  }

  private static Map<String, List<String>> multi(JsonObject o) {
    if (o == null) {
      return null;
    }
    Map<String, List<String>> out = new LinkedHashMap<>();
    o.forEach(e -> {
      List<String> values = new ArrayList<>();
      if (e.getValue() instanceof JsonArray a) {
        a.forEach(v -> values.add(v == null ? null : v.toString()));
      }
      out.put(e.getKey(), values);
    });
    return out;
  }
}
