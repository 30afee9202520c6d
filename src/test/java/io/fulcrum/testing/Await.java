package io.fulcrum.testing;

import io.vertx.core.Future;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Blocks a test thread (never an event loop) on a Vert.x future. */
public final class Await {

  private Await() {
  }

  public static <T> T result(Future<T> f) {
    return result(f, Integer.getInteger("await.seconds", 30));
  }

  public static <T> T result(Future<T> f, int seconds) {
    try {
      return f.toCompletionStage().toCompletableFuture().get(seconds, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new IllegalStateException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("timed out after " + seconds + " s", e);
    }
  }
}
