package io.fulcrum.health;

import io.fulcrum.model.HealthCheck;
import io.fulcrum.model.Protocol;
import io.fulcrum.model.TargetHealth;
import io.fulcrum.time.Timers;
import io.fulcrum.tls.TlsEngine;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpConnectOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * HTTP and HTTPS health checks as ALB sends them (SPEC §1.5): {@code GET <path>} with
 * {@code Host: <target ip>:<port>} and {@code User-Agent: ELB-HealthChecker/2.0}, a new connection
 * for every check, closed once the answer's status line and headers are in. HTTPS certificates are
 * not validated. The timeout runs on {@link Timers}, so a virtual clock drives it in tests.
 */
final class HttpProber implements Prober {

  static final String USER_AGENT = "ELB-HealthChecker/2.0";
  /** The range of valid HTTP status codes; the decoder passes on any number. */
  static final int MIN_STATUS = 100;
  static final int MAX_STATUS = 599;

  private final Timers timers;
  private final HttpClientAgent client;
  private final HttpClientAgent grpcClient;

  /** An empty gRPC message: the request of AWS.ALB/healthcheck and of grpc.health.v1.Health/Check (service ""). */
  private static final Buffer EMPTY_MESSAGE = Buffer.buffer(new byte[5]);
  private static final Handler<Throwable> IGNORE = e -> { };
  private static final Handler<Buffer> IGNORE_DATA = data -> { };

  HttpProber(Vertx vertx, Timers timers) {
    this.timers = timers;
    this.grpcClient = vertx.httpClientBuilder()
        .with(new HttpClientOptions()
            .setProtocolVersion(HttpVersion.HTTP_2)
            .setUseAlpn(true)
            .setHttp2ClearTextUpgrade(false)
            .setSslEngineOptions(TlsEngine.current().vertxOptions())
            .setTrustAll(true)
            .setVerifyHost(false)
            .setShared(false))
        .build();
    this.client = vertx.httpClientBuilder()
        .with(new HttpClientOptions()
            .setKeepAlive(false)
            .setSslEngineOptions(TlsEngine.current().vertxOptions())
            .setTrustAll(true)
            .setVerifyHost(false)
            .setDecompressionSupported(false)
            .setMaxHeaderSize(32 * 1024)
            .setShared(false))
        .with(new PoolOptions().setHttp1MaxSize(4096).setMaxWaitQueueSize(-1))
        .build();
  }

  @Override
  public void probe(String address, int port, HealthCheck check, boolean nlb, Handler<CheckResult> result) {
    Attempt attempt = new Attempt(check.timeoutSeconds() * 1000L, result,
        elapsed -> CheckResult.fail(nlb ? TargetHealth.FAILED : TargetHealth.TIMEOUT, -1, elapsed));
    long start = attempt.start;
    String host = address.indexOf(':') >= 0 ? "[" + address + "]:" + port : address + ":" + port;
    if (check.grpc()) {
      grpc(address, port, check, attempt, start);
      return;
    }
    RequestOptions options = new RequestOptions()
        .setMethod(HttpMethod.GET)
        .setHost(address)
        .setPort(port)
        .setSsl(check.protocol() == Protocol.HTTPS)
        .setURI(check.path())
        .putHeader("Host", host)
        .putHeader("User-Agent", USER_AGENT);
    client.request(options).onComplete(ar -> {
      if (ar.failed()) {
        attempt.finish(CheckResult.fail(TargetHealth.FAILED, -1, timers.now() - start));
        return;
      }
      HttpClientRequest request = ar.result();
      attempt.request = request;
      if (attempt.done()) {
        request.reset();
        return;
      }
      quiet(request);
      request.send().onComplete(rar -> {
        long latency = timers.now() - start;
        if (rar.failed()) {
          attempt.finish(CheckResult.fail(TargetHealth.FAILED, -1, latency));
          return;
        }
        rar.result().exceptionHandler(IGNORE); // the body cut by the close below
        int code = rar.result().statusCode();
        if (code < MIN_STATUS || code > MAX_STATUS) {
          // Not an HTTP status (RFC 9110 §15: three digits, 1xx-5xx): a malformed answer, not a code mismatch.
          attempt.finish(CheckResult.fail(TargetHealth.FAILED, code, latency));
        } else {
          boolean ok = check.matcher().matches(code);
          attempt.finish(ok ? CheckResult.pass(code, latency)
              : CheckResult.fail(nlb ? TargetHealth.FAILED : TargetHealth.responseCodeMismatch(code), code, latency));
        }
        // The answer is in; the rest of the body is of no interest and the connection is not reused.
        request.connection().close();
      });
    });
  }

