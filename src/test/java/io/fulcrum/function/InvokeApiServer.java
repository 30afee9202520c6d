package io.fulcrum.function;

import com.amazonaws.services.lambda.runtime.ClientContext;
import com.amazonaws.services.lambda.runtime.CognitoIdentity;
import com.amazonaws.services.lambda.runtime.Context;
import com.amazonaws.services.lambda.runtime.LambdaLogger;
import com.amazonaws.services.lambda.runtime.RequestHandler;
import com.amazonaws.services.lambda.runtime.RequestStreamHandler;
import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerRequestEvent;
import com.amazonaws.services.lambda.runtime.events.ApplicationLoadBalancerResponseEvent;
import io.fulcrum.testing.Await;
import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A real HTTP server speaking the Lambda Invoke API ({@code POST
 * /2015-03-31/functions/{name}/invocations}), standing in for AWS's Runtime Interface Emulator
 * (which needs Docker): it runs handler classes the way Lambda's Java runtime does (the event JSON
 * into the handler's input type, its output back to JSON) and answers like Lambda: 200 with the
 * response, 200 with {@code X-Amz-Function-Error: Unhandled} when the handler throws, 404 for an
 * unknown function. A function can be switched to throttling (429), a service error (500), denied
 * (403) or silence (the request is never answered). With {@link #requireSignature}, every
 * invocation must be signed as AWS Lambda requires: its {@code Authorization} is checked against
 * the one the AWS SDK for Java's own SigV4 signer computes for the same request (403
 * {@code InvalidSignatureException} otherwise).
 */
final class InvokeApiServer implements AutoCloseable {

  private static final Pattern PATH = Pattern.compile("/2015-03-31/functions/([^/]+)/invocations");

  /** How a function answers besides running its handler. */
  enum Mode { RUN, THROTTLED, SERVICE_ERROR, DENIED, SILENT }

  private final Vertx vertx;
  private final HttpServer server;
  private final Map<String, Class<?>> handlers = new ConcurrentHashMap<>();
  private final Map<String, Mode> modes = new ConcurrentHashMap<>();
  /** Every invocation: function name, query, headers and payload. */
  final List<Invocation> invocations = new CopyOnWriteArrayList<>();

  record Invocation(String function, String query, String invocationType, String contentType, JsonObject event,
      String authorization) {
  }

  /** The credentials and region invocations must be signed with, or null. */
  private volatile Signer signer;

  private record Signer(String region, String accessKeyId, String secretAccessKey, String sessionToken) {
  }

  /** From now on, refuses invocations not signed with these (SigV4, service {@code lambda}). */
  InvokeApiServer requireSignature(String region, String accessKeyId, String secretAccessKey, String sessionToken) {
    signer = new Signer(region, accessKeyId, secretAccessKey, sessionToken);
    return this;
  }

  private InvokeApiServer(Vertx vertx) {
    this.vertx = vertx;
    this.server = vertx.createHttpServer().requestHandler(this::handle);
  }

  static InvokeApiServer start(Vertx vertx) {
    InvokeApiServer s = new InvokeApiServer(vertx);
    Await.result(s.server.listen(0, "127.0.0.1"));
    return s;
  }

  InvokeApiServer function(String name, Class<?> handler) {
    handlers.put(name, handler);
    modes.put(name, Mode.RUN);
    return this;
  }

  void mode(String name, Mode mode) {
    modes.put(name, mode);
  }

  int port() {
    return server.actualPort();
  }

  String endpoint() {
    return "http://127.0.0.1:" + port();
  }

  private void handle(HttpServerRequest req) {
    Matcher m = PATH.matcher(req.path());
    if (req.method() != io.vertx.core.http.HttpMethod.POST || !m.matches()) {
      req.response().setStatusCode(404).end();
      return;
    }
    String name = m.group(1);
    req.body().onSuccess(payload -> {
      invocations.add(new Invocation(name, req.query(), req.getHeader("X-Amz-Invocation-Type"),
          req.getHeader("Content-Type"), new JsonObject(payload), req.getHeader("Authorization")));
      Signer required = signer;
      if (required != null) {
        String expected = sdkAuthorization(required, req, payload);
        if (expected == null || !expected.equals(req.getHeader("Authorization"))) {
          error(req, 403, "InvalidSignatureException", "The request signature we calculated does not match the"
              + " signature you provided: expected " + expected + ", got " + req.getHeader("Authorization"));
          return;
        }
      }
      Class<?> handler = handlers.get(name);
      Mode mode = modes.getOrDefault(name, Mode.RUN);
      if (handler == null) {
        error(req, 404, "ResourceNotFoundException", "Function not found: " + name);
      } else if (mode == Mode.THROTTLED) {
        error(req, 429, "TooManyRequestsException", "Rate Exceeded.");
      } else if (mode == Mode.SERVICE_ERROR) {
        error(req, 500, "ServiceException", "internal failure");
      } else if (mode == Mode.DENIED) {
        error(req, 403, "AccessDeniedException", "not allowed");
      } else if (mode == Mode.RUN) {
        vertx.<Buffer>executeBlocking(() -> run(handler, name, payload), false).onComplete(ar -> {
          if (ar.succeeded()) {
            req.response().putHeader("Content-Type", "application/json").end(ar.result());
          } else {
            Throwable t = ar.cause();
            req.response().putHeader("X-Amz-Function-Error", "Unhandled").putHeader("Content-Type", "application/json")
                .end(new JsonObject().put("errorMessage", String.valueOf(t.getMessage()))
                    .put("errorType", t.getClass().getName()).toBuffer());
          }
        });
      }
      // SILENT: never answered.
    });
  }

