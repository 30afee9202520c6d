package io.fulcrum.forward;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Writes the small HTML pages ALB answers with when it generates a response itself. The pages are
 * built once per error. Called on the owning event loop.
 */
public final class ElbResponses {

  /** ALB's own Server header. */
  public static final String SERVER = "awselb/2.0";
  static final CharSequence SERVER_VALUE = HttpHeaders.createOptimized(SERVER);
  private static final CharSequence TEXT_HTML = HttpHeaders.createOptimized("text/html");
  static final CharSequence SERVER_NAME = HttpHeaders.createOptimized("Server");
  static final CharSequence CONTENT_TYPE_NAME = HttpHeaders.createOptimized("Content-Type");
  private static final CharSequence WWW_AUTHENTICATE_NAME = HttpHeaders.createOptimized("WWW-Authenticate");
  static final CharSequence CONNECTION_NAME = HttpHeaders.createOptimized("Connection");
  /** How long a connection being closed after an error page may take to send it. */
  private static final long CLOSE_DEADLINE_SECONDS = 5;
  /** Each error's page, encoded once; every response gets its own buffer over (or copy of) it. */
  private static final Map<ElbError, byte[]> PAGES = new EnumMap<>(ElbError.class);

  static {
    for (ElbError e : ElbError.values()) {
      String title = e.phrase().isEmpty() ? Integer.toString(e.status()) : e.status() + " " + e.phrase();
      PAGES.put(e, page(title).getBytes(StandardCharsets.UTF_8));
    }
  }

  private ElbResponses() {
  }

  /**
   * Whether a response with this status has no body, whatever its head says (RFC 9110 §6.4.1):
   * 1xx, 204 and 304. A body or, but for 304, a Content-Length sent with one makes HTTP/2 clients
   * refuse the stream, and an HTTP/1.1 client read it as the next response's start.
   */
  public static boolean bodyless(int status) {
    return status < 200 || status == 204 || status == 304;
  }

  /**
   * Sends the page for {@code error}; with {@code close} the client connection closes after it.
   * On HTTP/2 the connection carries other streams and stays: the answer ends this stream, and a
   * request body still on its way is read and dropped.
   */
  public static void send(HttpServerRequest request, ElbError error, boolean close) {
    send(request, error, close, ListenerHeaders.DEFAULT);
  }

  /** As {@link #send(HttpServerRequest, ElbError, boolean)}, shaped by the listener's header modification. */
  public static void send(HttpServerRequest request, ElbError error, boolean close, ListenerHeaders listener) {
    boolean http2 = request.version() == HttpVersion.HTTP_2;
    if (http2 && !request.isEnded()) {
      // The forwarder paused the request; a body left unread would hold the stream's flow-control window.
      request.resume();
    }
    if (Grpc.isGrpc(request)) {
      sendGrpc(request, error, listener);
      return;
    }
    HttpServerResponse response = request.response();
    if (response.headWritten()) {
      // Too late for a status: the client already has one. Cut the stream (HTTP/2) or the connection so
      // that it sees the failure.
      if (http2) {
        response.reset();
      } else {
        request.connection().close();
      }
      return;
    }
    if (http2) {
      // Connection is not an HTTP/2 header, and a GOAWAY would end the client's other streams too.
      close = false;
    }
    response.setStatusCode(error.status());
    // Always set: for ALB's own codes (463, 464) the phrase is empty, where Netty would make up one.
    response.setStatusMessage(error.phrase());
    MultiMap h = response.headers();
    h.clear();
    listener.server(h).set(CONTENT_TYPE_NAME, TEXT_HTML);
    if (error.challenge() != null) {
      h.set(WWW_AUTHENTICATE_NAME, error.challenge());
    }
    if (close) {
      h.set(CONNECTION_NAME, HttpHeaders.CLOSE);
    }
    listener.beforeHead(h);
    HttpConnection connection = close ? request.connection() : null;
    if (connection != null) {
      // Vert.x keeps an HTTP/1.1 connection open whatever the response's Connection header says, and would
      // read what follows (an unread body) as a next request. A shutdown reads no further request.
      connection.shutdown(CLOSE_DEADLINE_SECONDS, TimeUnit.SECONDS);
    }
    Future<Void> written = response.end(request.method() == HttpMethod.HEAD ? Buffer.buffer() : Buffer.buffer(PAGES.get(error)));
    if (connection != null) {
      // Once the page is out, close at once rather than at the shutdown's deadline.
      written.onComplete(ar -> connection.close());
    }
  }

