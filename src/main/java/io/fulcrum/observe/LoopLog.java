package io.fulcrum.observe;

import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The access log lines of one event loop (one listener verticle), by destination, until they go to
 * the writer: a destination's lines leave when they pass {@link #CHUNK} characters, when a line
 * falls in the next 5-minute period, and when the writer collects them at the end of each period
 * ({@link AccessLogs#collect}). Touched only on that loop: no lock, no atomic operation per line.
 */
public final class LoopLog {

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.");
  private static final char[] HEX = "0123456789abcdef".toCharArray();

  /** How many characters of lines a destination holds before they go to the writer. */
  static final int CHUNK = 64 * 1024;

  private final Map<LogDestination, Lines> byDestination = new HashMap<>();
  private final Consumer<Chunk> writer;

  /** @param writer takes lines that leave before the writer collects them (any thread may then write them) */
  public LoopLog(Consumer<Chunk> writer) {
    this.writer = writer;
  }

  /** Lines of one destination for one period, as they go to the writer. */
  public record Chunk(LogDestination destination, long periodEnd, String text) {
  }

  /** The lines of {@code destination} on this loop, made on first use. */
  public Lines lines(LogDestination destination) {
    return byDestination.computeIfAbsent(destination, Lines::new);
  }

  /**
   * Sends the lines of destinations no longer in use to the writer and forgets them (a line still
   * written to one goes to the writer on its own).
   */
  public void retain(Set<LogDestination> inUse) {
    byDestination.values().removeIf(l -> {
      if (inUse.contains(l.destination)) {
        return false;
      }
      l.flush();
      l.retired = true;
      return true;
    });
  }

  /** Takes every destination's lines (the writer collects them). */
  List<Chunk> take() {
    List<Chunk> out = new ArrayList<>();
    for (Lines l : byDestination.values()) {
      Chunk c = l.take();
      if (c != null) {
        out.add(c);
      }
    }
    return out;
  }

  /** The lines of one destination on this loop. */
  public final class Lines {
    private final LogDestination destination;
    private final StringBuilder text = new StringBuilder(256);
    private long periodEnd;
    /**
     * No longer collected (its load balancer's log went off, or the loop stopped): a line that a
     * request in flight still writes goes to the writer at once.
     */
    private boolean retired;
    /** The second {@link #secondText} is, as {@code yyyy-MM-ddTHH:mm:ss.}, for {@link #time}. */
    private long second = Long.MIN_VALUE;
    private String secondText;

    private Lines(LogDestination destination) {
      this.destination = destination;
    }

    public LogDestination destination() {
      return destination;
    }

    /** Appends a time as the log writes it, ISO 8601 in UTC with microseconds: {@code 2018-07-02T22:23:00.186641Z}. */
    public StringBuilder time(long epochMicros) {
      long s = Math.floorDiv(epochMicros, 1_000_000);
      if (s != second) {
        second = s;
        secondText = TIME.format(LocalDateTime.ofEpochSecond(s, 0, ZoneOffset.UTC));
      }
      int micros = (int) Math.floorMod(epochMicros, 1_000_000);
      text.append(secondText);
      for (int d = 100_000; d > 1 && micros < d; d /= 10) {
        text.append('0');
      }
      return text.append(micros).append('Z');
    }

    /** Appends nanoseconds as seconds with millisecond precision ({@code 0.086}), or -1 when negative. */
    public StringBuilder seconds(long nanos) {
      if (nanos < 0) {
        return text.append("-1");
      }
      long ms = (nanos + 500_000) / 1_000_000;
      long frac = ms % 1000;
      text.append(ms / 1000).append('.');
      if (frac < 100) {
        text.append(frac < 10 ? "00" : "0");
      }
      return text.append(frac);
    }

    /**
     * Appends {@code value} in double quotes, or {@code "-"} when null or empty. A quote, a backslash,
     * a control character or one beyond ASCII is written {@code \xHH} (its low 8 bits), so that a
     * field never ends early and the line stays one line of ASCII.
     */
    public StringBuilder quoted(CharSequence value, int max) {
      text.append('"');
      if (value == null || value.length() == 0) {
        text.append('-');
      } else {
        int n = Math.min(value.length(), max);
        for (int i = 0; i < n; i++) {
          char c = value.charAt(i);
          if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
            text.append("\\x").append(HEX[(c >> 4) & 0xf]).append(HEX[c & 0xf]);
          } else {
            text.append(c);
          }
        }
      }
      return text.append('"');
    }

    /**
     * Where to append one line (without its newline) that ends at {@code epochMillis}; then call
     * {@link #end}.
     */
    public StringBuilder start(long epochMillis) {
      long end = LogDestination.periodEnd(epochMillis);
      if (end != periodEnd) {
        flush();
        periodEnd = end;
      }
      return text;
    }

    /** The line appended since {@link #start} is complete. */
    public void end() {
      text.append('\n');
      if (text.length() >= CHUNK || retired) {
        flush();
      }
    }

    private Chunk take() {
      if (text.isEmpty()) {
        return null;
      }
      Chunk c = new Chunk(destination, periodEnd, text.toString());
      text.setLength(0);
      return c;
    }

    void flush() {
      Chunk c = take();
      if (c != null) {
        writer.accept(c);
      }
    }
  }
}
