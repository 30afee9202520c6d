package io.fulcrum.registry;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the journal in its file ({@link JournalFile}) across restarts: gives the journal back the
 * events kept at start, then writes each new one off the event loop, the events of one turn of the
 * registry's loop together, one write after another; once the file holds twice the journal's
 * capacity, rewrites it with the events the journal keeps. Runs on the registry's context.
 */
final class JournalWriter {

  private static final Logger LOG = LoggerFactory.getLogger(JournalWriter.class);

  private final JournalFile file;
  private List<Journal.Event> kept;
  private Vertx vertx;
  private Journal journal;
  private List<Journal.Event> unwritten = new ArrayList<>();
  private boolean flushScheduled;
  private Future<?> writes = Future.succeededFuture();

  /** Reads the events kept in {@code <dataDir>/journal.jsonl} (blocking: off the event loop). */
  JournalWriter(Path dataDir) {
    this.file = new JournalFile(dataDir);
    this.kept = file.load(Journal.CAPACITY);
  }

  /** Gives {@code journal} the events kept, and writes every event it records from now on. */
  void start(Vertx vertx, Journal journal) {
    this.vertx = vertx;
    this.journal = journal;
    journal.restore(kept);
    kept = List.of();
    journal.sink(this::write);
  }

  private void write(Journal.Event e) {
    unwritten.add(e);
    if (!flushScheduled) {
      flushScheduled = true;
      vertx.runOnContext(v -> flush());
    }
  }

  /** Writes the events not yet written, after the writes before; completes when they are. */
  Future<?> flush() {
    flushScheduled = false;
    if (unwritten.isEmpty()) {
      return writes;
    }
    List<Journal.Event> batch = unwritten;
    unwritten = new ArrayList<>();
    long last = batch.get(batch.size() - 1).sequence();
    writes = writes.transform(previous -> vertx.executeBlocking(() -> file.append(batch, Journal.CAPACITY), false)
        .compose(full -> {
          if (!full) {
            return Future.succeededFuture();
          }
          List<Journal.Event> keep = journal.after(0).stream().filter(e -> e.sequence() <= last).toList();
          return vertx.executeBlocking(() -> {
            file.rewrite(keep);
            return null;
          }, false);
        })
        .onFailure(e -> LOG.warn("journal: {}", e.getMessage())));
    return writes;
  }
}
