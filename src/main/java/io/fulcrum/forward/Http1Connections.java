package io.fulcrum.forward;

import io.fulcrum.balancer.Upstream;
import io.vertx.core.Future;
import io.vertx.core.http.HttpClientAgent;
import io.vertx.core.http.HttpClientConnection;
import io.vertx.core.http.HttpConnectOptions;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keep-alive connections to HTTP/1.1 targets made with Vert.x's HTTP client (see
 * {@link KeepAlivePool}): the forwarder's connections for requests that Vert.x's server parsed.
 */
final class Http1Connections extends KeepAlivePool<HttpClientConnection> {

  private static final Logger LOG = LoggerFactory.getLogger(Http1Connections.class);

  private final HttpClientAgent client;

  /**
   * @param client       the client connections are made with (timeouts, TLS toward targets)
   * @param maxPerTarget open connections per target at most; further requests wait for one
   * @param nanoTime     the clock keep-alive timeouts are measured with ({@link System#nanoTime})
   */
  Http1Connections(HttpClientAgent client, int maxPerTarget, LongSupplier nanoTime) {
    super(maxPerTarget, nanoTime);
    this.client = client;
  }

  @Override
  protected Future<HttpClientConnection> dial(Upstream target, boolean tls) {
    return client.connect(new HttpConnectOptions().setHost(target.address()).setPort(target.port()).setSsl(tls))
        .andThen(ar -> {
          if (ar.succeeded()) {
            ar.result().exceptionHandler(
                e -> LOG.debug("connection to {}:{}: {}", target.address(), target.port(), e.toString()));
          }
        });
  }

  @Override
  protected void whenClosed(HttpClientConnection c, Runnable action) {
    c.closeHandler(v -> action.run());
  }

  @Override
  protected Future<Void> close(HttpClientConnection c) {
    return c.close();
  }
}
