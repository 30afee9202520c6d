package io.fulcrum.registry;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The journal's file: appended, read back, rewritten when it doubles, a torn last line skipped. */
class JournalFileTest {

  @TempDir
  Path dir;

  private static Journal.Event event(long sequence) {
    return new Journal.Event(sequence, 1_767_225_600_000L + sequence, Journal.TARGET_HEALTH, null, "app",
        "10.0.0.1:80", "zone-a", "healthy", "unhealthy", "Target.Timeout", "Request timed out");
  }

  @Test
  void eventsReadBack_asTheyWereWritten_theLatestOnes() {
    JournalFile file = new JournalFile(dir);
    assertThat(file.load(3)).isEmpty();
    List<Journal.Event> written = new ArrayList<>();
    for (long s = 1; s <= 5; s++) {
      written.add(event(s));
    }
    assertThat(file.append(written.subList(0, 2), 3)).isFalse();
    assertThat(file.append(written.subList(2, 5), 3)).isFalse();

    assertThat(new JournalFile(dir).load(3)).containsExactlyElementsOf(written.subList(2, 5));
  }

  @Test
  void aFileTwiceTheCapacity_asksToBeRewritten_andALineCutShortIsSkipped() throws Exception {
    JournalFile file = new JournalFile(dir);
    for (long s = 1; s <= 4; s++) {
      assertThat(file.append(List.of(event(s)), 2)).isFalse();
    }
    assertThat(file.append(List.of(event(5)), 2)).isTrue();
    file.rewrite(List.of(event(4), event(5)));
    Files.writeString(file.file(), "{\"sequence\": 6, \"ti", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

    assertThat(new JournalFile(dir).load(10)).containsExactly(event(4), event(5));
  }

  /** The next event after a restart goes on a line of its own, not onto the torn one, and reads back. */
  @Test
  void afterALineCutShort_theNextEventIsKept() throws Exception {
    JournalFile file = new JournalFile(dir);
    file.append(List.of(event(1)), 10);
    Files.writeString(file.file(), "{\"sequence\": 2, \"ti", StandardCharsets.UTF_8, StandardOpenOption.APPEND);

    JournalFile restarted = new JournalFile(dir);
    assertThat(restarted.load(10)).containsExactly(event(1));
    restarted.append(List.of(event(2)), 10);

    assertThat(new JournalFile(dir).load(10)).containsExactly(event(1), event(2));
  }
}
