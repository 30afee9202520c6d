package io.fulcrum.testing;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * An identity provider's JWKS endpoint over HTTPS (its own self-signed certificate for 127.0.0.1):
 * {@code /jwks} serves the key set given, counting fetches; every other path answers 503.
 */
public final class JwksServer implements AutoCloseable {

  private final HttpServer server;
  private final TestCertificates.Pem certificate;
  private final AtomicReference<String> document;
  private final AtomicInteger fetches = new AtomicInteger();

  private JwksServer(HttpServer server, TestCertificates.Pem certificate, String document) {
    this.server = server;
    this.certificate = certificate;
    this.document = new AtomicReference<>(document);
  }

  /** Serves {@code document} at {@code /jwks}; its certificate is written into {@code dir}. */
  public static JwksServer start(Vertx vertx, Path dir, String document) {
    TestCertificates.Pem cert = TestCertificates.pem(dir, "idp", "127.0.0.1");
    HttpServer server = vertx.createHttpServer(new HttpServerOptions().setSsl(true).setPort(0).setHost("127.0.0.1")
        .setKeyCertOptions(new PemKeyCertOptions().setCertPath(cert.certificate().toString())
            .setKeyPath(cert.privateKey().toString())));
    JwksServer s = new JwksServer(server, cert, document);
    server.requestHandler(req -> {
      if (req.path().equals("/jwks")) {
        s.fetches.incrementAndGet();
        req.response().putHeader("Content-Type", "application/json").end(s.document.get());
      } else {
        req.response().setStatusCode(503).end("down");
      }
    });
    Await.result(server.listen());
    return s;
  }

  /** {@code https://127.0.0.1:<port>}: the endpoint is this and {@code /jwks}. */
  public String origin() {
    return "https://127.0.0.1:" + server.actualPort();
  }

  /** The PEM file of the server's certificate, for {@code jwks.ca-certificates}. */
  public Path caFile() {
    return certificate.certificate();
  }

  /** Serves {@code document} from now on. */
  public void serve(String document) {
    this.document.set(document);
  }

  /** How many times {@code /jwks} was fetched. */
  public int fetches() {
    return fetches.get();
  }

  @Override
  public void close() {
    Await.result(server.close());
  }
}