  /**
   * The page for {@code error} as one Netty message, for the direct path (HTTP/1.1 only); with
   * {@code close} it says {@code Connection: close}, and the caller closes after writing it.
   */
  public static FullHttpResponse full(ElbError error, boolean close, ListenerHeaders listener) {
    byte[] page = PAGES.get(error);
    FullHttpResponse response = new DefaultFullHttpResponse(io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
        new HttpResponseStatus(error.status(), error.phrase()), Unpooled.wrappedBuffer(page));
    io.netty.handler.codec.http.HttpHeaders h = response.headers();
    if (listener.server()) {
      h.set(SERVER_NAME, SERVER_VALUE);
    }
    h.set(CONTENT_TYPE_NAME, TEXT_HTML);
    h.setInt(HttpHeaders.CONTENT_LENGTH, page.length);
    if (close) {
      h.set(CONNECTION_NAME, HttpHeaders.CLOSE);
    }
    listener.insertInto(h);
    return response;
  }

  /**
   * A gRPC call gets the answer as gRPC: HTTP 200, trailers-only, with {@code grpc-status} and a
   * {@code grpc-message} naming the ELB status ({@code 503 Service Temporarily Unavailable: no
   * registered targets}), so gRPC clients see a clear error rather than a bare HTTP status. When
   * the target's head (and perhaps messages) already went out, the same status ends the call in the
   * trailers (a grpc-timeout that passes mid-stream ends as DEADLINE_EXCEEDED, not as a reset).
   */
  static void sendGrpc(HttpServerRequest request, ElbError error, ListenerHeaders listener) {
    HttpServerResponse response = request.response();
    String message = grpcMessage(error);
    if (response.ended()) {
      return;
    }
    if (response.headWritten()) {
      MultiMap t = response.trailers();
      t.clear();
      t.set("grpc-status", Integer.toString(error.grpcStatus()));
      t.set("grpc-message", message);
      response.end();
      return;
    }
    response.setStatusCode(200);
    MultiMap h = response.headers();
    h.clear();
    h.set(CONTENT_TYPE_NAME, "application/grpc");
    h.set("grpc-status", Integer.toString(error.grpcStatus()));
    h.set("grpc-message", message);
    listener.server(h);
    listener.beforeHead(h);
    response.end();
  }

  /**
   * The grpc-message for {@code error} ({@code 503 Service Temporarily Unavailable: no registered
   * targets}), percent-encoded.
   */
  static String grpcMessage(ElbError error) {
    String phrase = error.phrase().isEmpty() ? "" : " " + error.phrase();
    return percentEncode(error.status() + phrase + ": " + error.reason());
  }

  /** grpc-message is percent-encoded (gRPC over HTTP/2 spec): printable ASCII but '%' passes as is. */
  static String percentEncode(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (byte c : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
      if (c >= 0x20 && c <= 0x7e && c != '%') {
        b.append((char) c);
      } else {
        b.append('%').append(Character.toUpperCase(Character.forDigit((c >> 4) & 0xF, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xF, 16)));
      }
    }
    return b.toString();
  }

  /** ALB's small HTML page with {@code title} as title and heading ({@code 502 Bad Gateway}). */
  public static String page(String title) {
    return "<html>\r\n<head><title>" + title + "</title></head>\r\n<body>\r\n<center><h1>" + title
        + "</h1></center>\r\n</body>\r\n</html>\r\n";
  }

  /** The page ALB shows for an error (tests and the access log use it). */
  public static String page(ElbError error) {
    return new String(PAGES.get(error), StandardCharsets.UTF_8);
  }
}
