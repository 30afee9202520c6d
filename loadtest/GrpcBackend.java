import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.VerticleBase;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpVersion;

/**
 * The gRPC backend of compare.sh: an HTTP/2 (h2c, prior knowledge) server that answers every
 * unary call the way a gRPC server does on the wire: {@code 200}, {@code content-type:
 * application/grpc}, the request's length-prefixed message echoed back, and the trailer
 * {@code grpc-status: 0}. No protobuf is decoded: the load is the same for every proxy measured,
 * and what is measured is the proxy, not a service.
 *
 * <p>Run from the repository root with the fat jar on the class path (Java's single-file launch):
 * {@code java -cp target/fulcrum.jar loadtest/GrpcBackend.java PORT [EVENT_LOOPS]}. Prints
 * {@code ready} once it listens. Loopback only.
 */
public final class GrpcBackend extends VerticleBase {

  private static final Buffer EMPTY_MESSAGE = Buffer.buffer(new byte[] {0, 0, 0, 0, 0});

  private final int port;

  GrpcBackend(int port) {
    this.port = port;
  }

  @Override
  public Future<?> start() {
    HttpServerOptions options = new HttpServerOptions()
        .setHost("127.0.0.1")
        .setPort(port)
        .setHttp2ClearTextEnabled(true)
        .setTcpNoDelay(true);
    return vertx.createHttpServer(options).requestHandler(GrpcBackend::handle).listen();
  }

  private static void handle(HttpServerRequest req) {
    req.body().onSuccess(body -> {
      if (req.version() != HttpVersion.HTTP_2) {
        req.response().setStatusCode(415).end("gRPC needs HTTP/2\n");
        return;
      }
      // A health check (Fulcrum's /AWS.ALB/healthcheck) may send no message: answer an empty one.
      Buffer message = body.length() >= 5 ? body : EMPTY_MESSAGE;
      req.response()
          .putHeader("content-type", "application/grpc")
          .putTrailer("grpc-status", "0")
          .end(message);
    });
  }

  public static void main(String[] args) {
    int port = Integer.parseInt(args[0]);
    int loops = args.length > 1 ? Integer.parseInt(args[1]) : 1;
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(loops));
    vertx.deployVerticle(() -> new GrpcBackend(port), new DeploymentOptions().setInstances(loops))
        .onSuccess(id -> System.out.println("ready on 127.0.0.1:" + port + " (" + loops + " event loops)"))
        .onFailure(e -> {
          System.err.println("GrpcBackend: " + e.getMessage());
          System.exit(1);
        });
  }
}
