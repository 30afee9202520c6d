package io.fulcrum.demo;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * The demo Lambda function: answers with the ALB event it received, pretty-printed, as its JSON
 * body, so a user sees the event format (SPEC §6.1). It answers in the form the event came in:
 * {@code multiValueHeaders} when the target group has multi-value headers on, {@code headers}
 * otherwise. A handler like any other, written against AWS's {@code RequestStreamHandler}.
 */
public final class EchoEventFunction implements RequestStreamHandler {

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
    JsonObject event = new JsonObject(new String(input.readAllBytes(), StandardCharsets.UTF_8));
    JsonObject response = new JsonObject()
        .put("statusCode", 200)
        .put("statusDescription", "200 OK")
        .put("isBase64Encoded", false);
    if (event.containsKey("multiValueHeaders")) {
      response.put("multiValueHeaders", new JsonObject().put("Content-Type", new JsonArray().add("application/json")));
    } else {
      response.put("headers", new JsonObject().put("Content-Type", "application/json"));
    }
    response.put("body", event.encodePrettily() + "\n");
    output.write(response.toBuffer().getBytes());
  }
}
