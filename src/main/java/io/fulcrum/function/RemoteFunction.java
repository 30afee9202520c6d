package io.fulcrum.function;

import io.fulcrum.bus.FunctionReply;
import io.fulcrum.bus.LambdaError;
import io.fulcrum.model.FunctionDefinition;
import io.fulcrum.sigv4.SigV4Signature;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A function behind the Lambda Invoke API: {@code POST /2015-03-31/functions/{name}/invocations}
 * with the event as the payload, {@code X-Amz-Invocation-Type: RequestResponse}, as AWS's Runtime
 * Interface Emulator and LocalStack serve it. The answer maps to ALB's outcomes (SPEC §6.3):
 * a function error ({@code X-Amz-Function-Error}) is {@code LambdaUnhandled}, 429 is
 * {@code LambdaThrottling}, no answer within the timeout is {@code LambdaConnectionTimeout} (504),
 * no connection is {@code LambdaConnectionError}. With {@code signing}, invocations are signed
 * (SigV4, service {@code lambda}) as AWS Lambda requires; without it they are not, as the emulator
 * and LocalStack accept. Used on the invoker's event loop only.
 */
final class RemoteFunction {

  static final String FUNCTION_ERROR = "X-Amz-Function-Error";
  /** The signing name of the Lambda API. */
  static final String SERVICE = "lambda";

  private final Vertx vertx;
  private final HttpClientAgent client;
  private final FunctionDefinition.Remote definition;
  private final String host;
  private final int port;
  private final boolean tls;
  private final String basePath;
  /** The Host header as sent, and signed. */
  private final String hostHeader;
  private final SigV4Signature.Credentials credentials;

  RemoteFunction(Vertx vertx, HttpClientAgent client, FunctionDefinition.Remote definition) {
    this.vertx = vertx;
    this.client = client;
    this.definition = definition;
    URI uri = URI.create(definition.endpoint());
    this.tls = "https".equals(uri.getScheme());
    this.host = uri.getHost();
    this.port = uri.getPort() > 0 ? uri.getPort() : tls ? 443 : 80;
    this.basePath = uri.getRawPath() == null ? "" : uri.getRawPath();
    this.hostHeader = uri.getPort() > 0 && uri.getPort() != (tls ? 443 : 80) ? host + ":" + uri.getPort() : host;
    FunctionDefinition.Signing s = definition.signing();
    this.credentials = s == null ? null
        : new SigV4Signature.Credentials(s.accessKeyId(), s.secretAccessKey(), s.sessionToken());
  }

  FunctionDefinition.Remote definition() {
    return definition;
  }

  /**
   * Invokes the function with {@code event}; completes with the client's response or the error.
   *
   * @param qualifier a version or alias from the target's ARN, or null
   */
  Future<FunctionReply> invoke(Buffer event, String qualifier, boolean multiValueHeaders) {
    Promise<FunctionReply> done = Promise.promise();
    long timeoutMillis = definition.timeoutSeconds() * 1000L;
    String path = basePath + "/2015-03-31/functions/" + definition.functionName() + "/invocations";
    String query = qualifier == null ? null : "Qualifier=" + URLEncoder.encode(qualifier, StandardCharsets.UTF_8);
    RequestOptions options = new RequestOptions()
        .setMethod(HttpMethod.POST)
        .setHost(host)
        .setPort(port)
        .setSsl(tls)
        .setURI(query == null ? path : path + "?" + query)
        .setConnectTimeout(timeoutMillis)
        .putHeader("Content-Type", "application/json")
        .putHeader("X-Amz-Invocation-Type", "RequestResponse");
    if (credentials != null) {
      sign(options, path, query, event);
    }
    HttpClientRequest[] sent = new HttpClientRequest[1];
    long timer = vertx.setTimer(timeoutMillis, id -> {
      if (done.tryComplete(FunctionReply.failed(LambdaError.CONNECTION_TIMEOUT)) && sent[0] != null) {
        sent[0].reset();
      }
    });
    done.future().onComplete(ar -> vertx.cancelTimer(timer));
    client.request(options).onComplete(ar -> {
      if (ar.failed()) {
        done.tryComplete(FunctionReply.failed(timedOut(ar.cause()) ? LambdaError.CONNECTION_TIMEOUT
            : LambdaError.CONNECTION_ERROR));
        return;
      }
      HttpClientRequest request = ar.result();
      sent[0] = request;
      if (done.future().isComplete()) {
        request.reset();
        return;
      }
      request.send(event).onComplete(rar -> {
        if (rar.failed()) {
          done.tryComplete(FunctionReply.failed(LambdaError.CONNECTION_ERROR));
        } else {
          read(rar.result(), multiValueHeaders, done, event.length());
        }
      });
    });
    return done.future();
  }

