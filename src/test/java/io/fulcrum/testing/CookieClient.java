package io.fulcrum.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.CookieManager;
import java.net.CookiePolicy;
import java.net.HttpCookie;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A browser-like client for stickiness tests: the JDK's {@link HttpClient} (HTTP/1.1) with a real
 * cookie jar ({@link CookieManager}), which stores what {@code Set-Cookie} says (Expires, Path,
 * Secure: a {@code Secure} cookie is kept but not sent over plain HTTP) and sends it back. Fine to
 * use from a test thread.
 */
public final class CookieClient {

  private final CookieManager jar = new CookieManager(null, CookiePolicy.ACCEPT_ALL);
  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .cookieHandler(jar)
      .connectTimeout(Duration.ofSeconds(5))
      .build();

  /** A response: status, body, and every {@code Set-Cookie} line as received. */
  public record Reply(int status, String body, List<String> setCookies) {
  }

  public Reply get(int port, String path) {
    return get("127.0.0.1", port, path, Map.of());
  }

  public Reply get(String host, int port, String path, Map<String, String> headers) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://" + host + ":" + port + path))
        .timeout(Duration.ofSeconds(10));
    headers.forEach(b::header);
    try {
      HttpResponse<String> r = client.send(b.build(), HttpResponse.BodyHandlers.ofString());
      return new Reply(r.statusCode(), r.body(), r.headers().allValues("set-cookie"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The value of a cookie in the jar, or null. */
  public String cookie(String name) {
    return jar.getCookieStore().getCookies().stream().filter(c -> c.getName().equals(name)).map(HttpCookie::getValue)
        .findFirst().orElse(null);
  }

  /** Replaces the value of a cookie in the jar (a client that tampers with it), keeping its attributes. */
  public void replace(String name, String value) {
    var store = jar.getCookieStore();
    for (URI uri : store.getURIs()) {
      for (HttpCookie c : store.get(uri)) {
        if (c.getName().equals(name)) {
          store.remove(uri, c);
          HttpCookie t = (HttpCookie) c.clone();
          t.setValue(value);
          store.add(uri, t);
        }
      }
    }
  }

  /** Drops a cookie from the jar. */
  public void remove(String name) {
    var store = jar.getCookieStore();
    for (URI uri : store.getURIs()) {
      store.get(uri).stream().filter(c -> c.getName().equals(name)).toList().forEach(c -> store.remove(uri, c));
    }
  }

  /** The names of the cookies in the jar. */
  public List<String> names() {
    return jar.getCookieStore().getCookies().stream().map(HttpCookie::getName).sorted().toList();
  }
}
