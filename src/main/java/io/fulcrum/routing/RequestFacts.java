package io.fulcrum.routing;

import io.vertx.core.MultiMap;
import java.util.List;

/**
 * What rule conditions look at in a request. Implementations compute each fact at most once per
 * request and only when a condition asks for it. Called on the owning event loop.
 */
public interface RequestFacts {

  /** The request path as sent, without the query string. */
  String path();

  /**
   * The path as {@code path-pattern} conditions compare it ({@link RulePath#of}); never null.
   * Implementations that are asked more than once should keep it.
   */
  default String rulePath() {
    String path = path();
    return path == null ? "" : RulePath.of(path);
  }

  /** The host name from the Host header (or the absolute URI), without a port; may be null. */
  String host();

  /** The method, exactly as sent. */
  String method();

  MultiMap headers();

  /** Query parameters as decoded key/value pairs, in order; empty when there is no query. */
  List<String[]> queryParameters();

  /** The client's address (4 or 16 bytes): the TCP peer, never X-Forwarded-For. */
  byte[] sourceAddress();
}
