package io.fulcrum.function.handlers;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A function whose answers to ALB's health checks the test sets: the statusCode to return, or
 * {@link #THROW} to fail with an error. Every health-check event it receives is kept. Other
 * requests get 200 {@code served}.
 */
public class HealthProbedHandler implements RequestStreamHandler {

  public static final int THROW = -1;
  public static final AtomicInteger HEALTH_STATUS = new AtomicInteger(200);
  public static final ConcurrentLinkedQueue<JsonObject> HEALTH_EVENTS = new ConcurrentLinkedQueue<>();

  public static void reset() {
    HEALTH_STATUS.set(200);
    HEALTH_EVENTS.clear();
  }

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
    JsonObject event = new JsonObject(new String(input.readAllBytes(), StandardCharsets.UTF_8));
    JsonObject headers = event.getJsonObject("headers", new JsonObject());
    if ("ELB-HealthChecker/2.0".equals(headers.getString("user-agent"))) {
      HEALTH_EVENTS.add(event);
      int status = HEALTH_STATUS.get();
      if (status == THROW) {
        throw new IOException("unhealthy on purpose");
      }
      output.write(new JsonObject().put("statusCode", status).toBuffer().getBytes());
      return;
    }
    output.write(new JsonObject().put("statusCode", 200).put("body", "served").toBuffer().getBytes());
  }
}
