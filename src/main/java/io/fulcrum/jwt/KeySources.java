package io.fulcrum.jwt;

import io.fulcrum.time.Timers;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * The JWKS endpoints of a deployment's jwt-validation actions, one {@link KeySource} each, kept
 * across configuration changes while an action uses them. Fetches over HTTPS with the host name
 * checked, trusting the JDK's CAs, or only those of a configured bundle. Created and used on one
 * context (the registry's); the sources it hands out are read from any thread.
 */
public final class KeySources {

  static final int TIMEOUT_MILLIS = 5_000;

  private final Context context;
  private final Timers timers;
  private final HttpClient client;
  private final Map<String, KeySource> sources = new HashMap<>();
  private final Changes changes;

  /** Told, on the owner's context, when an endpoint's keys change or it starts failing. */
  @FunctionalInterface
  public interface Changes {
    /**
     * @param endpoint    the JWKS endpoint
     * @param from        what it was ({@code 2 keys}, {@code failing}; null before its first fetch)
     * @param to          what it is now
     * @param description the keys read, or why the fetch failed
     */
    void changed(String endpoint, String from, String to, String description);
  }

  /**
   * @param caCertificates a PEM bundle of the CAs that JWKS endpoints' certificates must chain to,
   *                       or null for the JDK's
   */
  public KeySources(Vertx vertx, Timers timers, String caCertificates, Changes changes) {
    this.context = vertx.getOrCreateContext();
    this.timers = timers;
    this.changes = changes;
    HttpClientOptions options = new HttpClientOptions().setVerifyHost(true).setConnectTimeout(TIMEOUT_MILLIS)
        .setIdleTimeout(TIMEOUT_MILLIS).setIdleTimeoutUnit(java.util.concurrent.TimeUnit.MILLISECONDS);
    if (caCertificates != null) {
      options.setTrustOptions(new PemTrustOptions().addCertPath(caCertificates));
    }
    this.client = vertx.createHttpClient(options);
  }

  /** The source of {@code endpoint}, fetching its keys at once when it is new. */
  public KeySource source(String endpoint) {
    return sources.computeIfAbsent(endpoint, e -> {
      KeySource s = new KeySource(e, this);
      s.fetch();
      return s;
    });
  }

  /** Closes the sources of endpoints no action uses any more. */
  public void retain(Set<String> endpoints) {
    for (Iterator<KeySource> it = sources.values().iterator(); it.hasNext(); ) {
      KeySource s = it.next();
      if (!endpoints.contains(s.endpoint())) {
        s.close();
        it.remove();
      }
    }
  }

  public Future<Void> close() {
    sources.values().forEach(KeySource::close);
    sources.clear();
    return client.close();
  }

  void changed(String endpoint, String from, String to, String description) {
    changes.changed(endpoint, from, to, description);
  }

  Context context() {
    return context;
  }

  Timers timers() {
    return timers;
  }

  /** GETs a JWKS document: a 200 of at most {@value JwkSet#MAX_BYTES} bytes that reads as a key set. */
  Future<JwkSet> download(String endpoint) {
    RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setAbsoluteURI(endpoint)
        .putHeader(HttpHeaders.ACCEPT, "application/json").setConnectTimeout(TIMEOUT_MILLIS)
        .setIdleTimeout(TIMEOUT_MILLIS);
    return client.request(request).compose(r -> r.send()).compose(this::body).map(b -> JwkSet.parse(b.getBytes()));
  }

  private Future<Buffer> body(HttpClientResponse response) {
    if (response.statusCode() != 200) {
      response.request().reset();
      return Future.failedFuture("HTTP " + response.statusCode() + " from the JWKS endpoint");
    }
    String length = response.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (length != null && (length.trim().length() > 7 || Long.parseLong(length.trim()) > JwkSet.MAX_BYTES)) {
      response.request().reset();
      return Future.failedFuture(length.trim() + " bytes is above the maximum " + JwkSet.MAX_BYTES);
    }
    Promise<Buffer> body = Promise.promise();
    Buffer read = Buffer.buffer();
    response.handler(chunk -> {
      if (read.length() + chunk.length() > JwkSet.MAX_BYTES) {
        body.tryFail("the JWKS document is above the maximum " + JwkSet.MAX_BYTES + " bytes");
        response.request().reset();
      } else {
        read.appendBuffer(chunk);
      }
    });
    response.exceptionHandler(body::tryFail);
    response.endHandler(v -> body.tryComplete(read));
    return body.future();
  }
}
