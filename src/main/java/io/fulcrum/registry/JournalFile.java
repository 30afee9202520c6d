package io.fulcrum.registry;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The journal kept across restarts: {@code <data dir>/journal.jsonl}, one event per line as
 * {@code /ui/events} shows it, appended as events come and rewritten with the latest
 * {@link Journal#CAPACITY} once it holds twice as many. A line that does not read (a crash in the
 * middle of a write) is skipped. Blocking file I/O: called on a worker thread, one call at a time.
 */
final class JournalFile {

  static final String FILE = "journal.jsonl";
  private static final Logger LOG = LoggerFactory.getLogger(JournalFile.class);

  private final Path file;
  private int lines;

  JournalFile(Path dataDir) {
    this.file = dataDir.resolve(FILE);
  }

  Path file() {
    return file;
  }

  /** The latest {@code capacity} events of the file, oldest first; none when there is no file. */
  List<Journal.Event> load(int capacity) {
    if (!Files.exists(file)) {
      return List.of();
    }
    List<Journal.Event> events = new ArrayList<>();
    int skipped = 0;
    try {
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        if (line.isBlank()) {
          continue;
        }
        try {
          events.add(Journal.Event.fromJson(new JsonObject(line)));
        } catch (DecodeException | IllegalArgumentException | ClassCastException | NullPointerException e) {
          skipped++;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the journal " + file + ": " + e.getMessage(), e);
    }
    if (skipped > 0) {
      LOG.warn("journal {}: {} line(s) that do not read were skipped", file, skipped);
    }
    endTornLine();
    lines = events.size() + skipped;
    return List.copyOf(events.subList(Math.max(0, events.size() - capacity), events.size()));
  }

  /**
   * A last line cut short (a crash in the middle of a write) is cut off, so that the next event
   * appended starts a line of its own rather than going onto it, unreadable with it.
   */
  private void endTornLine() {
    try (java.nio.channels.FileChannel channel = java.nio.channels.FileChannel.open(file, StandardOpenOption.READ,
        StandardOpenOption.WRITE)) {
      long size = channel.size();
      java.nio.ByteBuffer one = java.nio.ByteBuffer.allocate(1);
      long end = size;
      while (end > 0) {
        one.clear();
        channel.read(one, end - 1);
        if (one.get(0) == '\n') {
          break;
        }
        end--;
      }
      if (end < size) {
        channel.truncate(end);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot mend the journal " + file + ": " + e.getMessage(), e);
    }
  }

  /** Adds {@code events}; whether the file now holds more than twice {@code capacity} lines. */
  boolean append(List<Journal.Event> events, int capacity) {
    StringBuilder text = new StringBuilder();
    events.forEach(e -> text.append(e.toJson().encode()).append('\n'));
    try {
      Files.writeString(file, text, StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the journal " + file + ": " + e.getMessage(), e);
    }
    lines += events.size();
    return lines > 2 * capacity;
  }

  /** Replaces the file with {@code events} (written aside, then moved over it). */
  void rewrite(List<Journal.Event> events) {
    StringBuilder text = new StringBuilder();
    events.forEach(e -> text.append(e.toJson().encode()).append('\n'));
    Path tmp = file.resolveSibling(FILE + ".tmp");
    try {
      Files.writeString(tmp, text, StandardCharsets.UTF_8);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the journal " + file + ": " + e.getMessage(), e);
    }
    lines = events.size();
  }
}
