package io.fulcrum.observe;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.Shareable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The access log of one Vert.x instance: every event loop's {@link LoopLog}, and the writer that
 * takes their lines ({@link AccessLogVerticle}). Lines are built only while a writer is there.
 */
public final class AccessLogs implements Shareable {

  private static final String MAP = "fulcrum.observe.access-logs";
  private static final String KEY = "logs";

  private record Loop(Context context, LoopLog log) {
  }

  private final List<Loop> loops = new CopyOnWriteArrayList<>();
  private volatile Consumer<LoopLog.Chunk> writer;

  private AccessLogs() {
  }

  /** The access log of {@code vertx} (one object per Vert.x instance). */
  public static AccessLogs of(Vertx vertx) {
    var map = vertx.sharedData().<String, AccessLogs>getLocalMap(MAP);
    AccessLogs mine = new AccessLogs();
    AccessLogs existing = map.putIfAbsent(KEY, mine);
    return existing == null ? mine : existing;
  }

  /** Whether a writer takes lines: when not, listeners build none. */
  public boolean writing() {
    return writer != null;
  }

  /** A new loop's lines, which go to the writer while there is one. */
  public LoopLog newLoop() {
    return new LoopLog(chunk -> {
      Consumer<LoopLog.Chunk> w = writer;
      if (w != null) {
        w.accept(chunk);
      }
    });
  }

  /**
   * Adds the lines of the loop of {@code context}, which alone touches them.
   *
   * @return removes them again (the verticle stops)
   */
  public Runnable register(Context context, LoopLog log) {
    Loop loop = new Loop(context, log);
    loops.add(loop);
    return () -> loops.remove(loop);
  }

  /** Sets who writes lines (null: nobody; lines are dropped and no longer built). Any thread. */
  void writer(Consumer<LoopLog.Chunk> writer) {
    this.writer = writer;
  }

  /** Takes the lines every loop holds, each on its own loop. Any thread. */
  Future<List<LoopLog.Chunk>> collect() {
    List<Future<List<LoopLog.Chunk>>> taken = new ArrayList<>();
    for (Loop loop : loops) {
      Promise<List<LoopLog.Chunk>> p = Promise.promise();
      loop.context().runOnContext(v -> p.complete(loop.log().take()));
      taken.add(p.future());
    }
    return Future.all(taken).map(all -> {
      List<LoopLog.Chunk> out = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        out.addAll(all.<List<LoopLog.Chunk>>resultAt(i));
      }
      return out;
    });
  }

  @Override
  public Shareable copy() {
    return this;
  }
}