  /**
   * Signs the invocation as AWS Lambda requires (SigV4, service {@code lambda}) and as AWS's SDKs
   * do: every header it is sent with, {@code Host} and {@code X-Amz-Content-Sha256} included.
   */
  private void sign(RequestOptions options, String path, String query, Buffer event) {
    byte[] payload = event.getBytes();
    // The payload's hash as a header too, as AWS's SDKs send it.
    String hash = SigV4Signature.sha256Hex(payload);
    Map<String, List<String>> headers = Map.of(
        "content-type", List.of("application/json"),
        "host", List.of(hostHeader),
        "x-amz-content-sha256", List.of(hash),
        "x-amz-invocation-type", List.of("RequestResponse"));
    options.putHeader("Host", hostHeader).putHeader("X-Amz-Content-Sha256", hash);
    SigV4Signature.sign(new SigV4Signature.Request("POST", path, query, headers, payload), credentials,
        definition.signing().region(), SERVICE, Instant.now()).forEach(options::putHeader);
  }

  private static boolean timedOut(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof io.netty.channel.ConnectTimeoutException || c instanceof java.util.concurrent.TimeoutException) {
        return true;
      }
    }
    return false;
  }

  /** @param eventBytes the size of the event the function was invoked with */
  private static void read(HttpClientResponse response, boolean multiValueHeaders, Promise<FunctionReply> done,
      long eventBytes) {
    int status = response.statusCode();
    String length = response.getHeader("Content-Length");
    response.exceptionHandler(e -> done.tryComplete(FunctionReply.failed(LambdaError.CONNECTION_ERROR)));
    if (length != null && tooLarge(length)) {
      done.tryComplete(FunctionReply.failed(status == 200 ? LambdaError.RESPONSE_TOO_LARGE : apiError(status)));
      response.request().reset();
      return;
    }
    if (status != 200 || response.getHeader(FUNCTION_ERROR) != null) {
      // Reading the error document to its end keeps the connection for the next invocation; it is
      // counted, not kept (it could be of any size). Only a function error (200) is a response from
      // the function; other statuses are the Invoke API's refusals.
      LambdaError error = status != 200 ? apiError(status) : LambdaError.UNHANDLED;
      long[] errorBytes = {0};
      response.handler(chunk -> errorBytes[0] += chunk.length());
      response.end().onComplete(ar -> done.tryComplete(status != 200 ? FunctionReply.failed(error)
          : FunctionReply.failed(error).processed(eventBytes + errorBytes[0])));
      return;
    }
    Buffer body = Buffer.buffer();
    response.handler(chunk -> {
      if (done.future().isComplete()) {
        return;
      }
      if (body.length() + chunk.length() > AlbEvents.MAX_RESPONSE_BYTES) {
        done.tryComplete(FunctionReply.failed(LambdaError.RESPONSE_TOO_LARGE));
        response.request().reset();
        return;
      }
      body.appendBuffer(chunk);
    });
    response.endHandler(v -> {
      if (!done.future().isComplete()) {
        done.tryComplete(AlbEvents.response(body, multiValueHeaders).processed(eventBytes + body.length()));
      }
    });
  }

  private static boolean tooLarge(String contentLength) {
    try {
      return Long.parseLong(contentLength.trim()) > AlbEvents.MAX_RESPONSE_BYTES;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The ALB outcome of an Invoke API error status. */
  static LambdaError apiError(int status) {
    return switch (status) {
      case 429 -> LambdaError.THROTTLING;
      case 404 -> LambdaError.RESOURCE_NOT_FOUND;
      case 401, 403 -> LambdaError.ACCESS_DENIED;
      case 413 -> LambdaError.REQUEST_TOO_LARGE;
      default -> status >= 500 ? LambdaError.SERVICE_EXCEPTION : LambdaError.BAD_REQUEST;
    };
  }
}