  /**
   * The {@code Authorization} the AWS SDK's signer gives the request as received (its method,
   * path, query, payload, {@code X-Amz-Date} and the headers it says it signed), or null when it
   * is not signed.
   */
  private String sdkAuthorization(Signer s, HttpServerRequest req, Buffer payload) {
    String auth = req.getHeader("Authorization");
    String amzDate = req.getHeader("X-Amz-Date");
    int list = auth == null ? -1 : auth.indexOf("SignedHeaders=");
    if (list < 0 || amzDate == null) {
      return null;
    }
    String names = auth.substring(list + "SignedHeaders=".length(), auth.indexOf(',', list));
    SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.POST).protocol("http")
        .host("127.0.0.1").port(port()).encodedPath(req.path());
    if (req.query() != null) {
      for (String pair : req.query().split("&")) {
        int eq = pair.indexOf('=');
        b.appendRawQueryParameter(pair.substring(0, eq),
            java.net.URLDecoder.decode(pair.substring(eq + 1), java.nio.charset.StandardCharsets.UTF_8));
      }
    }
    for (String name : names.split(";")) {
      // The SDK writes these itself, from the host and port, the clock and the credentials.
      if (!name.equals("host") && !name.equals("x-amz-date") && !name.equals("x-amz-security-token")) {
        b.putHeader(name, req.getHeader(name));
      }
    }
    Instant signedAt = Instant.from(DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC)
        .parse(amzDate));
    AwsCredentialsIdentity identity = s.sessionToken() == null
        ? AwsCredentialsIdentity.create(s.accessKeyId(), s.secretAccessKey())
        : AwsSessionCredentialsIdentity.create(s.accessKeyId(), s.secretAccessKey(), s.sessionToken());
    SignedRequest signed = AwsV4HttpSigner.create().sign(r -> r.identity(identity)
        .request(b.build())
        .payload(ContentStreamProvider.fromByteArray(payload.getBytes()))
        .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "lambda")
        .putProperty(AwsV4HttpSigner.REGION_NAME, s.region())
        .putProperty(HttpSigner.SIGNING_CLOCK, Clock.fixed(signedAt, ZoneOffset.UTC)));
    return signed.request().firstMatchingHeader("Authorization").orElse(null);
  }

  private static void error(HttpServerRequest req, int status, String type, String message) {
    req.response().setStatusCode(status).putHeader("x-amzn-ErrorType", type).putHeader("Content-Type", "application/json")
        .end(new JsonObject().put("Type", "User").put("message", message).toBuffer());
  }

  /** What Lambda's Java runtime does with one invocation. */
  @SuppressWarnings({"unchecked", "rawtypes"})
  private static Buffer run(Class<?> type, String name, Buffer payload) throws Exception {
    Object handler = type.getConstructor().newInstance();
    Context context = context(name);
    if (handler instanceof RequestStreamHandler s) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      s.handleRequest(new ByteArrayInputStream(payload.getBytes()), out, context);
      return Buffer.buffer(out.toByteArray());
    }
    ApplicationLoadBalancerRequestEvent event = EventObjects.requestEvent(new JsonObject(payload));
    Object out = ((RequestHandler) handler).handleRequest(event, context);
    return EventObjects.responseJson((ApplicationLoadBalancerResponseEvent) out).toBuffer();
  }

  private static Context context(String name) {
    return new Context() {
      public String getAwsRequestId() {
        return "00000000-0000-0000-0000-000000000000";
      }

      public String getLogGroupName() {
        return "/aws/lambda/" + name;
      }

      public String getLogStreamName() {
        return "stream";
      }

      public String getFunctionName() {
        return name;
      }

      public String getFunctionVersion() {
        return "$LATEST";
      }

      public String getInvokedFunctionArn() {
        return "arn:aws:lambda:us-east-1:000000000000:function:" + name;
      }

      public CognitoIdentity getIdentity() {
        return null;
      }

      public ClientContext getClientContext() {
        return null;
      }

      public int getRemainingTimeInMillis() {
        return 3000;
      }

      public int getMemoryLimitInMB() {
        return 128;
      }

      public LambdaLogger getLogger() {
        return new LambdaLogger() {
          public void log(String message) {
          }

          public void log(byte[] message) {
          }
        };
      }
    };
  }

  @Override
  public void close() {
    Await.result(server.close());
  }
}
