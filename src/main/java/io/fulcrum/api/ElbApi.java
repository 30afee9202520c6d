package io.fulcrum.api;

import io.fulcrum.model.InvalidModelException;
import io.fulcrum.model.Problem;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ELBv2 Query API ({@code POST /} with {@code Action=...&Version=2015-12-01}, or the same as
 * a GET query): verifies the SigV4 signature, decodes the parameters, runs the operation and
 * answers in the {@code http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/} namespace, or
 * with an {@code ErrorResponse} carrying AWS's exact error code. Called on the control plane's
 * event loop; operations never block it.
 */
public final class ElbApi {

  public static final String VERSION = "2015-12-01";
  public static final String NAMESPACE = "http://elasticloadbalancing.amazonaws.com/doc/2015-12-01/";
  static final int MAX_BODY = 1024 * 1024;

  private static final Logger LOG = LoggerFactory.getLogger(ElbApi.class);

  /** One API operation: reads its parameters, returns the children of its {@code <XResult>}. */
  @FunctionalInterface
  public interface Operation {
    Future<List<Xml>> run(QueryParams params, ApiContext ctx);
  }

  private final ApiContext ctx;
  private final SigV4 sigv4;
  private final Clock clock;
  private final Map<String, Operation> operations = new HashMap<>();

  public ElbApi(ApiContext ctx, SigV4 sigv4, Clock clock) {
    this.ctx = ctx;
    this.sigv4 = sigv4;
    this.clock = clock;
  }

  /** Registers an operation under its action name ({@code DescribeTargetGroups}). */
  public ElbApi register(String action, Operation op) {
    operations.put(action, op);
    return this;
  }

  public boolean supports(String action) {
    return operations.containsKey(action);
  }

  /**
   * Reads the request's body, up to {@link #MAX_BODY} bytes, and answers it. A body over the limit
   * is refused as soon as it is known to be (a Content-Length over it at once, a body without one
   * when it passes it), never read whole into memory, and the connection closes.
   */
  public void handle(HttpServerRequest req) {
    String requestId = UUID.randomUUID().toString();
    String length = req.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (length != null && declaredOver(length)) {
      tooLarge(req, requestId);
      return;
    }
    Buffer body = Buffer.buffer();
    boolean[] refused = {false};
    req.handler(chunk -> {
      if (refused[0]) {
        return;
      }
      if (body.length() + chunk.length() > MAX_BODY) {
        refused[0] = true;
        tooLarge(req, requestId);
        return;
      }
      body.appendBuffer(chunk);
    });
    req.endHandler(v -> {
      if (!refused[0]) {
        answer(req, requestId, body);
      }
    });
  }

  private static boolean declaredOver(String contentLength) {
    try {
      return Long.parseLong(contentLength.trim()) > MAX_BODY;
    } catch (NumberFormatException e) {
      return false; // the HTTP decoder refuses it
    }
  }

  /** Refuses a body over the limit, unread, and closes the connection once the answer is written. */
  private void tooLarge(HttpServerRequest req, String requestId) {
    req.response().putHeader(HttpHeaders.CONNECTION, "close")
        .endHandler(v -> req.connection().close());
    error(req, requestId, null, ApiError.sender("ValidationError", "the request body is over " + MAX_BODY + " bytes"));
  }

  private void answer(HttpServerRequest req, String requestId, Buffer body) {
    try {
      sigv4.verify(signed(req, body), clock.instant());
      String form = req.method() == HttpMethod.GET ? req.query() : body.toString(StandardCharsets.UTF_8);
      QueryParams params = QueryParams.parse(form);
      String action = params.string("Action");
      if (action == null) {
        throw ApiError.sender("MissingAction", "Could not find operation: an Action parameter is required");
      }
      String version = params.string("Version");
      if (!VERSION.equals(version)) {
        throw ApiError.sender("InvalidParameterValue", "Version '" + version + "' is not supported (expected " + VERSION
            + ")");
      }
      Operation op = operations.get(action);
      if (op == null) {
        throw ApiError.sender("InvalidAction", "Could not find operation " + action + " for version " + VERSION);
      }
      Future<List<Xml>> result;
      try {
        result = op.run(params, ctx);
      } catch (RuntimeException e) {
        result = Future.failedFuture(e);
      }
      result.onComplete(rr -> {
        if (rr.succeeded()) {
          Xml root = Xml.el(action + "Result");
          rr.result().forEach(root::add);
          respond(req, 200, "<" + action + "Response xmlns=\"" + NAMESPACE + "\">" + root.render()
              + "<ResponseMetadata><RequestId>" + requestId + "</RequestId></ResponseMetadata></" + action + "Response>");
        } else {
          error(req, requestId, action, rr.cause());
        }
      });
    } catch (RuntimeException e) {
      error(req, requestId, null, e);
    }
  }

  private static SigV4.SignedRequest signed(HttpServerRequest req, Buffer body) {
    Map<String, List<String>> headers = new HashMap<>();
    MultiMap h = req.headers();
    for (String name : h.names()) {
      headers.put(name.toLowerCase(Locale.ROOT), new ArrayList<>(h.getAll(name)));
    }
    return new SigV4.SignedRequest(req.method().name(), req.path(), req.query(), headers, body.getBytes());
  }

  private void error(HttpServerRequest req, String requestId, String action, Throwable t) {
    ApiError e = asApiError(t);
    if (e.status() >= 500) {
      LOG.error("{} failed: {}", action, t.toString(), t);
    } else {
      LOG.debug("{} refused: {} {}", action, e.code(), e.getMessage());
    }
    StringBuilder b = new StringBuilder();
    b.append("<ErrorResponse xmlns=\"").append(NAMESPACE).append("\"><Error><Type>").append(e.type())
        .append("</Type><Code>").append(e.code()).append("</Code><Message>");
    Xml.escape(b, e.getMessage() == null ? "" : e.getMessage());
    b.append("</Message></Error><RequestId>").append(requestId).append("</RequestId></ErrorResponse>");
    respond(req, e.status(), b.toString());
  }

  /** Maps what an operation failed with to the error AWS would answer. */
  static ApiError asApiError(Throwable t) {
    if (t instanceof ApiError e) {
      return e;
    }
    if (t instanceof InvalidModelException ime && !ime.problems().isEmpty()) {
      Problem p = ime.problems().get(0);
      int status = "PriorRequestNotComplete".equals(p.code()) ? 429 : 400;
      return new ApiError(p.code(), p.message(), status);
    }
    return new ApiError("InternalFailure", "The request processing has failed because of an unknown error.", 500);
  }

  private static void respond(HttpServerRequest req, int status, String xml) {
    req.response().setStatusCode(status).putHeader("Content-Type", "text/xml").end(xml);
  }
}
