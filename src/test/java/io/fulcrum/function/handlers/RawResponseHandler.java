package io.fulcrum.function.handlers;

import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A raw-JSON function that answers with whatever response JSON its client sends as the request
 * body, byte for byte: tests make it answer anything, valid or not. {@code /large/<n>} answers
 * with a valid response whose body has {@code n} bytes; {@code /size}, with a valid response whose
 * body is the size of the event it got, in bytes ({@link #sizeResponse}).
 */
public class RawResponseHandler implements RequestStreamHandler {

  @Override
  public void handleRequest(InputStream input, OutputStream output, Context context) throws IOException {
    byte[] bytes = input.readAllBytes();
    JsonObject event = new JsonObject(new String(bytes, StandardCharsets.UTF_8));
    String path = event.getString("path");
    if (path.endsWith("/size")) {
      output.write(sizeResponse(bytes.length).getBytes(StandardCharsets.UTF_8));
      return;
    }
    if (path.contains("/large/")) {
      int n = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1));
      output.write(new JsonObject().put("statusCode", 200).put("body", "x".repeat(n)).toBuffer().getBytes());
      return;
    }
    String body = event.getString("body");
    output.write(event.getBoolean("isBase64Encoded") ? Base64.getDecoder().decode(body)
        : body.getBytes(StandardCharsets.UTF_8));
  }

  /** The response JSON {@code /size} answers an event of {@code eventBytes} with. */
  public static String sizeResponse(int eventBytes) {
    return new JsonObject().put("statusCode", 200).put("body", Integer.toString(eventBytes)).encode();
  }
}