  /**
   * A gRPC check (SPEC §7.4): {@code POST <path>} over HTTP/2 (prior knowledge, or ALPN over TLS)
   * with an empty message; judged on the {@code grpc-status} returned, in the trailers or in a
   * trailers-only answer.
   */
  private void grpc(String address, int port, HealthCheck check, Attempt attempt, long start) {
    RequestOptions options = new RequestOptions()
        .setMethod(HttpMethod.POST)
        .setHost(address)
        .setPort(port)
        .setSsl(check.protocol() == Protocol.HTTPS)
        .setURI(check.path())
        .putHeader("content-type", "application/grpc")
        .putHeader("te", "trailers")
        .putHeader("user-agent", USER_AGENT);
    // Each check on a connection of its own, closed when it is judged: checks of one target by several
    // groups, made at once, shared a pooled connection, and the first one done closed it under the others.
    grpcClient.connect(new HttpConnectOptions().setHost(address).setPort(port)
        .setSsl(check.protocol() == Protocol.HTTPS)).onComplete(car -> {
          if (car.failed()) {
            attempt.finish(CheckResult.fail(TargetHealth.FAILED, -1, timers.now() - start));
            return;
          }
          HttpClientConnection connection = car.result();
          connection.exceptionHandler(IGNORE);
          attempt.connection = connection;
          if (attempt.done()) {
            connection.close();
            return;
          }
          grpc(connection, options, check, attempt, start);
        });
  }

  private void grpc(HttpClientConnection connection, RequestOptions options, HealthCheck check, Attempt attempt,
      long start) {
    connection.request(options).onComplete(ar -> {
      if (ar.failed()) {
        attempt.finish(CheckResult.fail(TargetHealth.FAILED, -1, timers.now() - start));
        connection.close();
        return;
      }
      HttpClientRequest request = ar.result();
      attempt.request = request;
      if (attempt.done()) {
        request.reset();
        return;
      }
      quiet(request);
      request.send(EMPTY_MESSAGE).compose(resp -> resp.handler(IGNORE_DATA).end().map(v -> {
        // The message is not read (a target could send any amount of it); only its status counts.
        String status = resp.trailers().get("grpc-status");
        return status != null ? status : resp.headers().get("grpc-status");
      }).map(status -> resp.statusCode() == 200 ? status : null)).onComplete(rar -> {
        long latency = timers.now() - start;
        Integer code = null;
        if (rar.succeeded() && rar.result() != null) {
          try {
            code = Integer.parseInt(rar.result().trim());
          } catch (NumberFormatException e) {
            code = null;
          }
        }
        if (code == null) {
          // An answer without a grpc-status (or an empty one) is GRPCStatusHeaderEmpty in the health check log.
          attempt.finish(rar.succeeded() ? CheckResult.fail(TargetHealth.FAILED, -1, latency, "GRPCStatusHeaderEmpty")
              : CheckResult.fail(TargetHealth.FAILED, -1, latency));
        } else if (check.matcher().matches(code)) {
          attempt.finish(CheckResult.pass(code, latency));
        } else {
          attempt.finish(CheckResult.fail(TargetHealth.responseCodeMismatch(code), code, latency,
              "GRPCUnexpectedStatus"));
        }
        connection.close();
      });
    });
  }

  /**
   * What breaks a check's connection (bytes that are not HTTP, a head over the limit, a reset) is
   * the check's result, reported as the target's reason code: without a handler of its own, Vert.x
   * would log each at ERROR, every interval, for every such target.
   */
  private static void quiet(HttpClientRequest request) {
    request.exceptionHandler(IGNORE);
    request.connection().exceptionHandler(IGNORE);
  }

  /**
   * One check in flight; a request still running when its time is up is reset (and a gRPC check's
   * connection, its own, closed).
   */
  private final class Attempt extends CheckAttempt {
    HttpClientRequest request;
    HttpClientConnection connection;

    Attempt(long timeoutMillis, Handler<CheckResult> result, java.util.function.LongFunction<CheckResult> onTimeout) {
      super(timers, timeoutMillis, result, onTimeout);
    }

    @Override
    void timedOut() {
      if (request != null) {
        request.reset();
      }
      if (connection != null) {
        connection.close();
      }
    }
  }
}
