package io.fulcrum.testing;

import io.fulcrum.bootstrap.NetworkTransport;
import io.vertx.core.Vertx;

/**
 * A Vert.x for a test, on the network transport Fulcrum itself runs on: {@code FULCRUM_TRANSPORT}
 * as in production (epoll where the platform has it, else NIO), so that the suite exercises the
 * transport users get; {@code FULCRUM_TRANSPORT=io_uring mvn verify} runs it on another.
 */
public final class TestVertx {

  private TestVertx() {
  }

  public static Vertx create() {
    return NetworkTransport.vertx(System.getenv());
  }

  /** With {@code eventLoops} event loops. */
  public static Vertx create(int eventLoops) {
    return NetworkTransport.vertx(System.getenv(), eventLoops);
  }
}
