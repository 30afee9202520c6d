package io.fulcrum.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One loop's access log lines, as they leave for the writer, and the values they are written with. */
class LoopLogTest {

  private static final long T = 1_767_225_600_000L; // 2026-01-01T00:00:00Z, a period's start
  private final List<LoopLog.Chunk> handed = new ArrayList<>();
  private final LoopLog log = new LoopLog(handed::add);
  private final LogDestination a = new LogDestination("b", "", "1", "r", "app/a/1", "127.0.0.1");

  private void line(LoopLog.Lines lines, long at, String text) {
    lines.start(at).append(text);
    lines.end();
  }

  @Test
  void lines_stayOnTheLoop_untilCollected_orTheirPeriodEnds() {
    LoopLog.Lines lines = log.lines(a);
    line(lines, T + 1, "one");
    line(lines, T + LogDestination.PERIOD_MILLIS - 1, "two");
    assertThat(handed).isEmpty();
    line(lines, T + LogDestination.PERIOD_MILLIS, "three"); // the next period: the first's lines leave
    assertThat(handed).containsExactly(new LoopLog.Chunk(a, T + LogDestination.PERIOD_MILLIS, "one\ntwo\n"));
    assertThat(log.take()).containsExactly(new LoopLog.Chunk(a, T + 2 * LogDestination.PERIOD_MILLIS, "three\n"));
    assertThat(log.take()).isEmpty();
  }

  @Test
  void aFullBuffer_leavesAtOnce() {
    LoopLog.Lines lines = log.lines(a);
    String big = "x".repeat(LoopLog.CHUNK);
    line(lines, T, big);
    assertThat(handed).singleElement().extracting(LoopLog.Chunk::text).isEqualTo(big + "\n");
  }

  @Test
  void aDestinationNoLongerInUse_handsOverItsLines_andALateLineGoesAtOnce() {
    LoopLog.Lines lines = log.lines(a);
    line(lines, T, "before");
    log.retain(Set.of());
    assertThat(handed).extracting(LoopLog.Chunk::text).containsExactly("before\n");
    line(lines, T, "in flight when the log went off");
    assertThat(handed).extracting(LoopLog.Chunk::text)
        .containsExactly("before\n", "in flight when the log went off\n");
    assertThat(log.take()).isEmpty();
    assertThat(log.lines(a)).isNotSameAs(lines);
  }

  @Test
  void values_areWrittenAsAlbWritesThem() {
    LoopLog.Lines lines = log.lines(a);
    StringBuilder b = lines.start(T);
    lines.time(T * 1000 + 186_641).append(' ');
    lines.time(T * 1000 + 5).append(' ');
    lines.seconds(86_400_000).append(' ');
    lines.seconds(499_999).append(' ');
    lines.seconds(12_345_600_000L).append(' ');
    lines.seconds(-1).append(' ');
    lines.quoted("curl \"7\" \\ é\n", 100).append(' ');
    lines.quoted(null, 100).append(' ');
    lines.quoted("abcdef", 3);
    assertThat(b.toString()).isEqualTo("2026-01-01T00:00:00.186641Z 2026-01-01T00:00:00.000005Z 0.086 0.000 12.346 -1"
        + " \"curl \\x227\\x22 \\x5c \\xe9\\x0a\" \"-\" \"abc\"");
  }
}
